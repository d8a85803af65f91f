"""Communication on the GPU (NCCL/RCCL kernels) and how much of it compute hides.

    communication(timeline)   [CommStream] (model/result_types.py): per stream with collectives, most first,
                              their busy time, its share of the device's busy time, and the
                              share of it during which compute kernels run on the device
    collectives(timeline)     the kinds of collective the kernels' names say ran (all_reduce,
                              all_gather, reduce_scatter, ...), most time first

The overlap is Holistic Trace Analysis' communication-computation overlap
(TraceAnalysis.get_comm_comp_overlap: per rank, the share of communication time during which
computation kernels run); here per stream, over the stream's communication time, against the
compute kernels on any stream of its device.
"""
from __future__ import annotations

from .intervals import common, length, merge
from .result_types import CommStream

# NCCL's kernel names (ncclDevKernel_AllReduce_Sum_bf16_RING_LL, ncclKernel_AllGather_RING_LL_Sum_int8_t)
COLLECTIVES = (("allreduce", "all_reduce"), ("allgather", "all_gather"), ("reducescatter", "reduce_scatter"),
               ("alltoall", "all_to_all"), ("broadcast", "broadcast"), ("sendrecv", "send_recv"),
               ("send", "send_recv"), ("recv", "send_recv"), ("reduce", "reduce"))


def communication(timeline):
    by_device, comm = {}, {}
    for a in timeline.acts:
        dev = a.stream[0]
        by_device.setdefault(dev, {"all": [], "compute": []})
        by_device[dev]["all"].append((a.e.ts, a.e.end))
        if a.kind == "compute":
            by_device[dev]["compute"].append((a.e.ts, a.e.end))
        elif a.kind == "communication":
            comm.setdefault(a.stream, []).append((a.e.ts, a.e.end))
    if not comm:
        return []
    merged = {d: {k: merge(v) for k, v in x.items()} for d, x in by_device.items()}
    rows = []
    for (dev, stream), intervals in sorted(comm.items(), key=lambda kv: str(kv[0])):
        mine = merge(intervals)
        comm_us = length(mine)
        busy = length(merged[dev]["all"])
        hidden = common(mine, merged[dev]["compute"])
        rows.append(CommStream(dev, stream, comm_us, comm_us / busy if busy else 0.0,
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
