"""Issue 53, items 1 and 2: the doctor's reasons come from the trace's own inputs and GPU. Each
test edits a committed trace as a user's trace of that condition would read (its
deviceProperties, its recorded SDPA inputs) and states the verdict expected before the doctor
reads it: a recorded answer only for inputs equal in what PyTorch's checks read on the same
compute capability, never another generation's table, never "a pin" where the recorded inputs
fail a check."""
import copy
import gzip
import json

import pytest
from madeup import contiguous

from report.doctor.explain import explain, report
from report.doctor.rules import asked_table
from report.paths import ROOT

H100 = ROOT / "docs" / "generated" / "h100-80gb-hbm3" / "traces"
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
SDPA = "aten::scaled_dot_product_attention"
# deviceProperties of the GPUs the issue names (compute capability and SM count from NVIDIA's data sheets)
GPUS = {"v100": ("Tesla V100-SXM2-16GB", 7, 0, 80), "2080ti": ("NVIDIA GeForce RTX 2080 Ti", 7, 5, 68),
        "4090": ("NVIDIA GeForce RTX 4090", 8, 9, 128)}


def load(path):
    return json.loads(gzip.decompress(path.read_bytes()))


def on_gpu(trace, gpu):
    """The trace as recorded on another GPU: its deviceProperties' name, compute capability, SMs."""
    out = copy.deepcopy(trace)
    name, major, minor, sms = GPUS[gpu]
    for props in out["deviceProperties"]:
        props.update(name=name, computeMajor=major, computeMinor=minor, numSms=sms)
    return out


def sdpa_events(trace):
    return [e for e in trace["traceEvents"] if e.get("name") == SDPA]


def with_dtype(trace, kineto_dtype):
    """Every SDPA call's q, k, v in another dtype (Kineto's name for it)."""
    out = copy.deepcopy(trace)
    for e in sdpa_events(out):
        e["args"]["Input type"][:3] = [kineto_dtype] * 3
    return out


def groups(trace):
    found = explain(trace)
    return found, [g for g in found["attention"]["calls"] if g["shapes"]]


def test_the_committed_table_is_one_h100_run():
    """What the expectations below assume: one recorded table, of compute capability 9.0."""
    runs = asked_table.load()
    assert [r["versions"]["compute_capability"] for r in runs] == ["9.0"]


# ------------------------------------------------------------------ the GPU generation (item 2)

@pytest.mark.parametrize("gpu", ["v100", "2080ti"])
def test_before_sm80_efficient_runs_because_flash_and_cudnn_cannot(gpu):
    # expected: efficient ran on float16 inputs; flash comes first in the default order and the
    # hardware check stops it (sm80 and on), cuDNN too; no pin, no H100 answer
    trace = with_dtype(on_gpu(load(H100 / "efficient.json.gz"), gpu), "c10::Half")
    _, (g,) = groups(trace)
    assert g["backend"] == "efficient"
    assert g["reasons"] == ["gpu_generation"] and g["source"] == "rule" and g["asked"] is None
    assert g["why"].other_gpus == ("9.0",) and g["why"].firsts == ("flash",)
    assert g["fixes"] == []


def test_before_sm80_bfloat16_falls_to_math_for_its_dtype_not_a_pin():
    # expected: math ran on bfloat16; flash stopped by the hardware check, efficient by its dtype
    # check (before sm80 it takes float16 and float32); the fix is float16, not bfloat16
    trace = on_gpu(load(H100 / "math.json.gz"), "2080ti")
    found, (g,) = groups(trace)
    assert g["backend"] == "math"
    assert g["reasons"] == ["gpu_generation", "dtype"] and g["fixes"] == ["float16"]
    assert [r.backends for r in g["why"].reasons] == [("flash",), ("efficient",)]
    assert "pinned" not in g["reasons"] and "not_first" not in g["reasons"]


def test_on_ada_flash_runs_first_and_the_h100s_answer_is_not_used():
    # expected: the H100 trace's flash calls (bfloat16, causal, equal to the H100 table's
    # "causal" condition, where the H100 ran cuDNN) read on an RTX 4090: flash is first in the
    # default order on 8.9, nothing to explain, no pin, no table
    h100 = load(H100 / "flash.json.gz")
    _, (g,) = groups(h100)
    assert g["source"] == "table" and g["asked"]["ran"] == "cudnn" and "pinned" in g["reasons"]  # on its own GPU
    _, (g,) = groups(on_gpu(h100, "4090"))
    assert g["backend"] == "flash" and g["reasons"] == [] and g["asked"] is None
    assert g["why"].firsts == ("flash",) and g["why"].first == "flash"


def test_on_ada_efficient_where_flash_passes_every_check_names_a_pin_beside_a_build_without_flash():
    # expected: no input check stops flash on 8.9, so what kept it out is a pin, a build without
    # flash (Windows wheels) or a check the trace cannot show: not_first, fix check_pin
    _, (g,) = groups(on_gpu(load(H100 / "efficient.json.gz"), "4090"))
    assert g["reasons"] == ["not_first"] and g["fixes"] == ["check_pin"] and g["asked"] is None
    (r,) = g["why"].reasons
    assert r.backends == ("flash",) and r.values["assumed"] == "default"


def test_a_trace_without_device_properties_gets_no_table_and_no_order_assumed():
    # expected: flash ran; with no GPU named cuDNN may come first (9.x, 10.x) or not: neither a
    # pin nor a recorded answer
    trace = load(H100 / "flash.json.gz")
    trace["deviceProperties"] = []
    _, (g,) = groups(trace)
    assert g["asked"] is None and g["reasons"] == [] and g["why"].firsts == ("cudnn", "flash")


# ------------------------------------------------------------------ reasons from the call's own inputs (item 1)

def test_a_left_padded_decode_is_told_by_its_mask_not_a_pin():
    """transformers' Llama generating with left padding: each decode call gets a bool padding
    mask [batch, 1, 1, keys] and K/V repeated to the query's heads (no enable_gqa with a mask)."""
    trace = load(CORPUS / "generate.json.gz")
    for e in sdpa_events(trace):
        a = e["args"]
        q, k = a["Input Dims"][0], a["Input Dims"][1]
        if q[2] != 1:
            continue  # the prefill
        kv = [k[0], q[1], k[2], k[3]]
        a["Input Dims"][1:4] = [kv, list(kv), [q[0], 1, 1, k[2]]]
        a["Input Strides"][1:4] = [contiguous(kv), contiguous(kv), contiguous([q[0], 1, 1, k[2]])]
        a["Input type"][3] = "bool"
        a["Concrete Inputs"][7] = "False"
    # expected: the decode calls ran cuDNN, first in the order the H100's table measured on 9.0
    # (the trace is an H200's: 9.0); its bool_padding_mask condition reads as these inputs do
    # (a bool mask that broadcasts, equal heads, no causal flag, bfloat16, head dim 64): its answer
    # is quoted; not the lower-right decode condition, not a pin
    found, gs = groups(trace)
    decode = [g for g in gs if g["parsed"].query[2] == 1]
    assert len(decode) == 7 and all(g["backend"] == "cudnn" for g in decode)
    for g in decode:
        assert g["source"] == "table" and g["asked"]["condition"] == "bool_padding_mask"
        assert g["asked"]["ran"] == "cudnn" and not {"pinned", "not_first"} & set(g["reasons"])
        assert g["asked"]["fix"] is None  # one query row: padding or causal, the shape cannot tell
    assert "a pin" not in report(found)


def test_a_head_dim_the_table_lacks_is_told_by_its_check_not_by_anothers_words():
    """A head dim of 320 (the corpus' 512 trace, edited): over flash's and cuDNN's 256."""
    trace = load(CORPUS / "head_dim_512.json.gz")
    for e in sdpa_events(trace):
        a = e["args"]
        for i in range(3):
            a["Input Dims"][i][3] = 320
            a["Input Strides"][i] = contiguous(a["Input Dims"][i])
    # expected: efficient ran; no recorded condition has head dim 320, so no answer is quoted; the
    # check that stops flash and cuDNN is named, with head_dim_512 as the recorded condition that
    # fails the same check (flash and cuDNN said no there), and "512" is nowhere in the reason
    found, (g,) = groups(trace)
    assert g["backend"] == "efficient" and g["source"] == "rule" and g["asked"] is None
    assert g["reasons"] == ["head_dim_too_large"]
    (r,) = g["why"].speed
    assert r.values["head_dim"] == 320 and r.values["table"] == ("head_dim_512", ("cudnn", "flash"), ())
    row = next(r for r in found.attention if r.direction == "call")
    assert "320" in row.why and "512" not in row.why.replace("head_dim_512", "")
