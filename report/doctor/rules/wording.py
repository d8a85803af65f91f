"""The words of the typed facts (rules/facts.py): each fact's title, evidence, remedy and
source, one place for each sentence; output/text_report.py prints them as any finding's.

    said(fact)   (title, evidence, remedy, source)
"""
from __future__ import annotations

from ..shown.numbers import sig_us as _us
from .facts import ExposedComm, GemmAlignment, PaceOnly

# which change overlaps which collective (torch.distributed's own switches)
COMM_REMEDIES = {
    "all_reduce": ("let the all-reduce run during backward: DistributedDataParallel buckets gradients and "
                   "starts each bucket's all-reduce as it fills (bucket_cap_mb; no_sync for gradient "
                   "accumulation), so no step waits for one all-reduce at its end"),
    "all_gather": ("prefetch the next layer's all-gather: FSDP's forward_prefetch=True and "
                   "backward_prefetch=BackwardPrefetch.BACKWARD_PRE (FSDP2: reshard_after_forward, "
                   "set_modules_to_forward_prefetch)"),
    "reduce_scatter": ("let the reduce-scatter run during backward: FSDP's backward_prefetch="
                       "BackwardPrefetch.BACKWARD_PRE, and larger wrapped units so each collective has "
                       "compute to hide behind"),
}


def _comm(f):
    kinds = ", ".join(k.replace("_", "-") for k in f.collectives) or "collectives"
    first = f.collectives[0] if f.collectives else None
    remedy = COMM_REMEDIES.get(first, "start the collectives asynchronously (async_op=True) and wait on them "
                                      "only where their result is needed, so compute runs meanwhile")
    if first == "all_reduce" and f.fsdp and not f.ddp:
        remedy = COMM_REMEDIES["reduce_scatter"]
    return (f"Communication runs with little compute beside it (stream {f.stream})",
            f"{kinds} on device {f.device} stream {f.stream}: {_us(f.comm_us)}, {100 * f.share:.0f}% of the "
            f"device's GPU busy time; compute runs during {100 * f.overlap_share:.1f}% of it",
            remedy, "HTA's communication-computation overlap (TraceAnalysis.get_comm_comp_overlap)")


def _pace(f):
    if f.paced_by == "gpu":
        top = (f"; the longest: {f.top_kernel}, {100 * f.top_share:.0f}% of GPU activity time"
               if f.top_kernel else "")
        return ("The GPU's own work sets the pace",
                "the launches are ahead of the GPU" + top,
                "make the GPU's work shorter, longest first (the detail's first rows): the host is not "
                "what waits", "the pace verdict (explain.py)")
    if f.paced_by == "waiting":
        return ("The GPU idles with its work launched",
                f"idle {100 * (f.other_idle_share or 0):.0f}% of the range's time with the next activity "
                "already launched",
                "see what the idle gaps wait on (the detail's gaps marked other or stream: an event, another "
                "stream's work, a collective)", "the pace verdict (explain.py)")
    if f.graphs_replay:
        return ("The host sets the pace between graph replays",
                "captured graphs replay here already: the GPU waits for the host between the replays",
                "put more work in each replay (capture more of the step, or several steps in one graph), or "
                "let the host do less between replays (the detail's largest gaps say after what)",
                "the pace verdict (explain.py); CUDA Graphs (torch.cuda.graphs)")
    why = ("no wait for the host is left between two launches once synchronize calls, host reads and "
           "profiler steps are set aside" if f.median_gap_us is None else
           f"the median wait for the host between two activities is {_us(f.median_gap_us)}")
    return ("The host sets the pace, and no rule's remedy fits", why,
            "see what the host runs in the range's largest gaps (the detail); with_stack=True records "
            "its Python frames", "the pace verdict (explain.py)")


def _gemm(f):
    tags = ", ".join(f.alignments)
    if not f.dims:
        return ("A matmul runs a narrow-alignment kernel",
                f"{f.kernel} ({tags}); no shapes are recorded for the op that launched it "
                "(record_shapes=True), so this is read off the kernel's name only: an operand is aligned "
                "to fewer than 8 elements",
                "record with record_shapes=True to see the sizes; where one is not a multiple of 8, pad it "
                "(a vocabulary, a head dim) to a multiple of 8, better 64",
                "CUTLASS's kernel names (alignN: operands aligned to N elements)")
    shapes = "; ".join("×".join(map(str, d)) for d in f.dims)
    sizes = ", ".join(f"{n:,}" for n in f.unaligned)
    pads = ", ".join(f"{n:,} -> {n + (-n) % 64:,}" for n in f.unaligned[:3])
    return (f"A matmul runs a narrow-alignment kernel: {sizes} not a multiple of 8",
            f"{f.kernel} ({tags}) from {f.op} with inputs {shapes}",
            f"pad the size to a multiple of 8, better 64 ({pads})",
            "CUTLASS's kernel names (alignN); the op's recorded Input Dims")


def said(fact):
    """(title, evidence, remedy, source) of a fact of rules/facts.py."""
    if isinstance(fact, ExposedComm):
        return _comm(fact)
    if isinstance(fact, PaceOnly):
        return _pace(fact)
    if isinstance(fact, GemmAlignment):
        return _gemm(fact)
    raise TypeError(f"no words for {type(fact).__name__}")
