"""One fused backend's first calls in a fresh process; prints one line of JSON.

    python -m report.measure.first_call_child [--wait] '{"variant": "cudnn", "shape": {...},
        "new_shape": {...}, "dtype": "bfloat16", "device": "cuda"}'

With --wait it imports torch, prints "ready" and measures only once a line "go" comes on
its standard input (first_calls.py starts every process first, so they import torch at
the same time, then lets them measure one at a time).

report/measure/first_calls.py starts one such process per backend and round, so each
first call pays what a reader's first call pays: the backend's libraries and kernels
loaded (from disk, or from the page cache where an earlier process read them), and a
plan built for the shape. In order, each call synchronised and timed on its own:
`first_call_ms` (the process's first attention call), `same_shape_again_ms`,
`first_new_shape_ms` and `new_shape_again_ms` (a shape this process has not seen),
then `new_thread_first_ms` and `new_thread_again_ms`: the first shape again, on a new
thread of the same process.

The new thread pays again for cuDNN: PyTorch keeps cuDNN's attention graphs (the built
plans) in a cache that is `thread_local` (aten/src/ATen/native/cudnn/MHA.cpp:
`thread_local MHAGraphCache ... mhagraphcache`, in newer versions the instance that
`getMHAGraphCache_()` returns; run_cudnn_SDP_fprop looks plans up there, "as cuDNN
Execution Plans are not guaranteed to be thread safe"), so a thread builds its own plan
even for a shape another thread has built. `import_torch_ms` (with --wait, taken while
the other processes imported torch too) and `setup_ms` (the inputs made and the device
initialised) come before any attention call.
"""
from __future__ import annotations

import json
import sys
import threading
import time


def _on_new_thread(torch, fn, ctx, inputs, device):
    """The first and second call on a fresh thread (its own grad mode and backend context)."""
    from .guard import Refused, guarded, timed_call_ms

    found = {}

    def work():
        try:
            with guarded(torch), ctx(), torch.no_grad():
                found["new_thread_first_ms"] = timed_call_ms(torch, device, lambda: fn(*inputs))[1]
                found["new_thread_again_ms"] = timed_call_ms(torch, device, lambda: fn(*inputs))[1]
        except Refused as refused:
            found["new_thread_error"] = refused.row["reason"][:300]
        except Exception as err:  # recorded, never a crash of the process
            found["new_thread_error"] = f"{type(err).__name__}: {str(err).strip()[:300]}"

    thread = threading.Thread(target=work, name="first-call-new-thread")
    thread.start()
    thread.join()
    return found


def measure(spec, import_ms):
    import torch

    from .callables import make_inputs, make_variant
    from .guard import Refused, guarded, sync, timed_call_ms

    row = {"import_torch_ms": import_ms}
    device, dtype, name = spec["device"], getattr(torch, spec["dtype"]), spec["variant"]
    t0 = time.perf_counter()
    q, k, v = make_inputs(spec["shape"], dtype, device)
    sync(torch, device)
    row["setup_ms"] = (time.perf_counter() - t0) * 1e3
    fn, ctx = make_variant(name, spec["shape"], device)
    try:
        with guarded(torch), ctx(), torch.no_grad():
            row["first_call_ms"] = timed_call_ms(torch, device, lambda: fn(q, k, v))[1]
            row["same_shape_again_ms"] = timed_call_ms(torch, device, lambda: fn(q, k, v))[1]
            new = make_inputs(spec["new_shape"], dtype, device)
            row["first_new_shape_ms"] = timed_call_ms(torch, device, lambda: fn(*new))[1]
            row["new_shape_again_ms"] = timed_call_ms(torch, device, lambda: fn(*new))[1]
            new = None  # freed before the new thread runs
    except Refused as refused:
        return refused.row
    row.update(_on_new_thread(torch, fn, ctx, (q, k, v), device))
    return {"status": "ok", **row}


def main(argv):
    started = time.perf_counter()
    wait = bool(argv) and argv[0] == "--wait"
    if wait:
        argv = argv[1:]
    try:
        spec = json.loads(argv[0])
        import torch  # noqa: F401

        import_ms = (time.perf_counter() - started) * 1e3
        if wait:  # say so, and measure when the parent says go
            print("ready", flush=True)
            if sys.stdin.readline().strip() != "go":
                return 0
        out = measure(spec, import_ms)
    except Exception as err:  # one line of JSON whatever happens; the parent records it
        out = {"status": "error", "reason": f"{type(err).__name__}: {str(err).strip()[:300]}"}
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
