"""Made-up Kineto events for tests of --explain: a complete event, a kernel with its launch
resources, its launch call, a trace around them with an H200's device properties."""
import json

from factory import FIXTURES

from report.trace.explain import load_trace

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
