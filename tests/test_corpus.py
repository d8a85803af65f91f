"""--explain on real traces: a Llama-style transformers model (random weights from a config)
recorded on an NVIDIA H200 by benchmarks/record_traces.py and cut down by
benchmarks/cut_trace.py (tests/fixtures/corpus/), and Holistic Trace Analysis' test traces
(A100, V100, MI250, NCCL, several streams, older Kineto, MTIA, CPU only;
tests/fixtures/corpus/hta/). The verdicts, GPU busy time, streams, launch delays and SDPA
backends are compared with tests/expected_verdicts.py, which derives them from the raw
events without report/doctor; each folder's expected.json holds what it derived, for the record.
"""
import json
import re

import pytest
from expected_verdicts import facts, read

from report.doctor.explain import MAX_RANGES, TraceError, explain, load_trace, read_trace, report
from report.doctor.model.result_types import QUEUE_US
from report.doctor.output.text_report import detail
from report.paths import ROOT
from report.trace.reading import stream as reading_stream

CORPUS = ROOT / "tests" / "fixtures" / "corpus"
TRACES = sorted(p.name.removesuffix(".json.gz") for p in CORPUS.glob("*.json.gz"))
HTA = CORPUS / "hta"  # Holistic Trace Analysis' test traces (NOTICE.md: source, licence, cuts)
HTA_TRACES = sorted(p.name.removesuffix(".json.gz") for p in HTA.glob("*.json.gz"))


@pytest.fixture(scope="module")
def found():
    return {name: explain(read_trace(CORPUS / f"{name}.json.gz")) for name in TRACES}


def rng(found, name):
    return next(r for r in found["ranges"] if r["name"] == name)


def test_the_corpus_has_every_recorded_case():
    """Every case the recorder's manifest says ran is in the corpus, and nothing else."""
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    assert TRACES == sorted(n for n, c in manifest["cases"].items() if c["status"] == "ok")
    assert {"cuda_graph", "decode", "eager_infer", "eager_train", "flex_infer", "sdpa_compiled", "sdpa_infer",
            "sdpa_train", "two_streams"} <= set(TRACES)


def test_expected_json_is_what_the_independent_computation_derives():
    derived = {name: facts(read(CORPUS / f"{name}.json.gz")) for name in TRACES}
    assert json.loads((CORPUS / "expected.json").read_text(encoding="utf-8")) == derived


@pytest.mark.parametrize("name", TRACES)
def test_verdicts_busy_time_streams_and_backends_agree_with_the_independent_ones(name, found):
    expected = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))[name]
    mine = found[name]
    assert {r["name"]: r["verdict"] for r in mine["ranges"] if r["span_us"] is not None} == expected["verdicts"]
    assert round(mine["busy_us"], 1) == pytest.approx(expected["busy_us"], abs=0.11)
    assert len(mine["streams"]) == expected["streams"]
    backends = sorted({b["backend"] for b in mine["attention"]["backends"]})
    assert backends == expected["backends"]
    hand = mine["attention"]["hand_written"]
    assert (hand["chains"] if hand else 0) == expected["softmax_outside_sdpa"]
    prep = next((b["activities"] for b in mine["attention"]["backends"] if b["backend"] == "preparation"), 0)
    assert prep == expected["preparation_kernels"]
    inputs = sorted(([g["parsed"].dtype, g["parsed"].head_dim, g["parsed"].mask_dtype, g["parsed"].is_causal]
                     for g in mine["attention"]["calls"] if g["parsed"]), key=str)
    assert sorted({tuple(i) for i in inputs}, key=str) == [tuple(x) for x in expected["sdpa_inputs"]]
    assert ("math" in backends) == any(b.backend == "math" for b in mine.attention)  # math only where it ran


@pytest.mark.parametrize("name", TRACES)
def test_the_streamed_reader_reads_what_json_reads(name, monkeypatch):
    path = CORPUS / f"{name}.json.gz"
    text = report(explain(load_trace(path)))
    assert report(explain(read_trace(path))) == text
    monkeypatch.setattr(reading_stream, "CHUNK", 1 << 14)  # many batches, cut between events
    assert report(explain(read_trace(path))) == text
    assert "-0.0" not in text


def test_eager_attention_is_recognised_as_hand_written(found):
    att = found["eager_infer"]["attention"]
    assert att["backends"] == [] and att["hand_written"]["chains"] == 16  # 8 layers, 2 steps
    assert 0.3 < att["hand_written"]["share"] < 1
    assert "hand-written attention: 16 matmul -> softmax -> matmul chains" in report(found["eager_infer"])


def test_sdpa_training_matches_each_backward_to_its_forward(found):
    att = found["sdpa_train"]["attention"]
    rows = {(b["backend"], b["direction"]): b for b in att["backends"]}
    assert rows[("cudnn", "forward")]["calls"] == rows[("cudnn", "backward")]["calls"] == 16
    assert att["backward_matched"] == {"cudnn": (16, 16)}
    assert rows[("cudnn", "backward")]["gpu_us"] > rows[("cudnn", "forward")]["gpu_us"]


def test_flex_attention_is_its_own_backend(found):
    rows = found["flex_infer"]["attention"]["backends"]
    assert [(b["backend"], b["direction"], b["calls"]) for b in rows] == [("flex", "forward", 16)]
    assert rows[0]["top_kernel"].startswith("triton_tem_fused_flex_attention")


def test_two_streams_are_read_per_stream_and_as_one_union(found):
    mine = found["two_streams"]
    assert len(mine["streams"]) == 2 and all(s["activities"] > 0 for s in mine["streams"])
    # large matmuls on one stream overlap the forward on the other: the streams' busy times
    # add up past the union, by the overlap the step shows
    assert mine["busy_us"] < mine["stream_busy_sum_us"]
    r = rng(mine, "ProfilerStep#*")
    assert r["overlap_us"] > 0
    assert "streams overlap for" in report(mine)
    assert rng(mine, "stream_b")["verdict"] == "GPU-bound"  # 4 matmuls queued back to back
    assert rng(mine, "stream_a")["streams"] == rng(mine, "stream_b")["streams"] == 1
    assert rng(mine, "ProfilerStep#*")["streams"] == 2
    # each waits for the host between steps, but its launches queue (median launch delays of
    # 474 µs and 2 ms): the GPU is behind the host, the GPU's pace
    assert [s["verdict"] for s in mine["streams"]] == ["GPU-bound", "GPU-bound"]
    assert all(s["launch_delay_us"] >= QUEUE_US and s["idle_us"]["host"] > 0.1 * s["span_us"] for s in mine["streams"])


def test_a_cuda_graph_replay_is_one_launch_for_all_its_kernels(found):
    mine = found["cuda_graph"]
    r = rng(mine, "graph_replay")
    # one cudaGraphLaunch per replay, its launch delay that of its first kernel only (the later
    # ones wait on the graph's earlier kernels, not on a queue)
    assert r["verdict"] == "GPU-bound" and r["launches_per_range"] == 1 and r["activities_per_range"] > 100
    derived = json.loads((CORPUS / "expected.json").read_text(encoding="utf-8"))["cuda_graph"]["launch_delay_us"]
    # the graph's first kernel starts before cudaGraphLaunch returns: it overlaps the call, no wait
    assert r["launch_delay_us"] == derived["0/7"] == 0
    assert {k["launched_by"] for k in mine["kernels"][:5]} == {"cudaGraphLaunch"}


def test_rows_are_one_launch_configuration_each(found):
    raw = [e for e in read(CORPUS / "eager_infer.json.gz")["traceEvents"] if e.get("cat") == "kernel"]
    configs = {}
    for e in raw:
        a = e["args"]
        key = (e["name"], str(a.get("grid")), str(a.get("block")), a.get("registers per thread"),
               a.get("shared memory"))
        configs[key] = configs.get(key, 0) + 1
    rows = [k for k in found["eager_infer"]["kernels"] if k["kind"] == "kernel"]
    assert len(rows) == len(configs)
    for k in rows:
        assert configs[(k["name"], str(k["grid"]), str(k["block"]), k["registers_per_thread"],
                        k["shared_memory"])] == k["calls"]
    # a kernel that runs in several configurations: each row says so and shows its own
    by_name = {}
    for k in rows:
        by_name.setdefault(k["name"], []).append(k)
    several = [ks for ks in by_name.values() if len(ks) > 1]
    assert several
    for ks in several:
        assert all(k["configs_of_name"] == len(ks) for k in ks)
        assert len({(str(k["grid"]), str(k["block"])) for k in ks}) == len(ks)


def test_a_synchronisation_that_opened_a_gap_is_named(found):
    text = report(found["sdpa_train"])
    assert re.search(r"the largest waits follow cudaStreamSynchronize in \.item\(\)", text)


def test_decode_tokens_are_one_range_name_with_many_ranges(found):
    r = rng(found["decode"], "decode_token")
    assert r["ranges"] == 8 and r["verdict"] == "CPU-bound"  # one step of 8 tokens: tiny kernels


# --- Holistic Trace Analysis' test traces ----------------------------------------------

def hta_expected():
    return json.loads((HTA / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def hta():
    found = {}
    for name in HTA_TRACES:
        try:
            found[name] = explain(read_trace(HTA / f"{name}.json.gz"))
        except TraceError as err:
            found[name] = err
    return found


def test_the_hta_traces_are_small_and_credited():
    assert HTA_TRACES == sorted(["a100_nccl", "a100_negative_queue", "cpu_only", "event_sync_streams", "mi250",
                                 "mtia", "multi_stream", "old_kineto", "triton", "v100_ddp"])
    assert sum((HTA / f"{n}.json.gz").stat().st_size for n in HTA_TRACES) < 1.5 * 2**20
    notice = (HTA / "NOTICE.md").read_text(encoding="utf-8")
    assert "MIT License" in notice and "Copyright (c) Meta Platforms, Inc. and affiliates." in notice
    assert all(f"`{n}.json.gz`" in notice for n in HTA_TRACES)


def test_the_hta_expected_json_is_what_the_independent_computation_derives():
    assert hta_expected() == {n: facts(read(HTA / f"{n}.json.gz")) for n in HTA_TRACES}


@pytest.mark.parametrize("name", HTA_TRACES)
def test_hta_traces_read_as_the_independent_computation_does(name, hta):
    expected, mine = hta_expected()[name], hta[name]
    if expected["activity"] != "gpu":  # the refusal names what the trace holds
        assert isinstance(mine, TraceError)
        assert ("from an MTIA accelerator" if expected["activity"] == "mtia" else "no GPU activity") in str(mine)
        return
    verdicts = {r["name"]: r["verdict"] for r in mine["ranges"] if r["span_us"] is not None}
    assert verdicts.items() <= expected["verdicts"].items()
    # the ranges --explain leaves out are past its MAX_RANGES longest; the rest it names
    assert len(expected["verdicts"]) - len(verdicts) <= mine["ranges_left_out"]
    assert len(mine["ranges"]) <= MAX_RANGES
    assert round(mine["busy_us"], 1) == pytest.approx(expected["busy_us"], abs=0.11)
    assert len(mine["streams"]) == expected["streams"]
    delays = {f"{s['device']}/{s['stream']}": s["launch_delay_us"] for s in mine["streams"]
              if s["launch_delay_us"] is not None}
    assert delays == pytest.approx(expected["launch_delay_us"], abs=0.051)


def test_launches_queued_far_ahead_of_the_gpu_are_not_called_cpu_bound(hta):
    """negative_queue (issue 21): kernels start a median 160 ms after their launch call, so
    the CPU is far ahead; the GPU idles with its work launched (it waits on NCCL, other
    streams): stalled, not waiting for the host."""
    mine = hta["a100_negative_queue"]
    main = next(s for s in mine["streams"] if s["stream"] == 7)
    assert main["launch_delay_us"] > 100_000 and main["verdict"] != "CPU-bound"
    assert main["idle_us"]["host"] == 0.0
    step = rng(mine, "ProfilerStep#*")
    assert step["launch_delay_us"] > 10_000 and step["verdict"] != "CPU-bound"
    assert f"activities start a median {step['launch_delay_us']:,.1f} µs after their launch call" in report(mine)


def test_nccl_kernels_count_as_communication(hta):
    mine = hta["a100_nccl"]
    assert detail(mine).startswith("GPU: 8 × NVIDIA A100-PG509-200 (compute capability 8.0, 108 SMs)\n")
    nccl = [k for k in mine["kernels"] if "nccl" in k["name"].lower()]
    assert nccl and all(k["work"] == "communication" for k in nccl)
    assert mine["kinds_us"]["communication"] > 0 and mine["kinds_us"]["compute"] > 0
    assert "communication" in report(mine)


def test_rocm_and_older_kineto_traces_are_read(hta):
    mi250 = hta["mi250"]
    assert mi250["schemas"] and set(mi250["schemas"].values()) == {"rocm"}
    assert {lim.warp_size for lim in mi250["limits"].values()} == {64}
    # ROCm 6.2's Kineto: HIP's calls under cuda_runtime; AMD's words, every other trace NVIDIA's
    assert mi250["platform"] == "rocm"
    assert detail(mi250).startswith("GPU: 4 × AMD Radeon Graphics (compute capability 9.0, 104 CUs, ROCm properties)\n")
    assert "hipMemcpyWithStream in a copy" in report(mi250) and not re.search(r"\bSMs?\b", report(mi250))
    assert {n for n, f in hta.items() if not isinstance(f, TraceError) and f["platform"] == "rocm"} == {"mi250"}
    old = hta["old_kineto"]  # "Kernel" and "Runtime": every kernel with its launch call
    assert old["activities"] == 4 and all(k["launched_by"] for k in old["kernels"])
    assert old["ranges"][0]["name"] == "(whole trace)"


def test_a_kernel_launched_through_the_driver_api_has_its_launch_call(hta):
    k = hta["triton"]["kernels"][0]
    assert "kernel, 1 call, 1.8 µs per call" in report(hta["triton"])
    assert k["short_name"].startswith("triton_") and k["launched_by"] == "cuLaunchKernel"
    assert k["small_grid"]  # 1 block on 108 SMs
