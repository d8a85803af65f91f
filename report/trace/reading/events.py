"""What the trace reader keeps of a trace's events, whichever way a batch of them was read
(stream.py's json and msgspec, kineto_layout.py's pattern): the same fields under the same rules.

    Event              one complete event of a kept category, with only the fields the
                       explanation reads
    shared(kept, pool) a GPU activity's launch resources, held once however many share them
    hashable(value)    an id as the trace gives it, or its text

The categories kept: GPU activities (kernels, memory copies and sets), the launch calls that pair
with them by correlation id, and the host's ops and ranges (and the GPU's view of those ranges,
GPU_RANGE, kept apart in Trace.gpu_ranges: measurement reads them); older Kineto's and ROCm's
names for them (CAT_ALIASES) are read as today's; Kineto's own work (category overhead, e.g.
Activity Buffer Request) is kept to be told apart from the host's. The recorded inputs of
INPUT_OPS (INPUT_ARGS) are kept as their args. A ts or dur beyond MAX_TIME_US is no time, nor a
dur between 0 and MIN_DUR_US.
"""
from __future__ import annotations

# 3,170 years in µs: any ts or dur beyond it is not a time (1e308 would overflow sums). Older
# Kineto writes ts as µs since 1970 (1.7e15 in 2023, HTA's test traces): the bound lies well above
MAX_TIME_US = 1e17
# Kineto writes ts and dur in µs with three decimals, whole nanoseconds (libkineto/src/output_json.cpp,
# ChromeTraceLogger: "ts": {}.{:03}): a dur above 0 and below 1 ns is no profiler's, and one of
# 5e-324 µs printed 330 zeros and divided into a queue of 10^300 kernels; 0 stays a time
MIN_DUR_US = 1e-3

# older Kineto (and ROCm builds) name the same categories differently; matched lower-cased
CAT_ALIASES = {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset",
               "gpu_memcpy": "gpu_memcpy", "gpu_memset": "gpu_memset",
               "runtime": "cuda_runtime", "cuda_runtime": "cuda_runtime", "hip_runtime": "cuda_runtime",
               "driver": "cuda_driver", "cuda_driver": "cuda_driver", "hip_driver": "cuda_driver",
               "operator": "cpu_op", "cpu_op": "cpu_op", "user_annotation": "user_annotation",
               "overhead": "overhead", "gpu_user_annotation": "gpu_user_annotation"}
# a record_function range as the GPU saw it (first kernel start to last kernel end of the
# launches the range's thread made): kept apart, in Trace.gpu_ranges, not among Trace.events
GPU_RANGE = "gpu_user_annotation"
# the ops whose recorded inputs (record_shapes=True) are kept: SDPA's entry, its backends' ops and
# their backward, as the dispatcher names them (model/sdpa_inputs.py reads them), and the matmuls
INPUT_OPS = frozenset(("aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
                       "aten::_scaled_dot_product_efficient_attention", "aten::_scaled_dot_product_cudnn_attention",
                       "aten::_scaled_dot_product_attention_math", "aten::_flash_attention_forward",
                       "aten::_efficient_attention_forward",
                       "aten::_scaled_dot_product_flash_attention_backward",
                       "aten::_scaled_dot_product_efficient_attention_backward",
                       "aten::_scaled_dot_product_cudnn_attention_backward")) | frozenset(
    # the matmuls whose sizes say a GEMM kernel's alignment (model/gemm_shapes.py): their Input Dims
    # only, equal ones held once (a model's matmuls repeat their shapes every step)
    GEMM_OPS := ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear"))
MAX_SHARED_DIMS = 4096  # distinct matmul shapes held once; past it each op keeps its own
# what Kineto records of an op's inputs with record_shapes=True (torch/csrc/profiler/util.cpp names them)
INPUT_ARGS = ("Input Dims", "Input type", "Input Strides", "Concrete Inputs")
# the launch resources and placement of a GPU activity, as Kineto's args name them
GPU_ARGS = ("device", "stream", "grid", "block", "registers per thread", "shared memory",
            "est. achieved occupancy %")


def hashable(value):
    """An id as the trace gives it (an int or a string), or its text where it is anything else."""
    return value if type(value) in (int, str, float) or value is None else str(value)


# an event's name is kept to this many characters: the longest real ones (ROCm's GEMMs, Triton's
# fused kernels) are a few hundred, and each name is read character by character (names.py)
MAX_NAME = 10_000


class Event:
    """One complete ("X") event of a kept category: times in µs as the trace has them; corr,
    the correlation id, of GPU activities and launch calls only; args, the launch resources
    of GPU activities, or the recorded inputs of an op of INPUT_OPS (inputs(args)); name, at most
    MAX_NAME characters of it."""
    __slots__ = ("cat", "name", "ts", "dur", "end", "pid", "tid", "corr", "args")

    def __init__(self, cat, name, ts, dur, pid, tid, corr, args):
        if len(name) > MAX_NAME:
            name = name[:MAX_NAME]
        self.cat, self.name, self.ts, self.dur, self.end = cat, name, ts, dur, ts + dur
        self.pid, self.tid, self.corr, self.args = pid, tid, corr, args


def shared(kept, pool):
    """kept (a GPU activity's launch resources) with device and stream made hashable, as the
    one dict of the pool with the same keys and values, so equal ones are held once. Its
    repr is the key: JSON's values (numbers, strings, lists, dicts) with equal reprs are
    equal and of equal types (1, 1.0 and True differ, as do -0.0 and 0.0)."""
    for k in ("device", "stream"):
        if k in kept:
            kept[k] = hashable(kept[k])
    try:
        return pool.setdefault(repr(kept), kept)
    except RecursionError:
        return kept


_DIMS = {}


def inputs(args, name=None):
    """The recorded inputs kept of an op of INPUT_OPS: INPUT_ARGS present in args, or None; of
    a matmul (GEMM_OPS), its Input Dims alone (dims(), as msgspec's reader gives them)."""
    if name in GEMM_OPS:
        return dims(args.get("Input Dims"))
    kept = {k: args[k] for k in INPUT_ARGS if k in args}
    return kept or None


def dims(value):
    """A matmul's kept inputs: {"Input Dims": value}, equal ones shared (MAX_SHARED_DIMS), or None."""
    if value is None:
        return None
    try:
        key = repr(value)
    except RecursionError:
        return {"Input Dims": value}
    found = _DIMS.get(key)
    if found is None:
        found = {"Input Dims": value}
        if len(_DIMS) < MAX_SHARED_DIMS:
            _DIMS[key] = found
    return found
