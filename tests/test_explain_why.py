"""The doctor's "why" (issue 37): each condition a trace's recorded inputs show gets its reason
key and fix (rules/why.py), PyTorch's recorded answer where the eligibility table holds the
same setting (rules/asked_table.py), the pin the order shows, nn.MultiheadAttention's
need_weights path, the top-left causal warning; on made-up traces."""
import json

import pytest
from madeup import call, condition, eligibility_results, ev, kernel, launch, sdpa_args, trace_of

from report.doctor.explain import explain
from report.doctor.output.said import fix
from report.doctor.output.text_report import first_screen
from report.doctor.rules import asked_table
from report.doctor.rules.call_why import bias_grad_of
from report.doctor.rules.facts import NativeWeights
from report.doctor.rules.why import CUDNN_FIRST
from report.trace.reading.stream import from_dict

FLASH = "aten::_scaled_dot_product_flash_attention"
EFFICIENT = "aten::_scaled_dot_product_efficient_attention"
CUDNN = "aten::_scaled_dot_product_cudnn_attention"
MATH = "aten::_scaled_dot_product_attention_math"
SEED = (2, 8, 256, 64)


@pytest.fixture(autouse=True)
def no_table(monkeypatch, tmp_path):
    """The hand-written rules unless a test writes a table (the committed one may exist)."""
    monkeypatch.setattr(asked_table, "FILE", tmp_path / "none.json")


def group_of(trace):
    found = explain(trace)
    return found, found["attention"]["calls"][0]


def one(op, args, **kw):
    return trace_of(*call(0, op, (), args, **kw))


def test_a_5d_input_is_named_as_the_4d_rule_not_a_disabled_backend():
    _, g = group_of(one(MATH, sdpa_args((2, 8, 4, 256, 64), (2, 8, 4, 256, 64))))
    assert g["reasons"] == ["not_4d"] and g["fixes"] == ["reshape_4d"] and g["source"] == "rule"


def test_a_backend_after_one_that_passes_every_check_is_said_as_the_trace_shows_it():
    _, g = group_of(one(EFFICIENT, sdpa_args(SEED, SEED)))
    assert g["reasons"] == ["not_first"] and g["fixes"] == ["check_pin"]  # a pin, or a build without flash
    _, g = group_of(one(CUDNN, sdpa_args(SEED, SEED)))
    assert g["reasons"] == [] and CUDNN_FIRST[0] == "cudnn"  # first in 2.11's order on sm90: no reason needed


def test_a_strided_last_dimension_asks_for_contiguous_not_padding():
    strided = [[256 * 8 * 128, 256 * 128, 128, 2]] * 3  # every other element of a head dim of 128
    found, g = group_of(one(MATH, sdpa_args(SEED, SEED, strides=strided)))
    assert "last_dim_stride" in g["reasons"] and g["fixes"][0] == "contiguous"
    assert "head_dim" not in {f.rule for f in found.findings}
    bshd = [[256 * 8 * 64, 64, 8 * 64, 1]] * 3  # transpose(1, 2) of [batch, seq, heads, head dim]: last stride 1
    _, g = group_of(one(FLASH, sdpa_args(SEED, SEED, strides=bshd)))
    assert "last_dim_stride" not in g["reasons"] and g["parsed"].layouts == ("transposed_bshd",)


@pytest.mark.parametrize(("hd", "key", "stops"), [(100, "head_dim_alignment", {"cudnn"}),
                                                  (512, "head_dim_too_large", {"cudnn", "flash"})])
def test_head_dims_name_their_check(hd, key, stops):
    shape = (2, 8, 256, hd)
    _, g = group_of(one(MATH if hd > 256 else FLASH, sdpa_args(shape, shape)))
    assert key in g["reasons"]


@pytest.mark.parametrize(("mask_type", "fix"), [("bool", "bool_mask"), ("float", "float_mask")])
def test_a_mask_stops_flash_with_the_fix_for_its_dtype(mask_type, fix):
    _, g = group_of(one(EFFICIENT, sdpa_args(SEED, SEED, mask=(2, 1, 256, 256), mask_type=mask_type)))
    assert "mask" in g["reasons"] and fix in g["fixes"]


def test_float32_stops_cudnn_and_flash():
    _, g = group_of(one(EFFICIENT, sdpa_args(SEED, SEED, dtype="float")))
    assert g["reasons"] == ["dtype"] and g["fixes"] == ["low_precision"]


def test_enable_gqa_decides_the_head_check():
    kv = (2, 2, 256, 64)
    _, g = group_of(one(MATH, sdpa_args(SEED, kv)))
    assert "gqa_heads" in g["reasons"] and "enable_gqa" in g["fixes"]
    _, g = group_of(one(CUDNN, sdpa_args(SEED, kv, gqa="True")))
    assert "gqa_heads" not in g["reasons"]


def test_causal_with_fewer_queries_than_keys_warns_on_the_first_screen():
    found, g = group_of(one(FLASH, sdpa_args((2, 8, 1, 64), (2, 8, 512, 64), causal="True")))
    assert "causal_top_left" in g["warning_keys"]
    row = next(r for r in found.attention if r.direction == "call")
    assert row.warnings and any(row.warnings[0][:30] in line for line in first_screen(found))
    _, square = group_of(one(FLASH, sdpa_args(SEED, SEED, causal="True")))
    assert square["warning_keys"] == []


def backward(t0, bias_dims, grad_mask):
    dims = [[2, 8, 256, 64]] * 4 + [list(bias_dims)] + [[]] * 7
    concrete = [""] * 10 + [grad_mask, "False", ""]
    return ev("cpu_op", "aten::_scaled_dot_product_efficient_attention_backward", t0, 30,
              **{"Input Dims": dims, "Concrete Inputs": concrete})


def test_a_learned_bias_is_named_where_the_backward_shows_its_gradient_and_not_claimed_otherwise():
    args = sdpa_args(SEED, SEED, mask=(2, 8, 256, 256), mask_type="c10::BFloat16")
    events = call(0, EFFICIENT, (), args)
    _, g = group_of(trace_of(*events, backward(500, (2, 8, 256, 256), "[True, True, True, True]")))
    assert "bias_grad" in g["reasons"] and "learned_bias" in g["fixes"]
    _, g = group_of(trace_of(*events, backward(500, (2, 8, 256, 256), "")))  # the mask not recorded
    assert "bias_grad" not in g["reasons"] and "mask" in g["reasons"]
    assert bias_grad_of(from_dict(trace_of(*events, backward(500, (2, 8, 256, 256), ""))).events) == "unknown"
    assert bias_grad_of(from_dict(trace_of(*events)).events) is None


def mha(t0, then="aten::linear", first="aten::bmm"):
    """F.multi_head_attention_forward's need_weights=True path: in_proj, bmm, softmax, bmm,
    the output's transpose, out_proj; each op with one kernel."""
    ops = [("aten::linear", 20), (first, 10), ("aten::softmax", 5), ("aten::bmm", 10), ("aten::transpose", 1)]
    if then:
        ops.append((then, 20))
    out, t = [], t0
    for i, (name, dur) in enumerate(ops):
        out += [ev("cpu_op", name, t, dur), launch(t + 0.5, t0 + i + 1), kernel(f"k{i}", t + 30, 3, t0 + i + 1)]
        t += dur + 1
    return out


def native_mha(need_weights, inner="aten::bmm"):
    """nn.MultiheadAttention's fast path: aten::_native_multi_head_attention and one op inside."""
    concrete = [""] * 10 + [need_weights, "True", ""]
    return [ev("cpu_op", "aten::_native_multi_head_attention", 0, 100, **{"Concrete Inputs": concrete}),
            ev("cpu_op", inner, 10, 20), launch(11, 1), kernel("gemm", 40, 30, 1)]


def test_the_fast_path_computing_its_weights_is_one_finding_not_hand_written_attention():
    """Native MHA's need_weights path as the CPU build records it: bmm, _softmax, bmm inside the op."""
    concrete = [""] * 10 + ["True", "True", ""]
    events = [ev("cpu_op", "aten::_native_multi_head_attention", 0, 200, **{"Concrete Inputs": concrete})]
    for i, name in enumerate(("aten::bmm", "aten::_softmax", "aten::bmm")):
        events += [ev("cpu_op", name, 10 + 40 * i, 20), launch(11 + 40 * i, i + 1), kernel(f"k{i}", 150 + 40 * i, 9, i + 1)]
    rules = [f.rule for f in explain(trace_of(*events)).findings]
    assert rules.count("mha_need_weights") == 1 and "hand_written_attention" not in rules


@pytest.mark.parametrize(("need_weights", "inner", "told"), [("True", "aten::bmm", True), ("False", FLASH, False),
                                                              ("", "aten::bmm", True), ("", FLASH, False)])
def test_the_fast_path_with_need_weights_is_told_too(need_weights, inner, told):
    found = explain(trace_of(*native_mha(need_weights, inner)))
    rules = {f.rule: f for f in found.findings}
    assert ("mha_need_weights" in rules) is told
    if told:
        assert isinstance(rules["mha_need_weights"].fact, NativeWeights) and rules["mha_need_weights"].time_us == 30
        assert rules["mha_need_weights"].remedy == fix("need_weights_false")


def test_multihead_attention_with_need_weights_is_told_to_pass_need_weights_false():
    found = explain(trace_of(*mha(0)))
    f = next(f for f in found.findings if f.rule == "mha_need_weights")
    assert f.fact.need_weights and f.remedy.startswith(fix("need_weights_false"))
    found = explain(trace_of(*mha(0, then=None, first="aten::matmul")))  # q @ k.T written by hand
    assert "hand_written_attention" in {f.rule for f in found.findings}


@pytest.fixture
def table(monkeypatch, tmp_path):
    conds = [condition("seed", "cudnn"), condition("pinned_efficient", "efficient", pinned="efficient"),
             condition("bool_mask", "efficient", no=("cudnn", "flash"), mask="bool_padding"),
             condition("dropout", "flash", no=("cudnn",), dropout=0.1),
             condition("float32", "efficient", no=("cudnn", "flash"), dtype="float32") | {"fix": "seed"}]
    path = tmp_path / "asked.json"
    path.write_text(json.dumps(asked_table.document([asked_table.compact(eligibility_results(conds), "h200")])))
    monkeypatch.setattr(asked_table, "FILE", path)


def test_the_table_names_a_pin_beside_the_rest_where_pytorch_picks_another_backend_unpinned(table):
    _, g = group_of(one(EFFICIENT, sdpa_args(SEED, SEED)))
    assert g["source"] == "table" and g["asked"]["condition"] == "seed"
    assert "pinned" in g["reasons"] and "not_first" not in g["reasons"] and g["fixes"] == ["check_pin"]
    assert "2.11.0" in g["asked"]["by"] and "NVIDIA H200" in g["asked"]["by"] and "2026-12-04" in g["asked"]["by"]


def test_the_table_gives_cudnns_reason_beside_flashs(table):
    _, g = group_of(one(EFFICIENT, sdpa_args(SEED, SEED, mask=(2, 1, 256, 256), mask_type="bool")))
    assert g["asked"]["condition"] == "bool_mask" and set(g["asked"]["said"]) == {"cudnn", "flash"}
    assert "pinned" not in g["reasons"] and "mask" in g["reasons"]


@pytest.mark.parametrize(("mask", "cid"), [((2, 1, 1, 256), "bool_padding_mask"), ((256, 256), "causal_mask")])
def test_a_bool_masks_shape_tells_padding_from_a_causal_triangle(monkeypatch, tmp_path, mask, cid):
    conds = [condition("causal_mask", "efficient", no=("cudnn", "flash"), mask="causal_materialised"),
             condition("bool_padding_mask", "efficient", no=("cudnn", "flash"), mask="bool_padding")]
    path = tmp_path / "asked.json"
    path.write_text(json.dumps(asked_table.document([asked_table.compact(eligibility_results(conds), "h200")])))
    monkeypatch.setattr(asked_table, "FILE", path)
    _, g = group_of(one(EFFICIENT, sdpa_args(SEED, SEED, mask=mask, mask_type="bool")))
    assert g["asked"]["condition"] == cid


def test_the_table_answers_what_the_rules_cannot_see(table):
    _, g = group_of(one(FLASH, sdpa_args(SEED, SEED, dropout="0.1")))
    assert g["asked"]["condition"] == "dropout" and list(g["asked"]["said"]) == ["cudnn"]
    assert "not_first" not in g["reasons"]


def test_the_table_names_the_fix_it_measured(table):
    _, g = group_of(one(EFFICIENT, sdpa_args(SEED, SEED, dtype="float")))
    assert g["asked"]["condition"] == "float32" and g["asked"]["fix"] == {"condition": "seed", "ran": "cudnn"}
    assert "dtype" in g["reasons"] and g["fixes"][0] == "low_precision"


def test_without_a_matching_condition_the_rule_answers_and_says_so(table):
    _, g = group_of(one(MATH, sdpa_args(SEED, SEED, dtype="double")))
    assert g["source"] == "rule" and g["asked"] is None and "dtype" in g["reasons"]
