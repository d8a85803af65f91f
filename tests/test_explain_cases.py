"""--explain on the cases issue 21 names, each on a trace made up to show it or on a
committed H200 fixture changed the way another profiler or GPU writes it: old Kineto
categories, ROCm device properties and AMD's words for a ROCm trace, MTIA and CPU-only
traces, NCCL kernels, overlapping streams, small grids, the synchronisation that opened a gap
(a HIP one too), the SDPA backends."""
import copy
import json
import re

import pytest
from factory import FIXTURES, odd_value
from madeup import H200, ev, kernel, launch, trace_of

import build_tables
from report.doctor.explain import TraceError, explain, load_trace, read_trace, report
from report.doctor.shown.numbers import pct, us
from report.trace.reading import kineto_layout
from report.trace.reading import stream as reading_stream

# --- other writers of the same trace ---------------------------------------------------

def test_old_kineto_categories_are_read_as_todays():
    new = load_trace(FIXTURES / "naive.json.gz")
    old = copy.deepcopy(new)
    names = {"kernel": "Kernel", "cuda_runtime": "Runtime", "cpu_op": "Operator", "gpu_memcpy": "Memcpy",
             "gpu_memset": "Memset", "cuda_driver": "Driver"}
    for e in old["traceEvents"]:
        e["cat"] = names.get(e.get("cat"), e.get("cat"))
    assert report(explain(old)) == report(explain(new))


def test_rocm_device_properties_in_kinetos_reduced_schema_are_read():
    props = {"id": 0, "name": "AMD Instinct MI250X", "totalGlobalMem": 68702699520, "computeMajor": 9,
             "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
             "regsPerBlock": 65536, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 110,
             "maxSharedMemoryPerMultiProcessor": 65536}
    found = explain(trace_of(launch(0, 1, "hipLaunchKernel"), kernel("my_hip_kernel", 5, 10, 1, grid=(440, 1, 1),
                                                                     block=(256, 1, 1), regs=32), props=props))
    k = found["kernels"][0]
    assert found["schemas"] == {0: "rocm"} and found["limits"][0].warp_size == 64
    assert k["theoretical_pct"] == pytest.approx(100.0)  # 8 blocks of 4 warps: 32 of 32 wavefronts
    assert "AMD Instinct MI250X (compute capability 9.0, 110 CUs, ROCm properties)" in report(found)


# --- a ROCm trace: AMD's words where NVIDIA's differ ---------------------------------------

# Kineto's ROCm schema (libkineto/src/DeviceProperties.cpp) for an MI300X (gfx942: HIP's
# compute capability 9.4, 304 CUs)
MI300X = {"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 205822885888, "computeMajor": 9,
          "computeMinor": 4, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
          "regsPerBlock": 65536, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 304,
          "maxSharedMemoryPerMultiProcessor": 65536}


def gpu_kernel(name, ts, dur, corr, grid=(16, 1, 1), block=(1024, 1, 1), regs=16, stream=0):
    """A kernel as a ROCm build's Kineto writes it: no "est. achieved occupancy %"."""
    return ev("kernel", name, ts, dur, tid=stream, correlation=corr, device=0, stream=stream, grid=list(grid),
              block=list(block), **{"registers per thread": regs, "shared memory": 0})


def one_step(names, props):
    """One step: SDPA on the math backend (a small grid, its blocks limited by warps), an
    all-reduce, an .item() whose blocking copy holds back the next launch, and a graph's
    replay on a second stream. names: the runtime calls'."""
    return trace_of(
        ev("user_annotation", "step", 0, 1000),
        ev("cpu_op", "aten::scaled_dot_product_attention", 10, 100),
        ev("cpu_op", "aten::_scaled_dot_product_attention_math", 12, 90),
        ev("cuda_runtime", names["launch"], 20, 5, correlation=1), gpu_kernel("softmax_kernel", 30, 100, 1),
        ev("cuda_runtime", names["launch"], 120, 5, correlation=2),
        gpu_kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 140, 50, 2),
        ev("cpu_op", "aten::item", 180, 320), ev("cuda_runtime", names["copy"], 185, 300),
        ev("cuda_runtime", names["launch"], 600, 5, correlation=3), gpu_kernel("add_kernel", 610, 10, 3),
        ev("cuda_runtime", names["graph"], 700, 5, correlation=4),
        gpu_kernel("flash_fwd_kernel", 710, 20, 4, stream=1), props=props)


ROCM_CALLS = {"launch": "hipLaunchKernel", "copy": "hipMemcpyWithStream", "graph": "hipGraphLaunch"}
CUDA_CALLS = {"launch": "cudaLaunchKernel", "copy": "cudaStreamSynchronize", "graph": "cudaGraphLaunch"}


def test_a_rocm_trace_gets_amds_words_and_none_of_nvidias():
    found = explain(one_step(ROCM_CALLS, MI300X))
    text = report(found)
    assert found["platform"] == "rocm"
    for amd in ("GPU: AMD Instinct MI300X (compute capability 9.4, 304 CUs, ROCm properties)",
                "theoretical 100.0% (2 blocks per CU with its own shared memory, limited by wavefronts)\n",
                "why: 16 blocks on 304 CUs: 288 CUs get no block",
                "kernel (RCCL communication), 1 call",
                "(or EFFICIENT_ATTENTION): it raises if the backend cannot run",
                "after hipMemcpyWithStream in .item()"):
        assert amd in text, amd
    for nvidia in ("CUDA", "cuDNN", "CUDNN", "NCCL communication", "xFormers", "CUTLASS", "Kineto", "warps"):
        assert nvidia not in text, nvidia
    assert not re.search(r"\bSMs?\b", text)
    # the one "cuda" left is the API's own name, which a ROCm build keeps
    assert re.findall(r"\w*cuda\w*", text) == ["cuda"] and "torch.backends.cuda.enable_flash_sdp" in text
    # the math backend's check on ROCm is the same call, with the backends it has
    assert found["attention"]["math_check_backends"] == "EFFICIENT_ATTENTION"
    assert "To check: run the call under `with torch.nn.attention.sdpa_kernel(" in text


def test_the_same_step_on_nvidia_keeps_nvidias_words():
    text = report(explain(one_step(CUDA_CALLS, H200)))
    for nvidia in ("GPU: NVIDIA H200 (compute capability 9.0, 132 SMs)",
                   "(2 blocks per SM with its own shared memory, limited by warps); Kineto not recorded (its rule",
                   "why: 16 blocks on 132 SMs: 116 SMs get no block", "kernel (NCCL communication), 1 call",
                   "(or EFFICIENT_ATTENTION, CUDNN_ATTENTION)", "after cudaStreamSynchronize in .item()"):
        assert nvidia in text, nvidia
    for amd in ("RCCL", "HIP", "hip", "wavefront", "multiprocessor", "AMD"):
        assert amd not in text, amd
    assert not re.search(r"\bCUs?\b", text)


def test_a_graph_replay_is_named_by_its_platform():
    """Kernels with no ATen op around them (compiled code, a graph's replay): a ROCm build
    replays torch.cuda.CUDAGraph with hipGraphLaunch."""
    def graph_only(calls, props):
        return report(explain(trace_of(ev("cuda_runtime", calls["graph"], 0, 5, correlation=1),
                                       gpu_kernel("flash_fwd_kernel", 10, 20, 1), props=props)))
    assert ("kernels launched with no ATen op around them (a HIP graph's replay, compiled code) show the flash "
            "backend") in graph_only(ROCM_CALLS, MI300X)
    assert "(a CUDA graph's replay, compiled code)" in graph_only(CUDA_CALLS, H200)


def test_efficient_attention_on_rocm_names_no_cutlass():
    events = [ev("cpu_op", "aten::_scaled_dot_product_efficient_attention", 0, 50),
              ev("cuda_runtime", "hipLaunchKernel", 5, 5, correlation=1), gpu_kernel("attn_fwd", 20, 30, 1)]
    assert "  efficient (memory-efficient), forward: 1 call" in report(explain(trace_of(*events, props=MI300X)))
    events[1]["name"] = "cudaLaunchKernel"
    assert "  efficient (memory-efficient, xFormers/CUTLASS), forward: 1 call" in report(explain(trace_of(*events)))


def renamed(field, old, new):
    return lambda t: [e.update({field: new}) for e in t["traceEvents"] if e[field] == old]


@pytest.mark.parametrize("sign", [
    renamed("name", "cudaLaunchKernel", "hipLaunchKernel"),
    renamed("name", "cudaStreamSynchronize", "hipMemcpyWithStream"),
    lambda t: t.update(deviceProperties=[MI300X]),
    lambda t: t.update(hip_runtime_version="60443484"),
    renamed("cat", "cuda_runtime", "hip_runtime"),
], ids=["hip-launch", "hip-synchronize", "rocm-device-properties", "hip-version", "hip-runtime-category"])
def test_each_sign_of_rocm_in_the_trace_tells_it(sign):
    """What Kineto's ROCm build writes: HIP's calls (RocprofActivity.h), ROCm's deviceProperties
    (DeviceProperties.cpp), its HIP versions (RocmActivityProfiler.cpp); and hip_runtime, as other
    writers name the category. Any one of them alone, on a trace that is NVIDIA's otherwise."""
    trace = one_step(CUDA_CALLS, None)
    assert explain(trace)["platform"] == "cuda"
    sign(trace)
    assert explain(trace)["platform"] == "rocm"


@pytest.mark.parametrize("fast", [True, False], ids=["msgspec-or-kineto", "pure-python"])
def test_the_streamed_reader_tells_rocm_as_the_dict_does(fast, tmp_path, monkeypatch):
    trace = one_step(ROCM_CALLS, MI300X)
    path = tmp_path / "rocm.json"
    path.write_text(json.dumps(trace), encoding="utf-8")
    monkeypatch.setattr(reading_stream, "FAST_DECODER", fast and reading_stream.FAST_DECODER)
    streamed = explain(read_trace(path))
    assert streamed["platform"] == "rocm" and report(streamed) == report(explain(trace))
    trace = dict(one_step(CUDA_CALLS, None), hip_runtime_version="60443484")  # the version at the top alone
    path.write_text(json.dumps(trace), encoding="utf-8")
    assert explain(read_trace(path))["platform"] == "rocm"


def test_a_cpu_only_rocm_trace_asks_for_an_amd_gpu():
    trace = trace_of(ev("cpu_op", "aten::mm", 0, 5), ev("cuda_runtime", "hipGetDevicePropertiesR0600", 1, 1),
                     props=MI300X)
    with pytest.raises(TraceError, match=r"only 1 CPU events: record it with ProfilerActivity.CUDA on a machine "
                                         r"with an AMD GPU$"):
        explain(trace)


def test_numsms_on_rdna_is_named_as_hip_names_it():
    """On gfx10 and later (RDNA) HIP's multiProcessorCount counts workgroup processors in WGP
    mode, the default, so the text does not call them CUs."""
    rdna = dict(MI300X, name="AMD Radeon RX 7900 XTX", computeMajor=11, computeMinor=0, numSms=48, warpSize=32)
    text = report(explain(one_step(ROCM_CALLS, rdna)))
    assert "AMD Radeon RX 7900 XTX (compute capability 11.0, 48 multiprocessors, ROCm properties)" in text
    assert "16 blocks on 48 multiprocessors: 32 multiprocessors get no block" in text
    assert "per multiprocessor with its own shared memory" in text and not re.search(r"\bCUs?\b", text)


def test_an_mtia_trace_is_told_it_is_one(tmp_path, capsys):
    path = tmp_path / "mtia.json"
    path.write_text(json.dumps(trace_of(ev("cpu_op", "aten::mm", 0, 5),
                                        ev("mtia_ccp_events", "mtia_kernel", 1, 5))), encoding="utf-8")
    with pytest.raises(TraceError, match="MTIA accelerator"):
        explain(read_trace(path))
    assert build_tables.main(["--explain", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "MTIA" in err


def test_a_cpu_only_trace_says_how_many_cpu_events_it_holds():
    with pytest.raises(TraceError, match=r"no GPU activity .*only 2 CPU events: record it with ProfilerActivity.CUDA"):
        explain(trace_of(ev("cpu_op", "aten::mm", 0, 5), ev("user_annotation", "fwd", 0, 9)))


# --- streams, kinds, idle causes -------------------------------------------------------

def test_overlapping_streams_count_once_in_busy_time_and_their_overlap_is_shown():
    found = explain(trace_of(ev("user_annotation", "step", 0, 20), launch(1, 1), launch(2, 2),
                             kernel("a", 10, 100, 1, stream=7), kernel("b", 60, 100, 2, stream=8)))
    assert found["busy_us"] == pytest.approx(150.0) and found["stream_busy_sum_us"] == pytest.approx(200.0)
    r = found["ranges"][0]
    assert r["streams"] == 2 and r["overlap_us"] == pytest.approx(50.0) and r["busy_us"] == pytest.approx(150.0)
    text = report(found)
    assert "streams overlap for 50.0 µs" in text
    # shares are of the activities' own time (200 µs), so the two rows add up to 100 %, not 133 %
    assert found["activity_us"] == pytest.approx(200.0) and text.count("(50% of GPU activity time)") == 2


def test_a_kernel_waiting_on_another_streams_work_is_a_stream_wait():
    # b was launched at 2 µs on stream 8 but starts only when a (stream 7) is done: an event wait
    found = explain(trace_of(launch(0, 1), launch(2, 2), launch(3, 3), kernel("a", 5, 100, 1, stream=7),
                             kernel("c", 5, 10, 3, stream=8), kernel("b", 106, 10, 2, stream=8)))
    s8 = next(s for s in found["streams"] if s["stream"] == 8)
    assert s8["idle_us"] == {"host": 0.0, "stream": pytest.approx(91.0), "other": 0.0}
    assert s8["verdict"] == "stalled"  # idle 91 of its 111 µs, its work launched: not the host's doing
    assert next(s for s in found["streams"] if s["stream"] == 7)["verdict"] == "GPU-bound"


def test_nccl_kernels_are_communication_and_copies_memory():
    found = explain(trace_of(launch(0, 1), launch(1, 2), launch(2, 3),
                             kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 5, 40, 1, stream=9),
                             kernel("gemm", 5, 30, 2),
                             ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 50, 5, correlation=3, device=0,
                                stream=7)))
    assert found["kinds_us"] == {"compute": 30.0, "communication": 40.0, "memory": 5.0}
    nccl = next(k for k in found["kernels"] if k["name"].startswith("nccl"))
    assert nccl["work"] == "communication"
    assert "(NCCL communication)" in report(found)


def test_a_synchronize_that_opened_a_gap_is_named_with_the_op_around_it():
    found = explain(trace_of(ev("user_annotation", "step", 0, 400), launch(1, 1), kernel("k1", 5, 100, 1),
                             ev("cpu_op", "aten::item", 10, 100), ev("cuda_runtime", "cudaStreamSynchronize", 12, 95),
                             launch(300, 2), kernel("k2", 305, 10, 2)))
    r = found["ranges"][0]
    assert r["verdict"] == "CPU-bound"
    assert r["single_gaps"][0]["opened_by"] == "cudaStreamSynchronize in .item()"
    assert r["single_gaps"][0]["cause"] == "host" and r["single_gaps"][0]["gap_us"] == pytest.approx(200.0)


@pytest.mark.parametrize("memcpy, says", [
    ("Memcpy DtoH (Device -> Pageable)", "cudaStreamSynchronize in a copy to the host (.cpu(), .to())"),
    ("Memcpy HtoD (Pageable -> Device)", "cudaStreamSynchronize in a copy to the GPU (.to(), .cuda())"),
    ("Memcpy DtoD (Device -> Device)", "cudaStreamSynchronize in a copy on the GPU (.copy_(), .to())"),
    (None, "cudaStreamSynchronize in a copy (.to(), .cpu(), .copy_())"),  # it launched no copy
])
def test_a_copy_that_opened_a_gap_says_which_way_it_copied(memcpy, says):
    """aten::copy_ waits the same way whichever way it copies: the trace's own copy says which."""
    copy = [launch(20, 3, "cudaMemcpyAsync"), ev("gpu_memcpy", memcpy, 110, 2, correlation=3, device=0,
                                                 stream=7)] if memcpy else []
    found = explain(trace_of(ev("user_annotation", "step", 0, 400), launch(1, 1), kernel("k1", 5, 100, 1),
                             ev("cpu_op", "aten::copy_", 10, 110), *copy,
                             ev("cuda_runtime", "cudaStreamSynchronize", 25, 95),
                             launch(300, 2), kernel("k2", 305, 10, 2)))
    assert found["ranges"][0]["single_gaps"][0]["opened_by"] == says


@pytest.mark.parametrize("cuda, hip, cat", [
    ("cudaStreamSynchronize", "hipStreamSynchronize", "cuda_runtime"),
    ("cudaDeviceSynchronize", "hipDeviceSynchronize", "cuda_runtime"),
    ("cudaEventSynchronize", "hipEventSynchronize", "cuda_runtime"),
    ("cudaMemcpy", "hipMemcpy", "cuda_runtime"),
    # a ROCm build's blocking copy, where CUDA's does cudaMemcpyAsync and cudaStreamSynchronize
    ("cudaStreamSynchronize", "hipMemcpyWithStream", "cuda_runtime"),
    ("cudaStreamSynchronize", "hipStreamSynchronize", "hip_runtime"),
])
def test_a_hip_synchronize_is_a_host_wait_as_cudas_is(cuda, hip, cat):
    """Kineto files a ROCm build's HIP calls under cuda_runtime (other writers: hip_runtime):
    the CPU's wait in them is taken off its own time and names the gap it opened."""
    def step(sync, sync_cat, launch_name):
        return explain(trace_of(ev("user_annotation", "step", 0, 400), launch(1, 1, launch_name),
                                kernel("k1", 5, 100, 1), ev("cpu_op", "aten::item", 10, 100),
                                ev(sync_cat, sync, 12, 95), launch(300, 2, launch_name),
                                kernel("k2", 305, 10, 2)))["ranges"][0]
    nvidia, amd = step(cuda, "cuda_runtime", "cudaLaunchKernel"), step(hip, cat, "hipLaunchKernel")
    assert amd["sync_wait_us"] == nvidia["sync_wait_us"] == pytest.approx(95.0)
    assert amd["host_us"] == nvidia["host_us"] == pytest.approx(305.0)
    assert amd["verdict"] == nvidia["verdict"] == "CPU-bound"
    assert amd["single_gaps"][0]["opened_by"] == f"{hip} in .item()"
    assert nvidia["single_gaps"][0]["opened_by"] == f"{cuda} in .item()"


def test_gaps_are_sorted_by_their_total_not_their_median():
    events = [ev("user_annotation", "step", 0, 5000)]
    t, corr = 10.0, 0
    for i in range(10):  # nine short gaps after "x", one long one after "y"
        corr += 1
        events += [launch(t - 5, corr), kernel("x" if i < 9 else "y", t, 10, corr)]
        t += 10 + (3.0 if i < 8 else 0.0)
    corr += 1
    events += [launch(t + 1000, corr), kernel("z", t + 1200, 10, corr)]
    r = explain(trace_of(*events))["ranges"][0]
    assert (r["gaps"][0]["before"], r["gaps"][0]["after"]) == ("y", "z")
    assert r["gaps"][1]["count"] == 8 and r["gaps"][1]["max_us"] == pytest.approx(3.0)


# --- occupancy -------------------------------------------------------------------------

def test_a_grid_smaller_than_the_sm_count_is_flagged_with_its_numbers():
    found = explain(trace_of(launch(0, 1), kernel("small", 5, 10, 1, grid=(16, 1, 1), block=(384, 1, 1),
                                                  regs=168, smem=100 * 1024)))
    k = found["kernels"][0]
    assert k["small_grid"] and k["reasons"][0] == ("small_grid", {"grid": 16, "sms": 132, "unit": "SMs", "idle": 116})
    assert k["reasons"][1] == ("smem_over", {"smem_kib": 100.0, "limit_kib": 48.0})
    assert k["kineto_rule_pct"] == 0 and k["theoretical_pct"] == pytest.approx(18.75)
    text = report(found)
    assert "why: 16 blocks on 132 SMs" in text


def test_theoretical_occupancy_counts_warps_not_threads():
    # 48 threads take two warps: 32 blocks per SM (Hopper's block limit) hold 64 warps of 64, all
    # of them; counting threads (32 x 48 of 2048) would say 75 %
    found = explain(trace_of(launch(0, 1), kernel("odd", 5, 10, 1, grid=(100000, 1, 1), block=(48, 1, 1))))
    k = found["kernels"][0]
    assert k["blocks_per_sm"] == 32 and k["theoretical_pct"] == pytest.approx(100.0)


# --- the attention summary on the committed fixtures -----------------------------------

@pytest.mark.parametrize("variant, backend", [("flash", "flash"), ("efficient", "efficient"), ("cudnn", "cudnn"),
                                              ("math", "math"), ("flex", "flex")])
def test_each_sdpa_backend_is_named(variant, backend):
    att = explain(load_trace(FIXTURES / f"{variant}.json.gz"))["attention"]
    assert [(b["backend"], b["direction"], b["calls"]) for b in att["backends"]] == [(backend, "forward", 4)]
    assert att["math_fallback"] == (backend == "math")


def test_a_math_fallback_is_flagged_with_how_to_check_it():
    text = report(explain(load_trace(FIXTURES / "math.json.gz")))
    assert "SDPA fell back to the math backend" in text
    assert "sdpa_kernel(SDPBackend.FLASH_ATTENTION)" in text and "the warnings it prints say why" in text


def test_hand_written_attention_is_not_counted_inside_the_math_backend():
    assert explain(load_trace(FIXTURES / "math.json.gz"))["attention"]["hand_written"] is None
    hand = explain(load_trace(FIXTURES / "naive_inplace.json.gz"))["attention"]["hand_written"]
    assert hand["chains"] == 4 and hand["masked_fill_copies"] == 0  # masked_fill_ works in place


# --- numbers and the reader ------------------------------------------------------------

def test_no_negative_zero_is_printed():
    assert us(-0.01) == "0.0 µs" and us(-0.0) == "0.0 µs" and pct(-0.01) == "0.0%" and pct(-0.4, 0) == "0%"


def test_a_truncated_plain_trace_is_one_line(tmp_path, monkeypatch):
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(load_trace(FIXTURES / "naive.json.gz"))[:5000], encoding="utf-8")
    monkeypatch.setattr(reading_stream, "CHUNK", 1024)
    with pytest.raises(TraceError, match=r"not JSON \(.* at character"):
        read_trace(path)


def test_the_fast_path_reads_kinetos_layout_and_json_reads_any_other(tmp_path, monkeypatch):
    trace = load_trace(FIXTURES / "naive.json.gz")
    kineto, shuffled = tmp_path / "kineto.json", tmp_path / "shuffled.json"
    rest = json.dumps({k: v for k, v in trace.items() if k != "traceEvents"})[1:-1]
    kineto.write_text('{"traceEvents": [\n' + ",\n".join(json.dumps(e) for e in trace["traceEvents"])
                      + "\n], " + rest + "}", encoding="utf-8")  # one event a line, as Kineto spaces it
    other = dict(trace, traceEvents=[dict(reversed(list(e.items()))) for e in trace["traceEvents"]])
    shuffled.write_text(json.dumps(other), encoding="utf-8")
    used = []
    fast = kineto_layout.read
    monkeypatch.setattr(reading_stream, "FAST_DECODER", False)  # the pure-Python reader, as in the browser
    monkeypatch.setattr(kineto_layout, "read", lambda text, found: used.append(fast(text, found)) or used[-1])
    monkeypatch.setattr(reading_stream, "CHUNK", 1 << 15)
    expected = report(explain(trace))
    assert report(explain(read_trace(kineto))) == expected and used and all(used)
    used.clear()
    assert report(explain(read_trace(shuffled))) == expected and used and not any(used)


ODD = [None, [], [1, 2], {}, {"a": 1}, "x", -1, 0, 1e308, float("nan"), True, "7", -5.5]


def mutated(rng, base):
    t = copy.deepcopy(base)
    for _ in range(rng.randint(1, 5)):
        if rng.random() < 0.1:
            t["deviceProperties"] = rng.choice(ODD + [[rng.choice(ODD)]])
            continue
        odd_value(rng, t["traceEvents"], ODD, 0.5)
    return t


def test_odd_values_anywhere_give_a_report_or_one_trace_error(tmp_path):
    """Any field of any event of another type: an explanation or TraceError, never a traceback."""
    import random

    base = load_trace(FIXTURES / "cudnn.json.gz")
    base["traceEvents"] = base["traceEvents"][:300]
    rng = random.Random(7)
    for i in range(200):
        t = mutated(rng, base)
        path = tmp_path / "t.json"
        path.write_text('{"traceEvents": [\n' + ",\n".join(json.dumps(e) for e in t["traceEvents"]) + "\n], "
                        + json.dumps({k: v for k, v in t.items() if k != "traceEvents"})[1:], encoding="utf-8")
        for streamed in (False, True) if i % 10 == 0 else (False,):
            try:
                report(explain(read_trace(path) if streamed else t))
            except TraceError:
                pass


def test_the_streamed_reader_keeps_the_size_cap(tmp_path, monkeypatch, capsys):
    import gzip

    from report.doctor.reading import trace_file as module  # where the cap is read

    monkeypatch.setattr(module, "MAX_TRACE_BYTES", 2 * 2**20)
    path = tmp_path / "bomb.json.gz"
    with gzip.open(path, "wb") as f:
        f.write(b'{"traceEvents": [' + b" " * (3 * 2**20) + b"]}")
    with pytest.raises(TraceError, match="more than 2 MB of JSON once unpacked"):
        read_trace(path)
    assert build_tables.main(["--explain", str(path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
