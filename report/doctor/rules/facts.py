"""The typed facts of --explain's newer rules (rules/remedies.py): numbers and which case
holds, never words; rules/wording.py words each, in one place.

    ExposedComm    communication on a stream that compute does not hide, and what ran
    PaceOnly       the pace the first screen names, where no rule's remedy fits it: why
    GemmAlignment  a narrow-alignment GEMM kernel and the shapes its op recorded
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExposedComm:
    device: object
    stream: object
    comm_us: float  # the stream's communication busy time
    share: float  # of the device's GPU busy time
    overlap_share: float  # of comm_us, with compute running on the device
    collectives: tuple  # all_reduce, all_gather, reduce_scatter, ... by time, most first
    fsdp: bool  # the trace's ops name FSDP
    ddp: bool  # the trace's ops name DistributedDataParallel


@dataclass(frozen=True)
class PaceOnly:
    paced_by: str  # host, gpu, sync, waiting (result_types.Pace)
    top_kernel: str | None  # the longest GPU activity's short name (gpu)
    top_share: float | None  # its share of GPU activity time
    graphs_replay: bool  # captured graphs replay in the trace
    median_gap_us: float | None  # the median wait for the host between two activities (host)
    other_idle_share: float | None  # the range's idle time with its work launched (waiting)


@dataclass(frozen=True)
class GemmAlignment:
    kernel: str  # short name
    alignments: tuple  # the alignN tags in its name
    op: str | None  # the op that launched it
    dims: tuple  # its recorded input dims, each a tuple; () when none are recorded
    unaligned: tuple  # the recorded sizes that are not multiples of 8
