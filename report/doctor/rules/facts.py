"""The typed facts of --explain's rules: numbers, names and which case holds, never words.
output/said.py words each in the language asked for, from one catalog per language
(output/words_en.py, output/words_nb.py).

    LaunchBound    many short launches set the pace (and whether graphs replay already)
    HostWork       the host's own work between launches sets the pace
    OptimizerLoop  an optimizer that loops over parameters
    HandWritten    attention written by hand, or nn.MultiheadAttention's need_weights path
    NativeWeights  nn.MultiheadAttention's fast path computing its weights
    FastPathMask   the fast path given a mask (src_key_padding_mask): attention unfused
    BoolMask       SDPA gets a bool mask, and which pattern its shape suggests
    HeadDim        a head dim that is not a multiple of 8
    MathFallback   SDPA ran math, and the first group of calls that says why (or none)
    SlowBackend    SDPA ran efficient where flash could not, and why
    HostSync       the host waits for the GPU in the loop
    StepSync       a synchronize in every step lets the GPU run dry (a microbenchmark's pace)
    BiasInTraining a mask or bias through SDPA's backward
    ExposedComm    communication on a stream that compute does not hide, and what ran
    PaceOnly       the pace the first screen names, where no rule's remedy fits it: why
    GemmAlignment  a narrow-alignment GEMM kernel and the shapes its op recorded
    RepeatedKV     K and V repeated to the query's heads by hand before SDPA (GQA written out)
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LaunchBound:
    launches_per_range: float
    median_kernel_us: float
    median_gap_us: float  # the median wait for the host between two activities
    busy_share: float
    launch_delay_us: float
    decode_calls: int  # SDPA calls with one query (decoding)
    graphs_per_range: float | None  # captured graphs' replays per range, where they replay
    other_launches_per_range: float | None  # the launches per range outside them
    copies_outside: bool = False  # outside the graphs, copies alone (a graph's inputs into its buffers)


@dataclass(frozen=True)
class HostWork:
    waits: int  # the GPU's waits for the host in the scope
    median_gap_us: float
    over_us: float  # the threshold: longer than launching an op takes
    longest_us: float
    launch: str | None  # the launch call after the longest wait
    op: str | None  # and the op that made it
    kernel: str  # the activity after it


@dataclass(frozen=True)
class OptimizerLoop:
    name: str  # the optimizer's step range, less "Optimizer.step#"
    launches: float  # per optimizer step


@dataclass(frozen=True)
class HandWritten:
    chains: int  # matmul, softmax, matmul outside SDPA
    copies: int  # of them, with an out-of-place masked_fill copy of the scores
    need_weights: int  # of them, nn.MultiheadAttention's need_weights=True path (0: none)


@dataclass(frozen=True)
class NativeWeights:
    calls: int  # aten::_native_multi_head_attention calls without a fused attention op inside


@dataclass(frozen=True)
class FastPathMask:
    calls: int  # aten::_native_multi_head_attention calls with aten::_masked_softmax inside, no SDPA
    encoder_layer: int  # of them, inside nn.TransformerEncoderLayer's fast path (_transformer_encoder_layer_fwd)


@dataclass(frozen=True)
class BoolMask:
    calls: int
    mask: tuple  # the first group's mask shape
    time_us: float  # converting it (SDPA's preparation)
    pattern: str  # square (maybe causal), padding (per sequence) or other


@dataclass(frozen=True)
class HeadDim:
    head_dim: int
    calls: int
    time_us: float  # padding it (SDPA's preparation)


@dataclass(frozen=True)
class MathFallback:
    why: object  # the first math group's CallWhy (rules/call_why.py), None without recorded inputs


@dataclass(frozen=True)
class SlowBackend:
    why: object  # the first efficient group's CallWhy


@dataclass(frozen=True)
class HostSync:
    by: str  # what the largest idle gaps follow: a synchronize call, .item(), ...
    per_range_us: float


@dataclass(frozen=True)
class StepSync:
    by: str  # the synchronize call that ends each step's wait: cudaDeviceSynchronize, ...
    gap_us: float  # median: the GPU idle from the work it waited for to the next activity
    wait_us: float  # median: the host's time in it


@dataclass(frozen=True)
class BiasInTraining:
    calls: int  # efficient-attention backward calls with an attn_bias input


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
    launches_per_range: float | None = None  # the pace's figures the evidence names beside the gap (host)
    median_kernel_us: float | None = None
    few_or_long: bool = False  # host: the launches too few or the kernels too long for "many short kernels"
    queued: bool = True  # gpu: the launches queue ahead of it (else it is busy, launches not queued)


@dataclass(frozen=True)
class GemmAlignment:
    kernel: str  # short name
    alignments: tuple  # the alignN tags in its name
    op: str | None  # the op that launched it
    dims: tuple  # its recorded input dims, each a tuple; () when none are recorded
    unaligned: tuple  # the recorded sizes that are not multiples of 8


@dataclass(frozen=True)
class RepeatedKV:
    calls: int  # SDPA calls with K/V repeated before them
    repeats: int  # the repeats (K and V: two per call)
    op: str  # the first repeat's op: aten::repeat_interleave or aten::expand (then a copy)
    q_heads: int | None  # the query's heads (SDPA's recorded inputs), K and V's after the repeat
