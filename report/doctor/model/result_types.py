"""The typed result of `--explain`: what `--format json` writes and what the text and the
page render from. Standard library only (it runs in the browser's Pyodide too).

    Result        the diagnosis (pace, attention, findings) and the detail (explain.py's
                  dict: kernels, streams, ranges); reads as that dict where a key is asked
    to_json(r)    the result as JSON-ready values, schema SCHEMA, version VERSION

The JSON document (version 1), every time in µs, every share a fraction of 1:
    schema, version        "sdpa-trace-doctor", 1
    pace                   scope (the range the verdict is of), verdict (CPU-bound, GPU-bound,
                           stalled, CPU only), paced_by (host, gpu, sync, waiting, none),
                           evidence (one line), busy_share, host_wait_share, launches_per_range,
                           median_kernel_us, launch_delay_us, sync_wait_us, profiler_us, case
                           (which evidence holds: paced, no_range, cpu_only), activities_per_range,
                           with_stack
    attention              [{backend, direction, calls, gpu_us, share, fallback, inputs,
                           why, remedy, shapes, reasons, warnings, source, causes, copies, parsed,
                           told}]: per backend and per group of calls with equal inputs (reasons:
                           keys of rules/why.py; source: "table" where the recorded eligibility
                           table answered; causes: SDPA's preparation by cause key; copies: masked_fill
                           copies; parsed: the recorded inputs; told: why, as facts, rules/call_why.py)
    attention_note         a line where the trace lacks what attention needs (shapes), else null
    note                   its key (no_inputs), else null
    findings               [{rule, title, time_us, share, evidence, remedy, source, fact}], largest
                           first; fact: the rule's typed fact as a dict (its fields), or null
The words (evidence, inputs, why, remedy, warnings, attention_note, title, source) are English,
output/said.py's of the facts beside them, in every language the text is asked in.
    graphs                 {replays, activities, gpu_us, share, per_range, other_launches_per_range}
                           where captured graphs replay, else null
    communication          [{device, stream, comm_us, share, overlap_share}]: per stream with
                           NCCL/RCCL kernels
    detail                 explain.py's dict made JSON-ready (tuples as lists, keys as text)
    screen                 the first screen's sentences whole, in its order and words, by section:
                           [{heading (null for the closing lines), lines: [{text, level (0, 1, 2:
                           its indent), kind (pace, graphs, communication, backend, call, warning,
                           note, finding, evidence, remedy, none, more)}]}]: what the text's first
                           screen says, in the language asked; the page's card renders it
                           (explain.py's explain_json adds it: output/text_report.py words it)
A float that is not finite is written as null: the readers keep none of the trace's as a
figure (a launch resource of 1e400 is malformed, model/kernel_rows.py), and this is the last guard.
A new field raises no version; a field renamed, removed or changed in meaning raises VERSION.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

SCHEMA, VERSION = "sdpa-trace-doctor", 1
BUSY_SHARE = 0.9  # GPU-bound needs the GPU busy for at least this share of the window
HOST_SHARE = 1 - BUSY_SHARE  # CPU-bound: the GPU waits for the host for this share or more
# a median launch delay of this or more: the launches queue ahead of the GPU, which is behind
# the host (HTA's queue length per stream, read off the delay); the GPU sets the pace even where
# the host waits elsewhere in the range (after a synchronize, say): the host_sync rule names those
QUEUE_US = 50.0


def pace_verdict(host_share, busy_share, launch_delay_us):
    """CPU-bound, GPU-bound or stalled: the range rule (explain.py), one place for its users.
    A wait for the host beside a deep queue is not the host's pace: GPU-bound."""
    if host_share >= HOST_SHARE:
        return "GPU-bound" if launch_delay_us is not None and launch_delay_us >= QUEUE_US else "CPU-bound"
    return "GPU-bound" if busy_share >= BUSY_SHARE else "stalled"
WHOLE_TRACE = "(whole trace)"


@dataclass
class Pace:
    scope: str
    verdict: str
    paced_by: str
    evidence: str | None = None  # the English words of the figures below (the JSON's), set by explain.py
    busy_share: float | None = None
    host_wait_share: float | None = None
    launches_per_range: float | None = None
    median_kernel_us: float | None = None
    launch_delay_us: float | None = None
    sync_wait_us: float | None = None
    profiler_us: float | None = None
    case: str = "paced"  # which evidence holds: paced, no_range (none with GPU work), cpu_only
    activities_per_range: float | None = None
    with_stack: bool = False  # recorded with_stack=True: Python stacks add to every op's host time


@dataclass
class AttentionRow:
    backend: str | None
    direction: str
    calls: int
    gpu_us: float | None = None
    share: float | None = None
    fallback: bool = False
    inputs: str | None = None
    why: str | None = None
    remedy: str | None = None
    shapes: bool | None = None
    reasons: list = field(default_factory=list)  # rules/why.py's keys: not_4d, mask, pinned, ...
    warnings: list = field(default_factory=list)  # correctness warnings (causal_top_left), one line each
    source: str | None = None  # "table": PyTorch's recorded answer (rules/asked_table.py); "rule": the doctor's
    # the facts the words above are of (inputs, why, remedy, warnings: English, set by explain.py)
    causes: dict = field(default_factory=dict)  # SDPA's preparation: cause key -> its GPU time
    copies: int = 0  # hand-written attention: chains with an out-of-place masked_fill copy
    parsed: object = None  # a group of calls' recorded inputs (model/sdpa_inputs.Inputs)
    told: object = None  # why that group ran its backend (rules/call_why.CallWhy)


@dataclass
class Finding:
    """A rule's finding: its typed fact (rules/facts.py) and the time at stake. The words
    (title, evidence, remedy, source) are the fact's in English, the JSON's (schema version 1),
    set by explain.py from output/said.py; the text words the fact in the language asked for."""
    rule: str
    title: str | None = None
    time_us: float = 0.0
    share: float = 0.0
    evidence: str | None = None
    remedy: str | None = None
    source: str | None = None
    fact: object = None


@dataclass
class GraphReplay:
    """Captured graphs replayed in the trace (cudaGraphLaunch, hipGraphLaunch): the replays
    with GPU work, their activities and time, and in the pace's scope per range the replays
    and the other launch calls (None without ranges)."""
    replays: int
    activities: int
    gpu_us: float
    share: float
    per_range: float | None = None
    other_launches_per_range: float | None = None


@dataclass
class CommStream:
    """One stream's communication (NCCL/RCCL kernels): their busy time, its share of the
    device's GPU busy time, and the share of it during which compute kernels run on the
    device (HTA's communication-computation overlap)."""
    device: object
    stream: object
    comm_us: float
    share: float
    overlap_share: float


@dataclass
class Result(Mapping):
    pace: Pace
    attention: list[AttentionRow]
    attention_note: str | None
    findings: list[Finding]
    detail: dict = field(repr=False)
    graphs: GraphReplay | None = None
    communication: list[CommStream] = field(default_factory=list)
    note: str | None = None  # attention_note's fact: "no_inputs" (SDPA calls, no recorded inputs) or None
    schema: str = SCHEMA
    version: int = VERSION

    # the detail's keys, as explain() returned them before the diagnosis
    def __getitem__(self, key):
        return self.detail[key]

    def __iter__(self):
        return iter(self.detail)

    def __len__(self):
        return len(self.detail)


def _ready(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _ready(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k) if not isinstance(k, tuple) else " ".join(map(str, k)): _ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_ready(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no inf or NaN: a figure that is none is null, never a failed write
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def to_json(result):
    """The result as JSON-ready values (the schema above)."""
    return {"schema": result.schema, "version": result.version, "pace": _ready(result.pace),
            "attention": [_ready(r) for r in result.attention], "attention_note": result.attention_note,
            "findings": [_ready(f) for f in result.findings], "graphs": _ready(result.graphs),
            "communication": [_ready(c) for c in result.communication], "detail": _ready(result.detail)}
