"""Per-forward figures for every range of one record_function name in a torch.profiler trace,
read by the one reader of the format (reading/: the same events the trace doctor reads).

CPU time is the host-side record_function range; CUDA time is the GPU-side range
("gpu_user_annotation", Trace.gpu_ranges: first kernel start to last kernel end). GPU
activities are tied to a forward pass through the launch call that issued them (its
correlation id).

    read(path)                    the Trace of a .json or .json.gz file (reading/stream.py)
    analyze_trace(trace, name)    the figures of a Trace (or of a trace loaded as a dict)
    step_finder, activities_per_step, op_stack_finder   the steps of it that
                                  render/conversions.py reads too
"""
from ..stats import stats
from .causes import CAUSES, cause_of
from .names import GPU_CATS, LAUNCH_CATS, kernel_kind, short_kernel_name
from .reading import stream

read = stream.read_trace


def as_trace(trace):
    """A Trace as it is; a trace loaded as a dict read into one by the reader (stream.from_dict:
    ValueError where it is no trace)."""
    return trace if isinstance(trace, stream.Trace) else stream.from_dict(trace)


def ranges_named(events, range_name):
    """The events named range_name, in order of their start."""
    return sorted((e for e in events if e.name == range_name), key=lambda e: e.ts)


def step_finder(cpu_ranges):
    """step_of(ts): the index of the first range holding ts, or None."""
    def step_of(ts):
        for i, r in enumerate(cpu_ranges):
            if r.ts <= ts <= r.end:
                return i
        return None
    return step_of


def op_stack_finder(events):
    ops = sorted((e for e in events if e.cat == "cpu_op"), key=lambda e: e.ts)

    def op_stack(launch):
        """The ATen operations whose CPU spans hold this launch call, outermost first."""
        holding = [op for op in ops if op.ts <= launch.ts <= op.end and op.tid == launch.tid]
        return [op.name for op in sorted(holding, key=lambda op: -op.dur)]
    return op_stack


def activities_per_step(events, steps, step_of):
    """[(GPU activity, launch event), ...] per step, and the launch API time per step."""
    launches = {}
    launch_time = [0.0] * steps
    for e in events:
        if e.cat in LAUNCH_CATS:
            i = step_of(e.ts)
            if i is not None:
                launch_time[i] += e.dur
                if e.corr is not None:
                    launches[e.corr] = (i, e)
    per_step = [[] for _ in range(steps)]
    for e in events:
        if e.cat in GPU_CATS:
            hit = launches.get(e.corr)
            if hit is not None:
                per_step[hit[0]].append((e, hit[1]))
    return per_step, launch_time


def _copied(value):
    """A launch resource of the reader's shared dicts, as a value of its own (a list copied)."""
    return list(value) if type(value) is list else value


def _kernel_table(per_step, steps, op_stack):
    """One row per GPU activity name and launching op stack, longest total first (the same
    elementwise kernel serves different steps of attention)."""
    kernels = {}
    for acts in per_step:
        for e, launch in acts:
            args = e.args or {}
            stack = op_stack(launch)
            k = kernels.get((e.name, tuple(stack)))
            if k is None:
                k = kernels[(e.name, tuple(stack))] = {
                    "name": e.name, "short_name": short_kernel_name(e.name),
                    "kind": kernel_kind(e), "launched_by": launch.name,
                    "aten_op": stack[-1] if stack else None, "aten_stack": stack,
                    "cause": cause_of(stack, kernel_kind(e), e.name),
                    "calls": 0, "total_us": 0.0,
                    "registers_per_thread": args.get("registers per thread"),
                    "shared_memory": args.get("shared memory"),
                    "block": _copied(args.get("block")), "grid": _copied(args.get("grid")),
                    "kineto_occupancy_pct": args.get("est. achieved occupancy %"),
                }
            k["calls"] += 1
            k["total_us"] += e.dur
    for k in kernels.values():
        k["per_forward"] = k["calls"] / steps
        k["avg_us"] = k["total_us"] / k["calls"]
    return sorted(kernels.values(), key=lambda k: -k["total_us"])


def attribution(kernels, steps):
    """Kernel time and GPU activities per forward pass (means over the steps), per cause,
    in CAUSES order: every activity has exactly one cause, so they add up to the total."""
    out = {}
    for cause in CAUSES:
        mine = [k for k in kernels if k["cause"] == cause]
        if mine:
            out[cause] = {"us_per_forward": sum(k["total_us"] for k in mine) / steps,
                          "activities_per_forward": sum(k["per_forward"] for k in mine)}
    return out


def _gpu_times(per_step, gpu_ranges, cuda_time):
    kernel_sum_us, cuda_us, counts = [], [], []
    for i, acts in enumerate(per_step):
        counts.append(len(acts))
        kernel_sum_us.append(sum(e.dur for e, _ in acts))
        if cuda_time == "gpu_range" and len(gpu_ranges) == len(per_step):
            cuda_us.append(gpu_ranges[i].dur)
        elif acts:  # no GPU-side range recorded: first start to last end
            cuda_us.append(max(e.end for e, _ in acts) - min(e.ts for e, _ in acts))
    return kernel_sum_us, cuda_us, counts


def analyze_trace(trace, range_name, cuda_time="gpu_range"):
    """Per-forward figures for every `range_name` range of a trace (a Trace, or a trace
    loaded as a dict; ValueError where it is no trace or has no such range).

    cuda_time="kernel_span" measures from the first to the last GPU activity instead of the
    GPU-side range: that range only covers launches from the thread that opened it, and
    backward kernels are launched from autograd's own thread.
    """
    trace = as_trace(trace)
    events = trace.events
    cpu_ranges = ranges_named((e for e in events if e.cat == "user_annotation"), range_name)
    if not cpu_ranges:
        raise ValueError(f"no record_function range named {range_name!r} in the trace")
    gpu_ranges = ranges_named(trace.gpu_ranges, range_name)
    steps = len(cpu_ranges)
    step_of = step_finder(cpu_ranges)
    per_step, launch_time = activities_per_step(events, steps, step_of)
    cpu_ops = {}
    for e in events:
        if e.cat == "cpu_op" and step_of(e.ts) is not None:
            cpu_ops[e.name] = cpu_ops.get(e.name, 0) + 1
    kernel_sum_us, cuda_us, counts = _gpu_times(per_step, gpu_ranges, cuda_time)
    kernels = _kernel_table(per_step, steps, op_stack_finder(events))
    return {
        "steps": steps,
        "cpu_time_us": stats([r.dur for r in cpu_ranges]),
        "cuda_time_us": stats(cuda_us),
        "kernel_sum_us": stats(kernel_sum_us),
        "kernel_sum_steps_us": kernel_sum_us,  # per step, in order (measure/ask.py keeps them)
        "launch_api_us": stats(launch_time),
        "gpu_activities_per_forward": stats(counts),
        "kernels": kernels,
        "attribution": attribution(kernels, steps),
        "cpu_ops_per_forward": {name: n / steps for name, n in sorted(cpu_ops.items())},
        "device_properties": (trace.meta.get("deviceProperties") or [None])[0],
    }
