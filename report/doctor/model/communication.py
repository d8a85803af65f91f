"""Communication on the GPU (NCCL/RCCL kernels) and how much of it compute hides.

    communication(timeline)   [CommStream] (model/result_types.py): per stream with collectives, most first,
                              their busy time, its share of the device's busy time, and the
                              share of it during which compute kernels run on the device
    collectives(timeline)     the kinds of collective the kernels' names say ran (all_reduce,
                              all_gather, reduce_scatter, ...), most time first

The overlap is Holistic Trace Analysis' communication-computation overlap
(TraceAnalysis.get_comm_comp_overlap: per rank, the share of communication time during which
computation kernels run); here per stream, over the stream's communication time, against the
compute kernels on any stream of its device. Each device's busy time and the cover of its
compute kernels are made once (model/intervals.py: Cover), and each stream's communication
asks the cover in O(log n) per interval: a trace of 3,000 streams with one NCCL kernel each
costs what one stream of them does, not streams × kernels (issue 50).
"""
from __future__ import annotations

from .intervals import Cover, length, merge_ordered
from .result_types import CommStream

# NCCL's kernel names (ncclDevKernel_AllReduce_Sum_bf16_RING_LL, ncclKernel_AllGather_RING_LL_Sum_int8_t)
COLLECTIVES = (("allreduce", "all_reduce"), ("allgather", "all_gather"), ("reducescatter", "reduce_scatter"),
               ("alltoall", "all_to_all"), ("broadcast", "broadcast"), ("sendrecv", "send_recv"),
               ("send", "send_recv"), ("recv", "send_recv"), ("reduce", "reduce"))


def communication(timeline):
    by_device, comm = {}, {}
    for a in timeline.acts:  # by start: each list below is sorted as it is made
        dev = a.stream[0]
        spans = by_device.get(dev)
        if spans is None:
            spans = by_device[dev] = ([], [])
        spans[0].append((a.e.ts, a.e.end))
        if a.kind == "compute":
            spans[1].append((a.e.ts, a.e.end))
        elif a.kind == "communication":
            comm.setdefault(a.stream, []).append((a.e.ts, a.e.end))
    if not comm:
        return []
    devices = {d for d, _ in comm}
    busy = {d: length(merge_ordered(by_device[d][0])) for d in devices}
    compute = {d: Cover(merge_ordered(by_device[d][1])) for d in devices}
    rows = []
    for (dev, stream), intervals in sorted(comm.items(), key=lambda kv: str(kv[0])):
        mine = merge_ordered(intervals)
        comm_us = length(mine)
        cover = compute[dev]
        hidden = sum(cover.covered(s, t) for s, t in mine)
        rows.append(CommStream(dev, stream, comm_us, comm_us / busy[dev] if busy[dev] else 0.0,
                               hidden / comm_us if comm_us else 0.0))
    return sorted(rows, key=lambda c: -c.comm_us)


def collectives(timeline):
    """The collectives' kinds by their kernels' time, most first."""
    time = {}
    for a in timeline.acts:
        if a.kind != "communication":
            continue
        low = a.e.name.lower().replace("_", "")
        kind = next((k for word, k in COLLECTIVES if word in low), "other")
        time[kind] = time.get(kind, 0.0) + a.e.dur
    return tuple(k for k, _ in sorted(time.items(), key=lambda kv: -kv[1]))
