"""The GPU's timeline in a trace: launches, streams, busy time and why the GPU was idle.

    Timeline(events)        activities with their launch call, op stack and stream, sorted;
                            the GPU's busy stretches (union) and each idle gap's cause
    gap_cause(opener, t)    host or other: the cause of the GPU's idle time from t to opener
(idle.py sums the causes per stream and per range.)

Idle causes, for the idle time before an activity on its stream (or on the whole GPU):
    host    its launch call began after the GPU had run out of work: the GPU waited for the
            host to issue it (HTA's "host wait")
    stream  it had been launched in time, and another stream ran meanwhile: it waited on
            work on another stream (an event, a stream wait)
    other   it had been launched in time and nothing ran: launch latency, a dependency
This follows Holistic Trace Analysis' idle-time breakdown (hta/analyzers/breakdown_analysis.py,
BreakdownAnalysis._analyze_idle_time_for_stream: "host wait" when the kernel's runtime call
starts after the previous kernel on the stream ends); HTA's "kernel wait" (a gap under a
threshold) is part of "other" here, and "stream" is this module's own.
"""
from __future__ import annotations

import bisect

from ...trace.names import GPU_CATS, GRAPH_LAUNCHES, LAUNCH_CATS
from .intervals import Cover, covered_by
from .searches import FirstAtMost, LastAtLeast, LaunchOf
from .steps import is_step

# CPU calls that wait for the GPU: their time is not work the CPU had to do
SYNC_CALLS = ("cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
              "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cudaMemcpy")
# ROCm's, as PyTorch's ROCm build calls them (its CUDA code turned into HIP) and Kineto names
# them (HIP's runtime API names, under cuda_runtime: libkineto/src/RocprofActivity.h,
# RuntimeActivity::name and type). hipMemcpyWithStream is the blocking copy a ROCm build does
# where CUDA's does cudaMemcpyAsync and cudaStreamSynchronize (c10/cuda/CUDAFunctions.h,
# memcpy_and_sync, under TORCH_HIP_VERSION; HIP's reference: "akin to hipMemcpyAsync +
# hipStreamSynchronize ... a sync API"); Kineto pairs it with its copy like hipMemcpy
# (libkineto/src/RocprofActivity_inl.h, RuntimeActivity<T>::flowStart). HTA's ROCm 6.2 trace
# (tests/fixtures/corpus/hta/mi250.json.gz) holds hipMemcpyWithStream and hipDeviceSynchronize.
HIP_SYNC_CALLS = ("hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize", "hipMemcpy",
                  "hipMemcpyWithStream")
ALL_SYNC_CALLS = frozenset(SYNC_CALLS + HIP_SYNC_CALLS)
# the ATen operations that wait for the GPU because the host needs a value
COPY = "a copy (.to(), .cpu(), .copy_())"  # which way it went: COPY_WAYS, from the copy it launched
HOST_READS = {"aten::item": ".item()", "aten::_local_scalar_dense": ".item()",
              "aten::to": COPY, "aten::_to_copy": COPY, "aten::copy_": COPY,
              "aten::nonzero": "aten::nonzero (its size)"}
# Kineto names a GPU copy by its direction ("Memcpy DtoH (Device -> Pageable)"); a copy op
# whose launches hold none of these stays COPY
COPY_WAYS = (("DtoH", "a copy to the host (.cpu(), .to())"), ("HtoD", "a copy to the GPU (.to(), .cuda())"),
             ("DtoD", "a copy on the GPU (.copy_(), .to())"))
CAUSES = ("host", "stream", "other")
# an activity's op stack keeps the innermost this many op names: a stack of ops nested
# thousands deep (no profiler writes one) would otherwise cost its depth for each launch in it
MAX_STACK = 64


_KINDS = {}


def kind_of(e):
    """compute, communication (NCCL/RCCL collectives) or memory (copies and sets)."""
    if e.cat != "kernel":
        return "memory"
    found = _KINDS.get(e.name)
    if found is None:
        low = e.name.lower()
        found = _KINDS[e.name] = "communication" if "nccl" in low or "rccl" in low else "compute"
    return found


def _op_key(e):
    return (e.ts, -e.dur)


def _op_stacks(events, launches):
    """launch -> the names of the cpu_ops open on its thread at its start, outermost first,
    at most MAX_STACK (the innermost) (one sweep per thread; equal stacks are shared). At one
    start, ops come before launches and the longer op first; ties beyond that keep the
    trace's order."""
    ops_by_tid, launches_by_tid = {}, {}
    for e in events:
        if e.cat == "cpu_op":
            ops_by_tid.setdefault(e.tid, []).append(e)
    for e in launches:
        launches_by_tid.setdefault(e.tid, []).append(e)
    stacks, shared = {}, {}
    for tid, mine in launches_by_tid.items():
        ops = sorted(ops_by_tid.get(tid, ()), key=_op_key)
        mine.sort(key=_start_of)
        open_ops, names = [], []  # names[i]: the names of open_ops[:i + 1], made when a launch needs them
        i, n = 0, len(ops)
        for e in mine:
            ts = e.ts
            while i < n and ops[i].ts <= ts:
                op = ops[i]
                while open_ops and open_ops[-1].end < op.ts:
                    open_ops.pop()
                del names[len(open_ops):]
                open_ops.append(op)
                i += 1
            while open_ops and open_ops[-1].end < ts:
                open_ops.pop()
            del names[len(open_ops):]
            while len(names) < len(open_ops):
                t = (names[-1] if names else ()) + (open_ops[len(names)].name,)
                if len(t) > MAX_STACK:
                    t = t[1:]
                names.append(shared.setdefault(t, t))
            stacks[id(e)] = names[-1] if names else ()
    return stacks


def _start_of(e):
    return e.ts


def _end_of(e):
    return e.end


def _start_end(e):
    return (e.ts, e.end)


def _first(x):
    return x[0]


class Activity:
    """A GPU activity with what the explanation reads off it."""
    __slots__ = ("e", "launch", "stack", "stream", "kind", "gap", "cause", "prev", "label", "first")

    def __init__(self, e, launch, stack, stream):
        self.e, self.launch, self.stack, self.stream = e, launch, stack, stream
        self.first = True  # the first activity of its launch call (Timeline sets it)
        self.kind, self.gap, self.cause, self.prev, self.label = kind_of(e), 0.0, None, None, None

    @property
    def op(self):
        return self.stack[-1] if self.stack else None

    @property
    def graph(self):
        """Replayed from a captured graph (launched by GRAPH_LAUNCHES)."""
        return self.launch is not None and self.launch.name in GRAPH_LAUNCHES

    @property
    def delay(self):
        """From the end of its launch call to its start: of the first activity of each launch
        call only (None for the others, and without a launch call). A CUDA graph's replay is
        one cudaGraphLaunch for all its kernels: the later ones start after the earlier ones
        ran, not after a queue. One that starts before its call returns overlaps it: 0, no wait."""
        return None if self.launch is None or not self.first else max(0.0, self.e.ts - self.launch.end)


class Timeline:
    """Every GPU activity of the trace, by start, with its launch call and stream."""

    def __init__(self, events):
        gpu, launches, syncs, host_reads, steps = [], [], [], [], []
        for e in events:
            cat = e.cat
            if cat in GPU_CATS:
                gpu.append(e)
            elif cat in LAUNCH_CATS:
                launches.append(e)
                if e.name in ALL_SYNC_CALLS:
                    syncs.append(e)
            elif cat == "cpu_op":
                if e.name in HOST_READS:
                    host_reads.append((e.ts, e.end, HOST_READS[e.name], e.tid))
            elif cat == "user_annotation" and is_step(e.name):
                steps.append(e.ts)
        by_corr = LaunchOf(launches)
        stacks = _op_stacks(events, launches)
        gpu.sort(key=_start_end)
        self.acts = acts = []
        streams = {}  # (args, pid, tid) -> the stream: equal launch resources share one args dict
        launched = set()  # the launch calls with an activity so far (by start)
        for e in gpu:
            launch = by_corr.get(e.corr, e.ts) if e.corr is not None else None
            key = (id(e.args), e.pid, e.tid)
            stream = streams.get(key)
            if stream is None:
                stream = streams[key] = (e.args.get("device", e.pid), e.args.get("stream", e.tid))
            a = Activity(e, launch, stacks.get(id(launch), ()) if launch else (), stream)
            if launch is not None:
                a.first = id(launch) not in launched
                launched.add(id(launch))
            acts.append(a)
        self.syncs = sorted(syncs, key=_end_of)
        self.sync_ends = [e.end for e in self.syncs]
        self.host_reads = sorted(host_reads, key=_first)
        # the GPU copies by the start of their launch call: which way a copy op copied
        self.copy_launches = sorted(((a.launch.ts, a.launch.tid, a.e.name) for a in acts
                                     if a.launch is not None and a.e.cat == "gpu_memcpy"), key=_first)
        self.copy_starts = [c[0] for c in self.copy_launches]
        self.steps = sorted(steps)
        self.streams = sorted(set(streams.values()), key=str)
        self.busy_us = covered_by((a.stream, a.e.ts, a.e.end) for a in acts)  # by start: one pass
        union = self.union = []  # [start, end, first activity, activity that ends it]: the GPU running anything
        for a in acts:
            s, t = a.e.ts, a.e.end
            if union and s <= union[-1][1]:
                last = union[-1]
                if t > last[1]:
                    last[1], last[3] = t, a
            else:
                union.append([s, t, a, a])
        self.union_starts = [u[0] for u in union]
        # the idle time between busy stretches k - 1 and k: its cause, and each cause's
        # running sum up to k; the activity that opens each stretch, by id
        self.gap_causes, self.opens = [None], {id(u[2]): k for k, u in enumerate(union)}
        self.idle_before = {"host": [0.0], "other": [0.0]}
        for k in range(1, len(union)):
            cause = gap_cause(union[k][2], union[k - 1][1])
            self.gap_causes.append(cause)
            for c, before in self.idle_before.items():
                before.append(before[-1] + (union[k][0] - union[k - 1][1] if c == cause else 0.0))
        self._idle_per_stream()
        self._index()

    def _idle_per_stream(self):
        """Each activity's idle gap before it on its stream and the gap's cause: one pass.
        Within the gap its own stream runs nothing, so the other streams cover there what
        the whole GPU's busy time (the union) covers."""
        cover, last = Cover(self.union), {}
        for a in self.acts:
            prev = last.get(a.stream)
            if prev is not None and a.e.ts > prev.e.end:
                a.gap, a.prev = a.e.ts - prev.e.end, prev
                a.cause = self._cause(a, prev.e.end, cover)
            if prev is None or a.e.end > prev.e.end:
                last[a.stream] = a

    def _cause(self, a, idle_from, cover):
        if a.launch is not None and a.launch.ts > idle_from:
            return "host"
        if cover.covered(idle_from, a.e.ts) >= 0.5 * (a.e.ts - idle_from):
            return "stream"
        return "other"

    def _index(self):
        """Per thread: its synchronize calls by end, its host reads by start and its GPU
        copies by launch, each searched in O(log n) (model/searches.py)."""
        syncs, reads, copies = {}, {}, {}
        for s in self.syncs:
            syncs.setdefault(s.tid, []).append(s)
        self.syncs_by_tid = {tid: ([s.end for s in mine], FirstAtMost([s.ts for s in mine]), mine)
                             for tid, mine in syncs.items()}
        self.read_starts = [r[0] for r in self.host_reads]
        for i, r in enumerate(self.host_reads):
            reads.setdefault(r[3], []).append(i)
        self.reads_by_tid = {tid: (mine, LastAtLeast([self.host_reads[i][1] for i in mine]))
                             for tid, mine in reads.items()}
        for c in self.copy_launches:
            copies.setdefault(c[1], []).append(c)
        self.copies_by_tid = {tid: ([c[0] for c in mine], mine) for tid, mine in copies.items()}

    def opener(self, idle_from, launch):
        """What made the host issue `launch` only after the GPU ran dry at idle_from: a
        synchronize call or an op that reads a value on the host, or a profiler step.
        The sync: the first by end, from idle_from - 1 µs to the launch, on the launch's
        thread, that began by idle_from + 1 µs."""
        if launch is None:
            return None
        found = self.syncs_by_tid.get(launch.tid)
        if found is not None:
            ends, starts, mine = found
            i = starts.first(bisect.bisect_left(ends, idle_from - 1.0), idle_from + 1.0)
            if i >= 0 and mine[i].end <= launch.ts:
                return self._read_around(mine[i]) or mine[i].name
        j = bisect.bisect_right(self.steps, idle_from)
        if j < len(self.steps) and self.steps[j] <= launch.ts:
            return "a profiler step (prof.step())"
        return None

    def _read_around(self, sync):
        """The host read (by start, back from the sync's start) on the sync's thread that
        lasts past the sync's end, if none on any thread that began more than 10 s before
        the sync comes first."""
        found = self.reads_by_tid.get(sync.tid)
        if found is None:
            return None
        mine, ends = found
        p = bisect.bisect_right(self.read_starts, sync.ts) - 1
        j = ends.last(bisect.bisect_right(mine, p) - 1, sync.end)
        if j < 0:
            return None
        # the last read that began more than 10 s before the sync ends the search
        old = bisect.bisect_left(self.read_starts, False, hi=p + 1, key=lambda ts: not sync.ts - ts > 1e7) - 1
        if mine[j] < old:
            return None
        ts, end, what, tid = self.host_reads[mine[j]]
        return f"{sync.name} in {self._which_copy(ts, end, tid) if what == COPY else what}"

    def _which_copy(self, ts, end, tid):
        """The copy op's direction, from the GPU copy it launched between ts and end."""
        found = self.copies_by_tid.get(tid)
        if found is not None:
            starts, mine = found
            i = bisect.bisect_left(starts, ts)
            if i < len(mine) and mine[i][0] <= end:
                return next((label for way, label in COPY_WAYS if way in mine[i][2]), COPY)
        return COPY


def gap_cause(opener, idle_from):
    """host: the activity that ends the idle time was launched after it began (or has no
    launch call); other: it had been launched in time."""
    return "host" if opener.launch is None or opener.launch.ts > idle_from else "other"
