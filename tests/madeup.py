"""Made-up Kineto events for tests of --explain: a complete event, a kernel with its launch
resources, its launch call, a trace around them with an H200's device properties."""
import json

from factory import FIXTURES

from report.doctor.explain import load_trace

H200 = dict(json.loads(json.dumps(load_trace(FIXTURES / "flash.json.gz")["deviceProperties"][0])))


def ev(cat, name, ts, dur, **args):
    tid = args.pop("tid", 1)
    return {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": args}


def kernel(name, ts, dur, corr, stream=7, grid=(1024, 1, 1), block=(128, 1, 1), regs=32, smem=0):
    return ev("kernel", name, ts, dur, tid=stream, correlation=corr, device=0, stream=stream,
              grid=list(grid), block=list(block), **{"registers per thread": regs, "shared memory": smem,
                                                     "est. achieved occupancy %": 50})


def launch(ts, corr, name="cudaLaunchKernel", dur=2.0):
    return ev("cuda_runtime", name, ts, dur, correlation=corr)


def trace_of(*events, props=H200):
    return {"deviceProperties": [props] if props else [], "traceEvents": list(events)}


KERNEL = "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_kernel0_0"


def small_call(graph=False, steps=6):
    """A made-up trace of profile_forward's loop (ProfilerStep#N ranges, each holding a
    record_function range around one call) of a call that puts a memset and a kernel on the
    GPU, as unpinned SDPA does where it picks cuDNN. Eager (small_auto_fwd): the call's ATen
    ops, runtime calls that launch nothing, a cudaMemsetAsync and a cuLaunchKernelEx, the GPU
    idle between the two while the host issues the second. Replayed from a CUDA graph
    (small_auto_graph_fwd): one cudaGraphLaunch, whose correlation id Kineto gives both
    activities it replays, back to back on the GPU."""
    events, corr = [], 100
    every = 50.0 if graph else 130.0  # µs from one step's start to the next
    for i in range(steps):
        t0, k = 1000.0 + every * i, 6.0 + 0.1 * (i % 3)  # kernel times 6.0, 6.1, 6.2 µs: a median step
        if graph:
            events += [ev("user_annotation", f"ProfilerStep#{i + 2}", t0, 40.0),
                       ev("user_annotation", "small_auto_graph_fwd", t0 + 8, 20.0),
                       launch(t0 + 12, corr, "cudaGraphLaunch", dur=6.0),
                       ev("gpu_memset", "Memset (Device)", t0 + 20, 0.7, tid=7, correlation=corr, device=0, stream=7),
                       kernel(KERNEL, t0 + 21.5, k, corr)]
            corr += 1
        else:
            events += [ev("user_annotation", f"ProfilerStep#{i + 2}", t0, 100.0),
                       ev("user_annotation", "small_auto_fwd", t0 + 10, 80.0),
                       ev("cpu_op", "aten::scaled_dot_product_attention", t0 + 15, 70.0),
                       ev("cpu_op", "aten::_scaled_dot_product_cudnn_attention", t0 + 20, 62.0),
                       launch(t0 + 30, corr, "cudaStreamIsCapturing", dur=1.0),
                       launch(t0 + 45, corr + 1, "cudaMemsetAsync", dur=5.0),
                       ev("gpu_memset", "Memset (Device)", t0 + 51, 0.7, tid=7, correlation=corr + 1, device=0,
                          stream=7),
                       ev("cuda_driver", "cuLaunchKernelEx", t0 + 62, 9.0, correlation=corr + 2),
                       kernel(KERNEL, t0 + 73, k, corr + 2),
                       launch(t0 + 72, corr + 3, "cudaGetErrorString", dur=0.2)]
            corr += 4
    return trace_of(*events)


SDPA = "aten::scaled_dot_product_attention"


def contiguous(shape):
    out, n = [], 1
    for d in reversed(shape):
        out.insert(0, n)
        n *= d
    return out


def sdpa_args(q, k, dtype="c10::BFloat16", mask=None, mask_type="", causal="False", gqa="False", dropout="0.",
              strides=None):
    """aten::scaled_dot_product_attention's recorded inputs (record_shapes=True); strides:
    q's, k's and v's (contiguous where not given)."""
    strides = strides or [contiguous(q), contiguous(k), contiguous(k)]
    return {"Input Dims": [list(q), list(k), list(k), list(mask or []), [], [], [], []],
            "Input type": [dtype, dtype, dtype, mask_type, "Scalar", "Scalar", "", "Scalar"],
            "Input Strides": [list(s) for s in strides] + [[], [], [], [], []],
            "Concrete Inputs": ["", "", "", "", dropout, causal, "", gqa]}


def call(t0, backend_op, prep_ops=(), args=None, tid=1, corr0=1, backend_kernel="fmha_kernel", step=None):
    """One SDPA call at t0: its preparation ops (each a kernel under SDPA, outside the backend's
    op), then the backend's op with one kernel. Returns its events."""
    out = [ev("cpu_op", SDPA, t0, 100, tid=tid, **(args or {}))]
    t, corr = t0 + 1, corr0
    for op, kname in prep_ops:
        out += [ev("cpu_op", op, t, 10, tid=tid), launch(t + 1, corr), kernel(kname, t + 50, 5, corr)]
        t, corr = t + 12, corr + 1
    out += [ev("cpu_op", backend_op, t, 20, tid=tid), launch(t + 1, corr), kernel(backend_kernel, t + 60, 40, corr)]
    return out


SHAPES = {"seed": {"batch": 2, "heads": 8, "seq_q": 256, "seq_k": 256, "head_dim": 64},
          "decode": {"batch": 2, "heads": 8, "seq_q": 1, "seq_k": 512, "head_dim": 64}}


def condition(cid, ran, no=(), pinned=None, **setting):
    """One condition of an eligibility table: the seed's setting changed by `setting`; the
    backends in `no` said no (with words naming the condition)."""
    base = {"dtype": "bfloat16", "head_dim": 64, "kv_heads": 8, "mask": "none", "is_causal": False,
            "layout": "contiguous", "dropout": 0.0, "enable_gqa": False, "api": "sdpa", "pinned": pinned}
    can = {b: {"ok": b not in no, "reasons": [f"{b} says no to {cid}"] if b in no else []}
           for b in ("flash", "efficient", "cudnn")}
    return {"id": cid, "shape": "seed", "fix": None, "setting": base | setting, "can_use": can, "ran": ran,
            "kernels": [], "call_warnings": [], "error": None, "kernel_time_us": None, "trace": None, "check": None}


def eligibility_results(conditions, **more):
    """A results.json's eligibility section (issue 37's format, build_tables.py's measurement) over these
    conditions, on an H200 with PyTorch 2.11.0; more: other sections."""
    return {"provenance": {"date": "2026-12-04"}, **more,
            "eligibility": {"versions": {"torch": "2.11.0+cu130", "cuda": "13.0", "cudnn": "9.19.0",
                                         "compute_capability": "9.0", "gpu_name": "NVIDIA H200",
                                         "flash_built": True, "cudnn_sdpa_enabled": True},
                            "shapes": SHAPES, "conditions": conditions}}
