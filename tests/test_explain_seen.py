"""--explain sees what ran (issue 38, items 1-5), on made-up traces: a graph's replay with
attention inside, communication with and without compute beside it, a deep queue without
ranges, a launch-bound step under 200 launches, a GEMM's recorded shapes. Facts asserted."""
import pytest
from madeup import ev, kernel, launch, small_call, trace_of

from report.doctor.explain import explain
from report.doctor.rules.facts import ExposedComm, GemmAlignment, PaceOnly

FLASH = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 64, 4>>(Flash_fwd_params)"


def graph_steps(n=6, outside=0):
    """ProfilerSteps each replaying one CUDA graph (a memset and flash attention) from inside a
    Python-level op (torch.compile's reduce-overhead replay), and `outside` eager launches."""
    events, corr = [], 100
    for i in range(n):
        t0 = 1000.0 + (200.0 + 20 * outside) * i
        events += [ev("user_annotation", f"ProfilerStep#{i + 2}", t0, 150.0 + 20 * outside),
                   ev("cpu_op", "CompiledFxGraph", t0 + 5, 30.0),
                   launch(t0 + 10, corr, "cudaGraphLaunch", dur=6.0),
                   ev("gpu_memset", "Memset (Device)", t0 + 20, 0.7, tid=7, correlation=corr, device=0, stream=7),
                   kernel(FLASH, t0 + 21, 6.0, corr)]
        corr += 1
        for j in range(outside):
            t = t0 + 40 + 20 * j
            events += [launch(t, corr), kernel("small_kernel", t + 5, 2.0, corr)]
            corr += 1
    return trace_of(*events)


def test_attention_replayed_in_a_graph_is_attributed_and_the_replay_named():
    found = explain(graph_steps())
    g = found.graphs
    assert (g.replays, g.activities, g.per_range) == (6, 12, 1.0)
    assert found["attention"]["compiled_backend"] == "flash"
    row = next(r for r in found.attention if r.direction == "replayed")
    assert row.backend == "flash" and row.calls == 6 and row.gpu_us == pytest.approx(36.0)
    # the pace named gets a finding: the host's, between replays, and no graph prescribed
    pace = next(f for f in found.findings if f.rule == "pace")
    assert found.pace.paced_by == "host" and pace.fact.graphs_replay
    assert all("reduce-overhead" not in f.remedy for f in found.findings)


def test_cuda_graphs_are_never_prescribed_where_they_replay():
    found = explain(graph_steps(outside=40))
    assert found.graphs.per_range == 1.0 and found.graphs.other_launches_per_range == pytest.approx(40.0)
    assert found.pace.verdict == "CPU-bound"
    for f in found.findings:
        assert "reduce-overhead" not in f.remedy
    bound = [f for f in found.findings if f.rule == "launch_bound"]
    assert not bound or "already" in bound[0].remedy


def test_a_plain_graph_replay_is_reported():
    found = explain(small_call(graph=True))
    assert found.graphs is not None and found.graphs.replays == 6 and found.graphs.activities == 12
    assert explain(small_call(graph=False)).graphs is None


def comm_trace(overlap):
    """One device: an NCCL all-reduce of 400 µs on stream 20, and compute on stream 7 that runs
    beside it (overlap) or after it."""
    events = [ev("user_annotation", "ProfilerStep#1", 0, 20), launch(1, 1), launch(2, 2)]
    events.append(ev("kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 10, 400, tid=20, correlation=1,
                     device=0, stream=20))
    events.append(kernel("gemm", 10 if overlap else 420, 400, 2))
    return trace_of(*events)


def test_communication_without_compute_beside_it_is_a_finding_with_a_remedy():
    found = explain(comm_trace(overlap=False))
    (c,) = found.communication
    assert c.stream == 20 and c.comm_us == pytest.approx(400.0) and c.overlap_share == 0.0
    assert c.share == pytest.approx(0.5, abs=0.01)
    fact = next(f.fact for f in found.findings if f.rule == "communication")
    assert isinstance(fact, ExposedComm) and fact.collectives == ("all_reduce",)


def test_communication_hidden_by_compute_is_reported_but_no_finding():
    found = explain(comm_trace(overlap=True))
    (c,) = found.communication
    assert c.overlap_share == pytest.approx(1.0)
    assert all(f.rule != "communication" for f in found.findings)


def test_a_deep_queue_without_ranges_is_the_gpus_pace():
    # every launch issued long before its kernel runs: kernels 1 ms behind their launches, back to back
    events = []
    for i in range(40):
        events += [launch(10.0 * i, i + 1), kernel("k", 1000.0 + 50.0 * i, 50.0, i + 1)]
    found = explain(trace_of(*events))
    r = found["ranges"][0]
    assert r["name"] == "(whole trace)" and r["idle_by_cause_us"]["host"] == 0.0
    assert found.pace.verdict == "GPU-bound" and found.pace.paced_by == "gpu"
    stream = found["streams"][0]
    assert stream["idle_us"]["host"] == r["idle_by_cause_us"]["host"]  # one host wait, both lines


def test_a_queue_that_drains_at_a_sync_stays_the_gpus_pace():
    events = [ev("user_annotation", "ProfilerStep#1", 0, 3000)]
    for i in range(40):
        events += [launch(10.0 * i, i + 1), kernel("k", 500.0 + 50.0 * i, 50.0, i + 1)]
    events += [launch(2600, 99), kernel("k", 2605, 50, 99)]  # after a 100 µs wait for the host
    found = explain(trace_of(*events))
    assert found["ranges"][0]["launch_delay_us"] >= 50 and found.pace.verdict == "GPU-bound"


def step(n, gap=20.0, kernel_us=2.0):
    events, t = [], 0.0
    for i in range(n):
        events += [launch(t, i + 1), kernel("small_kernel", t + 5, kernel_us, i + 1)]
        t += gap
    return events + [ev("user_annotation", "ProfilerStep#1", -1, t + 10)]


def test_launch_bound_follows_from_the_waits_not_a_count():
    for n in (50, 195, 400):
        found = explain(trace_of(*step(n)))
        assert found.pace.paced_by == "host"
        assert any(f.rule == "launch_bound" for f in found.findings), n


def test_every_named_pace_gets_a_finding():
    busy = explain(trace_of(*step(100, gap=2.5, kernel_us=2.4)))
    assert busy.pace.paced_by == "gpu"
    fact = next(f.fact for f in busy.findings if f.rule == "pace")
    assert isinstance(fact, PaceOnly) and fact.top_kernel == "small_kernel"


def gemm_trace(dims, name="cutlass_80_simt_sgemm_128x64_8x5_nn_align1", shapes=True):
    args = {"Input Dims": dims, "Input type": ["float", "float"]} if shapes else {}
    return trace_of(ev("user_annotation", "ProfilerStep#1", 0, 100), ev("cpu_op", "aten::mm", 1, 20, **args),
                    launch(5, 1), kernel(name, 10, 500, 1))


def test_alignment_reads_the_recorded_shapes():
    assert all(f.rule != "gemm_alignment" for f in explain(gemm_trace([[64, 256], [256, 64]])).findings)
    found = explain(gemm_trace([[64, 50257], [50257, 64]]))
    fact = next(f.fact for f in found.findings if f.rule == "gemm_alignment")
    assert isinstance(fact, GemmAlignment) and fact.unaligned == (50257,) and fact.op == "aten::mm"


def test_alignment_without_shapes_says_it_read_the_name_only():
    found = explain(gemm_trace(None, shapes=False))
    fact = next(f.fact for f in found.findings if f.rule == "gemm_alignment")
    assert fact.dims == () and fact.alignments == ("align1",)


def test_kernels_a_graph_replayed_are_named_as_its_replay():
    from report.doctor.explain import report
    from report.doctor.model.platform_words import WORDS

    found = explain(graph_steps())
    row = next(k for k in found["kernels"] if k["name"] == FLASH)
    assert row["launch_calls"] == {"cudaGraphLaunch": 6}
    line = next(x for x in report(found).splitlines() if "pytorch_flash::flash_fwd_kernel" in x)
    assert WORDS["cuda"]["graph"] in line


def test_one_host_wait_for_the_stream_and_the_range():
    # no ranges, one stream, each kernel launched after the last ended: the host's 18 µs waits,
    # and the 500 µs before the first kernel (the host's start) no wait at all
    events = [ev("cpu_op", "aten::empty", 0, 1)]
    for i in range(30):
        events += [launch(500.0 + 20.0 * i, i + 1), kernel("k", 503.0 + 20.0 * i, 2.0, i + 1)]
    found = explain(trace_of(*events))
    r, stream = found["ranges"][0], found["streams"][0]
    assert stream["idle_us"]["host"] == pytest.approx(29 * 18.0)
    assert r["idle_by_cause_us"]["host"] == pytest.approx(stream["idle_us"]["host"])
    assert found.pace.host_wait_share == pytest.approx(29 * 18.0 / (29 * 20.0 + 2.0))


def test_every_reader_keeps_a_matmuls_dims_alone_and_once(tmp_path, monkeypatch):
    import json

    from report.doctor.explain import load_trace, read_trace
    from report.trace.reading import kineto_layout, msgspec_decoder
    from report.trace.reading import stream as reading_stream

    events = [e for i in range(3) for e in gemm_trace([[64, 50257], [50257, 64]])["traceEvents"]]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(trace_of(*events)), encoding="utf-8")
    kept = lambda t: [e.args for e in t.events if e.cat == "cpu_op"]  # noqa: E731
    by_json = kept(reading_stream.from_dict(load_trace(path)))
    assert by_json == [{"Input Dims": [[64, 50257], [50257, 64]]}] * 3  # no types, strides or concrete inputs
    assert by_json[0] is by_json[1]  # equal shapes held once
    assert kept(read_trace(path)) == by_json
    monkeypatch.setattr(reading_stream, "FAST_DECODER", False)
    assert kept(read_trace(path)) == by_json
    by_pattern = reading_stream.Trace()
    assert kineto_layout.read(", ".join(json.dumps(e) for e in events), by_pattern)
    assert kept(by_pattern) == by_json
    if msgspec_decoder.AVAILABLE:
        by_msgspec = reading_stream.Trace()
        by_msgspec.add_structs(msgspec_decoder.events(", ".join(json.dumps(e) for e in events)))
        assert kept(by_msgspec) == by_json
