"""Kineto events for the hostile-trace tests (test_hostile_trace.py, test_hostile_trace_cost.py):
one complete event, and a kernel with its launch resources."""


def ev(cat, name, ts, dur, tid=1, pid=1, **args):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def kernel(name, ts, corr, stream=7, **launch):
    resources = {"grid": [256, 1, 1], "block": [128, 1, 1], "registers per thread": 32, "shared memory": 0}
    resources.update(launch)
    return ev("kernel", name, ts, 5.0, tid=stream, pid=0, correlation=corr, device=0, stream=stream, **resources)
