"""The remedies `--explain` names: one rule each, with its source and its evidence; a rule
gives a Finding only where its evidence is in the trace.

    RULES          the rules in order, each rule(facts) -> Finding | None
    findings(f)    every rule's finding on Facts f, largest time at stake first

Facts (rules/diagnose.py) hold what the rules read: the pace of the steps, the attention
summary and its calls' inputs, the kernels, the optimizer's launches, the host's reads, the
GPU's idle gaps in the steps that wait for the host (host_gaps: those no sync, host read or
profiler step opened).
The thresholds are this tool's conventions, stated beside each rule.
"""
from __future__ import annotations

from ..model.result_types import QUEUE_US, Finding
from . import mha
from .facts import (
    BiasInTraining,
    BoolMask,
    ExposedComm,
    GemmAlignment,
    HandWritten,
    HeadDim,
    HostSync,
    HostWork,
    LaunchBound,
    MathFallback,
    OptimizerLoop,
    PaceOnly,
    RepeatedKV,
    SlowBackend,
    StepSync,
)

# "many short kernels": a median kernel shorter than LAUNCH_BOUND_KERNEL_US (about the host's path of
# one launch: the GPU finishes each before the next is issued) and at least LAUNCH_BOUND_LAUNCHES
# launches per range (fewer is the host's path of a call or two, not a stream of launches a graph
# would replay); the launches not queued (a median launch delay under QUEUE_US, the range rule's).
LAUNCH_BOUND_KERNEL_US = 20.0
LAUNCH_BOUND_LAUNCHES = 10
# the median of the GPU's idle gaps that wait for the host: at most this, each is the host path
# of an op or two (Python, dispatch, the launch), and short kernels cannot cover it; longer,
# the host does other work between launches. The corpus's launch-bound traces (transformers'
# models, tests/fixtures/corpus) have medians of 14 to 35 µs; HTA's a100_nccl, whose wait is
# a DDP step's host work between launches (gaps before DtoD copies of up to 16 ms), 106 µs.
HOST_GAP_US = 50.0
ALIGN_SHARE = 0.05  # a GEMM kernel with a narrow alignment over this share of GPU time
ALIGNED = ("align1", "align2")  # CUTLASS kernel names carry their operands' alignment in elements
OPTIMIZER_LAUNCHES = 100  # per optimizer step: launches of a per-parameter loop
COMM_SHARE = 0.1  # communication over this share of a device's GPU busy time
COMM_OVERLAP = 0.5  # ... and compute beside it for less than this share of it: exposed
# the findings that answer each pace the first screen names; where none is found, PaceOnly says why
ANSWERS = {"host": ("launch_bound", "host_work", "optimizer_foreach", "host_sync", "communication"),
           "sync": ("host_sync", "step_sync"), "waiting": ("communication",),
           "gpu": ("hand_written_attention", "repeated_kv", "mha_need_weights", "fast_path_mask", "math_fallback",
                   "efficient_not_flash", "gemm_alignment", "bool_mask", "head_dim", "bias_in_training",
                   "communication")}


def _median_gap(f):
    gaps = sorted(g[0] for g in f.host_gaps)
    return gaps[(len(gaps) - 1) // 2] if gaps else None


def _launch_bound(f):
    p = f.pace
    gap = _median_gap(f)
    if (p.verdict != "CPU-bound" or p.paced_by != "host" or p.median_kernel_us is None
            or p.median_kernel_us >= LAUNCH_BOUND_KERNEL_US or (p.launches_per_range or 0) < LAUNCH_BOUND_LAUNCHES
            or p.launch_delay_us is None or p.launch_delay_us >= QUEUE_US
            or gap is None or gap > HOST_GAP_US):
        return None
    g = f.graphs
    replay = g is not None and g.per_range  # graphs replay already: never prescribe them again
    fact = LaunchBound(p.launches_per_range, p.median_kernel_us, gap, p.busy_share or 0.0, p.launch_delay_us,
                       f.decode_calls, g.per_range if replay else None,
                       (g.other_launches_per_range or 0.0) if replay else None,
                       bool(replay and getattr(f, "copies_outside", False)))
    return Finding("launch_bound", time_us=(f.host_wait_us or 0.0) * f.ranges, fact=fact)


def _host_work(f):
    """CPU-bound with the GPU's waits for the host longer than an op's host path: the host
    does other work between launches, which shorter kernels or fewer launches would not save."""
    p = f.pace
    gap = _median_gap(f)
    if p.verdict != "CPU-bound" or p.paced_by != "host" or gap is None or gap <= HOST_GAP_US:
        return None
    longest = max(f.host_gaps, key=lambda g: g[0])
    after = longest[1]
    named = after.launch is not None and after.op
    long_us = sum(g[0] for g in f.host_gaps if g[0] > HOST_GAP_US)
    return Finding("host_work", time_us=long_us, fact=HostWork(
        len(f.host_gaps), gap, HOST_GAP_US, longest[0], after.launch.name if named else None,
        after.op if named else None, after.e.name))


def _optimizer_loop(f):
    o = f.optimizer
    if not o or o["foreach"] or o["launches"] < OPTIMIZER_LAUNCHES:
        return None
    return Finding("optimizer_foreach", time_us=o["gpu_span_us"], fact=OptimizerLoop(o["name"], o["launches"]))


def _hand_written(f):
    hand = f.attention.get("hand_written")
    if not hand:
        return None
    mha = hand.get("mha_need_weights") or 0  # rules/mha.py: nn.MultiheadAttention's need_weights=True path
    return Finding("mha_need_weights" if mha else "hand_written_attention", time_us=hand["gpu_us"],
                   share=hand["share"], fact=HandWritten(hand["chains"], hand["masked_fill_copies"], mha))


def _prep(f, cause):
    prep = next((r for r in f.attention.get("backends", ()) if r["backend"] == "preparation"), None)
    if not prep:
        return 0.0
    return prep["causes"].get(cause, 0.0)


def _bool_mask(f):
    groups = [g for g in f.calls if g["parsed"] and g["parsed"].mask_dtype == "bool" and not g["parsed"].is_causal]
    if not groups:
        return None
    square = any(g["parsed"].mask and len(g["parsed"].mask) >= 2 and g["parsed"].mask[-1] == g["parsed"].mask[-2]
                 and all(d == 1 for d in g["parsed"].mask[:-2]) for g in groups)
    padding = any(g["parsed"].mask and len(g["parsed"].mask) >= 3 and g["parsed"].mask[0] > 1 for g in groups)
    time = _prep(f, "bool_mask")
    # the trace records the mask's shape, not its pattern: each remedy says which pattern it fits
    return Finding("bool_mask", time_us=time, share=time / f.activity_us if f.activity_us else 0.0,
                   fact=BoolMask(sum(g["calls"] for g in groups), tuple(groups[0]["parsed"].mask), time,
                                 "square" if square else "padding" if padding else "other"))


def _head_dim(f):
    odd = [g for g in f.calls if g["parsed"] and g["parsed"].head_dim and g["parsed"].head_dim % 8]
    if not odd:
        return None
    time = _prep(f, "head_dim")
    return Finding("head_dim", time_us=time, share=time / f.activity_us if f.activity_us else 0.0,
                   fact=HeadDim(odd[0]["parsed"].head_dim, sum(g["calls"] for g in odd), time))


def _fallback(f):
    rows = [r for r in f.attention.get("backends", ()) if r["backend"] == "math"]
    if not rows:
        return None
    why = next((g for g in f.calls if g["backend"] == "math" and g["why"]), None)
    return Finding("math_fallback", time_us=sum(r["gpu_us"] for r in rows), share=sum(r["share"] for r in rows),
                   fact=MathFallback(why["why"] if why else None))


def _slow_backend(f):
    groups = [g for g in f.calls if g["backend"] == "efficient" and g["why"] and g["why"].fixes]
    if not groups or (f.attention.get("bias_backward") and all(
            any(r.check == "check_for_attn_mask" for r in g["why"].shown) for g in groups)):
        return None  # a mask in training: _bias_in_training's finding, on the same time, says more
    rows = [r for r in f.attention.get("backends", ()) if r["backend"] == "efficient"]
    return Finding("efficient_not_flash", time_us=sum(r["gpu_us"] for r in rows),
                   share=sum(r["share"] for r in rows), fact=SlowBackend(groups[0]["why"]))


def _narrow_gemm(f):
    """A GEMM kernel whose name says narrow alignment: the sizes its op recorded say which is
    not a multiple of 8 (none: no finding, the kernel chose its alignment for another reason,
    a float32 SIMT kernel's align1); without recorded shapes, the name alone, said so."""
    rows = f.narrow  # the kernel rows whose names carry ALIGNED
    time = sum(k["total_us"] for k in rows)
    if not rows or not f.activity_us or time / f.activity_us < ALIGN_SHARE:
        return None
    for k in rows:
        op, dims = f.gemm_inputs.get(k["name"], (None, ()))
        unaligned = tuple(sorted({n for d in dims for n in d[-2:] if n % 8}))
        if not dims or unaligned:
            fact = GemmAlignment(k["short_name"], tuple(a for a in ALIGNED if a in k["name"]), op,
                                 tuple(tuple(d) for d in dims), unaligned)
            return Finding("gemm_alignment", time_us=time, share=time / f.activity_us, fact=fact)
    return None


def _communication(f):
    """A stream's communication that compute does not hide, where it is a large share of the
    device's GPU time (COMM_SHARE) and overlaps compute for under COMM_OVERLAP of it."""
    rows = [c for c in f.communication if c.share >= COMM_SHARE and c.overlap_share < COMM_OVERLAP]
    if not rows:
        return None
    c = max(rows, key=lambda c: c.comm_us * (1 - c.overlap_share))
    return Finding("communication", time_us=c.comm_us * (1 - c.overlap_share), share=c.share * (1 - c.overlap_share),
                   fact=ExposedComm(c.device, c.stream, c.comm_us, c.share, c.overlap_share, f.collectives,
                                    f.fsdp, f.ddp))


def _step_sync(f):
    """A synchronize in every step that lets the GPU run dry (rules/diagnose.py's _step_syncs):
    the GPU's idle after it, each step."""
    if not f.step_sync:
        return None
    by, gap, wait = f.step_sync
    return Finding("step_sync", time_us=gap * f.ranges, fact=StepSync(by, gap, wait))


def _host_sync(f):
    if not f.openers:
        return None
    by, per = max(f.openers.items(), key=lambda kv: kv[1])
    if f.step_sync and f.step_sync[0] == by:
        return None  # the same synchronize: _step_sync's finding names it
    if f.host_wait_us and per < 0.1 * f.host_wait_us:
        return None  # a small part of the host wait: it is not where the time goes
    return Finding("host_sync", time_us=per * f.ranges, fact=HostSync(by, per))


def _bias_in_training(f):
    n = f.attention.get("bias_backward")
    if not n:
        return None
    rows = [r for r in f.attention.get("backends", ()) if r["backend"] == "efficient"]
    return Finding("bias_in_training", time_us=sum(r["gpu_us"] for r in rows), share=sum(r["share"] for r in rows),
                   fact=BiasInTraining(n))


def _repeated_kv(f):
    """K and V repeated by hand before SDPA (rules/repeat_kv.py): the copies' GPU time."""
    r = f.repeated_kv
    if not r:
        return None
    return Finding("repeated_kv", time_us=r["gpu_us"], share=r["share"],
                   fact=RepeatedKV(r["calls"], r["repeats"], r["op"], r["q_heads"]))


RULES = (_launch_bound, _host_work, _optimizer_loop, _hand_written, _bool_mask, _head_dim, _fallback, _slow_backend,
         _host_sync, _step_sync, _bias_in_training, mha.finding, mha.masked_finding, _narrow_gemm, _communication,
         _repeated_kv)


def _pace_only(f):
    """The pace's own finding where no other answers it: what to change, or why nothing applies."""
    p = f.pace
    top = max(f.kernels, key=lambda k: k["total_us"], default=None)
    few_or_long = (p.median_kernel_us is not None and p.launches_per_range is not None
                   and (p.median_kernel_us >= LAUNCH_BOUND_KERNEL_US or p.launches_per_range < LAUNCH_BOUND_LAUNCHES))
    fact = PaceOnly(p.paced_by, top["short_name"] if top else None,
                    top["total_us"] / f.activity_us if top and f.activity_us else None,
                    f.graphs is not None, _median_gap(f), f.other_idle_share, p.launches_per_range,
                    p.median_kernel_us, few_or_long, p.launch_delay_us is not None and p.launch_delay_us >= QUEUE_US)
    wait = ((f.host_wait_us or 0.0) * f.ranges if p.paced_by in ("host", "sync") else
            top["total_us"] if top and p.paced_by == "gpu" else 0.0)
    # the GPU's: the longest kernel, its share of GPU activity time (as the kernel rows give it)
    share = (fact.top_share or 0.0) if p.paced_by == "gpu" else 0.0
    return Finding("pace", time_us=wait, share=share, fact=fact)


def findings(facts):
    found = [x for rule in RULES if (x := rule(facts)) is not None]
    answers = ANSWERS.get(facts.pace.paced_by)
    if answers is not None and not any(x.rule in answers for x in found):
        found.append(_pace_only(facts))
    return sorted(found, key=lambda x: -x.time_us)
