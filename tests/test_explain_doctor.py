"""--explain as a diagnosis (issue 31): SDPA's preparation told apart from its backends,
reasons read off the recorded inputs, Kineto's own work kept out of the host wait, the
remedies' rules, the first screen, the JSON result; on made-up traces and the corpus."""
import json
import re
from pathlib import Path

import pytest
from expected_verdicts import facts
from madeup import call, ev, kernel, launch, sdpa_args, trace_of

from report.doctor.explain import TraceError, explain, explain_json, load_trace, read_trace, report
from report.doctor.model.result_types import VERSION
from report.doctor.output.text_report import SCREEN, WIDTH, first_screen
from report.doctor.rules.remedies import LAUNCH_BOUND_KERNEL_US
from report.doctor.shown.numbers import MAX_WHOLE_SIG, sig
from report.text.format import fmt_sig
from report.trace.reading import kineto_layout, msgspec_decoder
from report.trace.reading import stream as reading_stream

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
SDPA = "aten::scaled_dot_product_attention"


def test_a_bool_mask_converted_before_the_backend_is_sdpas_preparation_not_math():
    args = sdpa_args((8, 16, 512, 64), (8, 16, 512, 64), mask=(8, 1, 512, 512), mask_type="bool")
    found = explain(trace_of(*call(0, "aten::_scaled_dot_product_efficient_attention",
                                   [("aten::where", "where_kernel"), ("aten::fill_", "fill_kernel")], args)))
    att = found["attention"]
    backends = {r["backend"]: r for r in att["backends"]}
    assert set(backends) == {"efficient", "preparation"} and not att["math_fallback"]
    assert backends["preparation"]["causes"] == {"bool_mask": 5.0, "other": 5.0}
    assert "math" not in {r.backend for r in found.attention}
    group = att["calls"][0]
    assert group["backend"] == "efficient" and group["parsed"].mask == (8, 1, 512, 512)
    assert "mask" in group["reasons"] and group["why"].speed[0].check == "check_for_attn_mask"
    rules = {f.rule: f for f in found.findings}
    assert "bool_mask" in rules and "nested jagged" in rules["bool_mask"].remedy  # a padding mask per sequence
    assert "math backend" not in report(found)


def test_a_square_bool_mask_points_at_is_causal():
    args = sdpa_args((1, 16, 256, 64), (1, 16, 256, 64), mask=(256, 256), mask_type="bool")
    found = explain(trace_of(*call(0, "aten::_scaled_dot_product_efficient_attention",
                                   [("aten::where", "where_kernel")], args)))
    remedy = next(f for f in found.findings if f.rule == "bool_mask").remedy
    assert "is_causal=True" in remedy and "create_block_mask" in remedy  # the shape does not tell the pattern


def test_a_head_dim_of_100_is_padded_for_flash_and_named():
    args = sdpa_args((4, 8, 256, 100), (4, 8, 256, 100))
    found = explain(trace_of(*call(0, "aten::_scaled_dot_product_flash_attention",
                                   [("aten::constant_pad_nd", "copy_kernel")], args)))
    prep = next(r for r in found["attention"]["backends"] if r["backend"] == "preparation")
    assert list(prep["causes"]) == ["head_dim"]
    head = next(f for f in found.findings if f.rule == "head_dim")
    assert head.time_us == 5.0 and "104" in head.evidence and "96 or 104" in head.remedy


def test_math_only_where_its_op_ran_and_float64_says_which_checks_failed():
    args = sdpa_args((2, 4, 128, 64), (2, 4, 128, 64), dtype="double")
    found = explain(trace_of(*call(0, "aten::_scaled_dot_product_attention_math", (), args,
                                   backend_kernel="gemm_kernel")))
    assert [r["backend"] for r in found["attention"]["backends"]] == ["math"]
    why = found["attention"]["calls"][0]["why"]
    dtype = next(r for r in why.speed if r.key == "dtype")
    assert "check_dtypes_flash_attention" in dtype.check and dtype.values["dtype"] == "float64"
    fallback = next(f for f in found.findings if f.rule == "math_fallback")
    assert "bfloat16" in fallback.remedy


def test_gqa_without_enable_gqa_names_the_head_check():
    args = sdpa_args((2, 32, 128, 64), (2, 8, 128, 64), dtype="float")
    found = explain(trace_of(*call(0, "aten::_scaled_dot_product_attention_math", (), args)))
    assert [r.check for r in found["attention"]["calls"][0]["why"].speed if r.key == "gqa_heads"] == [
        "check_batch_size_and_num_heads_dense"]


def test_without_record_shapes_the_first_screen_says_how_to_record_them():
    found = explain(trace_of(*call(0, "aten::_scaled_dot_product_flash_attention")))
    assert found.attention_note and "record_shapes=True" in found.attention_note
    assert any("record_shapes=True" in line for line in first_screen(found))


def test_nested_jagged_flex_and_inductor_kernels_are_named():
    nested = [ev("cpu_op", "aten::_flash_attention_forward", 0, 20), launch(1, 1), kernel("flash_fwd_kernel", 30, 9, 1)]
    flex = [launch(100, 2), kernel("triton_tem_fused_flex_attention_0", 130, 9, 2)]
    fused = [launch(200, 3), kernel("triton_poi_fused__scaled_dot_product_cudnn_attention_clone_0", 230, 9, 3)]
    found = explain(trace_of(*nested, *flex, *fused))
    assert {r["backend"] for r in found["attention"]["backends"]} == {"flash_nested", "flex", "inductor_fused"}


def step_trace(n_kernels, gap=20.0, kernel_us=2.0, extra=()):
    """One ProfilerStep of n short kernels, each launched after the last one ended."""
    events, t = [], 0.0
    for i in range(n_kernels):
        events += [launch(t, i + 1), kernel("small_kernel", t + 5, kernel_us, i + 1)]
        t += gap
    events.append(ev("user_annotation", "ProfilerStep#1", -1, t + 10))
    return trace_of(*events, *extra)


def test_a_launch_bound_step_gets_cuda_graphs_and_decoding_gets_a_static_cache():
    found = explain(step_trace(300))
    assert found.pace.verdict == "CPU-bound" and found.pace.paced_by == "host"
    launch_bound = next(f for f in found.findings if f.rule == "launch_bound")
    assert "reduce-overhead" in launch_bound.remedy and "static" not in launch_bound.remedy
    decode = call(10_000, "aten::_scaled_dot_product_flash_attention", (),
                  sdpa_args((1, 16, 1, 64), (1, 16, 300, 64)), corr0=5000)
    found = explain(step_trace(300, extra=decode))
    assert "static" in next(f for f in found.findings if f.rule == "launch_bound").remedy


def test_no_remedy_without_its_evidence():
    found = explain(step_trace(100, gap=2.5, kernel_us=2.4))  # the GPU is busy: no launch-bound rule
    # only the pace's own finding: the GPU's work, its longest kernel named (issue 38, item 4)
    assert found.pace.verdict == "GPU-bound" and [f.rule for f in found.findings] == ["pace"]
    assert found.findings[0].fact.paced_by == "gpu" and found.findings[0].fact.top_share == pytest.approx(1.0)


def test_an_optimizer_loop_without_foreach():
    ops = [ev("user_annotation", "Optimizer.step#AdamW.step", 0, 150 * 20)]
    found = explain(step_trace(150, extra=ops))
    assert any(f.rule == "optimizer_foreach" and "foreach=True" in f.remedy for f in found.findings)
    ops.append(ev("cpu_op", "aten::_foreach_add_", 10, 5))
    assert not any(f.rule == "optimizer_foreach" for f in explain(step_trace(150, extra=ops)).findings)


def test_kinetos_own_work_is_the_profilers_not_the_hosts():
    # the GPU is busy but for one gap, filled on the host by Kineto's Activity Buffer Request
    events, t = [], 0.0
    for i in range(50):
        if i == 25:
            events.append(ev("overhead", "Activity Buffer Request", t, 400.0))
            t += 400.0
        events += [launch(t, i + 1), kernel("k", t + 5, 20.0, i + 1)]
        t += 20.0
    events.append(ev("user_annotation", "ProfilerStep#1", -1, t + 10))
    found = explain(trace_of(*events))
    assert found.pace.profiler_us == pytest.approx(400.0)
    assert found.pace.verdict != "CPU-bound"
    step = next(r for r in found["ranges"] if r["name"] == "ProfilerStep#*")
    assert step["verdict"] == found.pace.verdict  # one verdict for the scope


def test_the_three_readers_keep_sdpas_recorded_inputs_alike(tmp_path, monkeypatch):
    args = sdpa_args((8, 16, 512, 64), (8, 16, 512, 64), mask=(8, 1, 512, 512), mask_type="bool")
    events = call(0, "aten::_scaled_dot_product_efficient_attention", [("aten::where", "w")], args)
    events.append(ev("overhead", "Activity Buffer Request", 500, 10))
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace_of(*events)), encoding="utf-8")
    kept = lambda t: [(e.cat, e.name, e.args) for e in t.events if e.cat in ("cpu_op", "overhead")]  # noqa: E731
    by_json = kept(reading_stream.from_dict(load_trace(path)))
    assert by_json[0][2]["Input Dims"][3] == [8, 1, 512, 512] and ("overhead", "Activity Buffer Request", None) in by_json
    assert kept(read_trace(path)) == by_json  # msgspec where installed
    monkeypatch.setattr(reading_stream, "FAST_DECODER", False)
    assert kept(read_trace(path)) == by_json
    # Kineto's layout read by its pattern (a batch of a large file): the same
    by_pattern = reading_stream.Trace()
    assert kineto_layout.read(", ".join(json.dumps(e) for e in events), by_pattern)
    assert kept(by_pattern) == by_json
    if msgspec_decoder.AVAILABLE:  # and by msgspec
        by_msgspec = reading_stream.Trace()
        by_msgspec.add_structs(msgspec_decoder.events(", ".join(json.dumps(e) for e in events)))
        assert kept(by_msgspec) == by_json


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.json.gz")), ids=lambda p: p.name)
def test_every_corpus_trace_gets_a_first_screen_a_pace_and_a_json_result(path):
    found = explain(read_trace(path))
    text = report(found)
    screen = text.split("\n\n", 1)[0].splitlines()
    assert 3 <= len(screen) <= SCREEN and max(map(len, screen)) <= WIDTH
    assert screen[0].startswith("Paced by ") and found.pace.verdict in screen[0]
    doc = json.loads(explain_json(found))
    assert doc["schema"] == "sdpa-trace-doctor" and doc["version"] == VERSION
    assert doc["pace"]["verdict"] == found.pace.verdict
    assert [f["rule"] for f in doc["findings"]] == [f.rule for f in found.findings]
    assert "fell back to math" not in text  # no corpus trace ran _scaled_dot_product_attention_math


def test_the_independent_reading_agrees_on_preparation_and_inputs():
    args = sdpa_args((4, 8, 256, 100), (4, 8, 256, 100), mask=(256, 256), mask_type="bool")
    trace = trace_of(*call(0, "aten::_scaled_dot_product_efficient_attention",
                           [("aten::constant_pad_nd", "copy_kernel"), ("aten::where", "where_kernel")], args))
    expected, found = facts(trace), explain(trace)
    prep = next(r for r in found["attention"]["backends"] if r["backend"] == "preparation")
    assert expected["preparation_kernels"] == prep["activities"] == 2
    assert expected["sdpa_inputs"] == [["bfloat16", 100, "bool", False]]
    x = found["attention"]["calls"][0]["parsed"]
    assert [x.dtype, x.head_dim, x.mask_dtype, x.is_causal] == expected["sdpa_inputs"][0]
    assert expected["backends"] == sorted(r["backend"] for r in found["attention"]["backends"])


@pytest.mark.parametrize("path", sorted(CORPUS.rglob("*.json.gz")), ids=lambda p: p.name)
def test_one_verdict_per_scope_no_stream_verdict_beside_the_ranges(path):
    """The text gives a verdict to ranges alone: a stream's own span never gets a second one
    (HTA's triton trace: a GPU-bound stream inside CPU-bound steps)."""
    try:
        found = explain(read_trace(path))
    except Exception:  # noqa: BLE001 - MTIA and CPU-only traces have no reading
        return
    text = report(found)
    streams = text[text.index("\nStreams ("):text.index("\nRanges (")]
    assert not re.search(r"(CPU|GPU)-bound|stalled", streams)
    verdicts = re.findall(r"^  verdict: ([\w-]+)", text, re.M)
    assert len(verdicts) == len(found["ranges"])


def test_the_first_of_three_profiler_steps_is_left_out_and_the_independent_reading_agrees():
    """The first step's slow start (the profiler's) decides nothing: the other two are GPU-bound."""
    events, corr, t = [], 0, 0.0
    for step in range(3):
        start = t
        t += 500.0 if step == 0 else 0.0  # the first step starts late on the host
        for _ in range(100):
            corr += 1
            events += [launch(t, corr), kernel("k", t + 5, 2.49, corr)]
            t += 2.5
        t += 3
        events.append(ev("user_annotation", f"ProfilerStep#{step + 1}", start - 1, t - start))
        t += 20
    trace = trace_of(*events)
    found = explain(trace)
    step = next(r for r in found["ranges"] if r["name"] == "ProfilerStep#*")
    assert step["ranges"] == 2 and step["first_left_out"] and step["verdict"] == "GPU-bound"
    assert facts(trace)["verdicts"]["ProfilerStep#*"] == "GPU-bound"


def test_the_dtype_checks_follow_the_gpus_compute_capability():
    from report.doctor.model.sdpa_inputs import sdpa_inputs
    from report.doctor.rules.why import reasons

    x = sdpa_inputs(sdpa_args((2, 4, 128, 64), (2, 4, 128, 64)))  # bfloat16
    assert [r.key for r in reasons(x, "math", (9, 0))] == ["not_first"]  # nothing the inputs show stops flash
    old = [(r.key, r.backends) for r in reasons(x, "math", (7, 5))]  # flash, efficient, math, cudnn before sm90
    # before sm80 the hardware check stops flash (and cuDNN) whatever the dtype; efficient takes no bfloat16
    assert old == [("gpu_generation", ("flash",)), ("dtype", ("efficient",))]


def test_the_independent_reading_names_nested_jagged_calls_too():
    nested = [ev("cpu_op", "aten::_flash_attention_forward", 0, 20), launch(1, 1), kernel("flash_fwd_kernel", 30, 9, 1)]
    dense = call(100, "aten::_scaled_dot_product_flash_attention", corr0=2)
    dense.insert(2, ev("cpu_op", "aten::_flash_attention_forward", 101, 18))  # the dense path's inner op
    trace = trace_of(*nested, *dense)
    assert facts(trace)["backends"] == ["flash", "flash_nested"]
    assert sorted(r["backend"] for r in explain(trace)["attention"]["backends"]) == ["flash", "flash_nested"]


def test_a_bias_through_the_backward_is_named_with_flex_as_its_remedy():
    bias = {"Input Dims": [[4, 16, 512, 64]] * 4 + [[1, 16, 512, 512]] + [[], [], [], [], [], [], [], []]}
    events = call(0, "aten::_scaled_dot_product_efficient_attention",
                  args=sdpa_args((4, 16, 512, 64), (4, 16, 512, 64), dtype="float", mask=(1, 16, 512, 512),
                                 mask_type="float"))
    events += [ev("cpu_op", "aten::_scaled_dot_product_efficient_attention_backward", 500, 50, **bias),
               launch(501, 99), kernel("fmha_bwd", 560, 80, 99)]
    found = explain(trace_of(*events))
    rule = next(f for f in found.findings if f.rule == "bias_in_training")
    assert "score_mod" in rule.remedy and rule.time_us == 120.0
    events[-3] = ev("cpu_op", "aten::_scaled_dot_product_efficient_attention_backward", 500, 50)  # no shapes
    assert not any(f.rule == "bias_in_training" for f in explain(trace_of(*events)).findings)


def test_the_json_schema_is_documented_field_by_field():
    import dataclasses

    from report.doctor.model import result_types

    doc = result_types.__doc__
    for cls in (result_types.Pace, result_types.AttentionRow, result_types.Finding,
                result_types.GraphReplay, result_types.CommStream):
        for f in dataclasses.fields(cls):
            assert re.search(rf"\b{f.name}\b", doc), f"{cls.__name__}.{f.name} is not documented"
    result = explain(read_trace(CORPUS / "sdpa_train.json.gz"))
    assert set(json.loads(explain_json(result))) == {"schema", "version", "pace", "attention", "attention_note",
                                                     "findings", "graphs", "communication", "detail", "screen"}


def test_with_stack_is_named_in_the_evidence_and_a_queueing_gpu_gets_no_launch_bound_rule():
    trace = step_trace(300)
    trace["traceEvents"].append({"ph": "X", "cat": "python_function", "name": "model.py(10): forward", "pid": 1,
                                 "tid": 1, "ts": 0, "dur": 5})
    assert "with_stack=True" in explain(trace).pace.evidence
    assert "with_stack" not in explain(step_trace(300)).pace.evidence
    late = step_trace(300)  # the same launches, each kernel starting long after its launch call
    for e in late["traceEvents"]:
        if e["cat"] == "kernel":
            e["ts"] += 60.0
    found = explain(late)
    assert found.pace.launch_delay_us > 50 and not any(f.rule == "launch_bound" for f in found.findings)


def test_a_mask_in_training_is_one_finding_and_a_head_dim_over_256_says_flash_cannot_run():
    # recorded on the H200: a learned bf16 bias trained through efficient attention, and head dim 512
    bias = explain(read_trace(CORPUS / "learned_bias_train.json.gz"))
    rules = [f.rule for f in bias.findings]
    assert "bias_in_training" in rules and "efficient_not_flash" not in rules  # the same time, counted once
    wide = explain(read_trace(CORPUS / "head_dim_512.json.gz"))
    slow = next(f for f in wide.findings if f.rule == "efficient_not_flash")
    assert "check_head_dim_size_flash" in slow.evidence and "where flash could run" not in slow.title


def test_long_waits_for_the_host_are_its_own_work_not_many_short_kernels():
    """The launch-bound rule (CUDA graphs) holds where the GPU's waits for the host are an op's
    launch path each (median at most HOST_GAP_US); where they are longer, the host does other
    work between launches, and the host-work rule names the longest wait instead."""
    short = explain(step_trace(300))  # kernels 2 µs, a launch every 20 µs: waits of 18 µs
    assert [f.rule for f in short.findings] == ["launch_bound"]
    long = explain(step_trace(300, gap=200.0))  # the same kernels, a launch every 200 µs: waits of 198 µs
    assert long.pace.verdict == "CPU-bound" and long.pace.median_kernel_us < LAUNCH_BOUND_KERNEL_US
    work = [f for f in long.findings if f.rule == "host_work"]
    assert [f.rule for f in long.findings] == ["host_work"]
    assert work[0].time_us == pytest.approx(299 * 198.0)  # every wait between two launches, all over HOST_GAP_US
    # HTA's DDP step: a median kernel of 16 µs, but the median wait is 106 µs and the longest 16 ms
    nccl = explain(read_trace(CORPUS / "hta" / "a100_nccl.json.gz"))
    assert [f.rule for f in nccl.findings] == ["host_work", "communication"]
    assert nccl.pace.median_kernel_us < LAUNCH_BOUND_KERNEL_US
    comm = nccl.findings[1].fact  # its all-reduce: a quarter of the GPU's busy time, compute beside 15 % of it
    assert comm.collectives[0] == "all_reduce" and comm.ddp and 0.2 < comm.share < 0.3 and comm.overlap_share < 0.2
    # the corpus's transformers traces that are launch-bound stay so
    for name in ("decode", "generate", "sdpa_infer", "sdpa_train", "stacks_train"):
        assert explain(read_trace(CORPUS / f"{name}.json.gz")).findings[0].rule == "launch_bound", name


@pytest.mark.parametrize("value", [172296.4, 163854.5, 46104.0, 4266.7, 999.96, 126.43, 16.16, 9.996, 2.0, 0.04,
                                   0.012345, 0.0, -2.3])
def test_the_first_screens_figures_follow_the_pages_precision_rule(value):
    assert sig(value) == fmt_sig(value, "en").replace("\u2212", "-")


SIG_NUMBER = re.compile(r"(?<![\w.#])(\d[\d,]*(?:\.\d+)?) µs")


def significant(text):
    digits = text.replace(",", "")
    whole, _, decimals = digits.partition(".")
    return len((whole + decimals).lstrip("0")) if decimals else len(whole.lstrip("0").rstrip("0"))


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.json.gz")) + sorted((CORPUS / "hta").glob("*.json.gz")),
                         ids=lambda p: p.name)
def test_every_first_screen_keeps_four_figures_at_most_and_ends_in_a_sentence(path):
    try:
        found = explain(read_trace(path))
    except TraceError:
        return  # no GPU activity: the error line, no first screen
    screen = first_screen(found)
    times = [m for line in screen for m in SIG_NUMBER.findall(line)]
    assert times and max(map(significant, times)) <= MAX_WHOLE_SIG, times
    assert screen[-1][0].isupper() or screen[-1].startswith("…")


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.json.gz")) + sorted((CORPUS / "hta").glob("*.json.gz")),
                         ids=lambda p: p.name)
def test_a_finding_on_the_first_screen_gives_its_whole_remedy(path):
    """What to change is never cut: a finding that fits on the first screen shows all of its
    remedy (decode's static-cache remedy took three lines and lost its end)."""
    try:
        found = explain(read_trace(path))
    except TraceError:
        return
    text = " ".join(line.strip() for line in first_screen(found))
    shown = [f for f in found.findings if f.title in text]
    for f in shown:
        assert " ".join(f"remedy: {f.remedy}".split()) in text, f.name
    assert all(line.endswith("…") or "…" not in line for line in first_screen(found) if "evidence" in line)
