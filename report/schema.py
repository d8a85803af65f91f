"""The shape of results.json, as types: what measure/ writes and render/ reads.

Every key is optional unless marked Required (old files lack newer keys, and a row that
did not run holds only its status and reason); keys not named here are kept and not
checked. report/schema_check.py walks a loaded file against these types (check). Every number
must be finite, non-negative and never subnormal; a time (Time), and a size or rate that the
renderers divide by (Positive), at least MIN_DIVISOR; a whole number (int: a count or a size)
at least 1, unless it is a Whole; a time or a spread of times (Spread, which may be zero) at
most MAX_TIME; any other number at most MAX_NUMBER.
"""
from typing import Any, Required, TypedDict

from .schema_ask import Eligibility
from .schema_types import MAX_NUMBER, MAX_TIME, MIN_DIVISOR, Number, Positive, Spread, Time, Whole

__all__ = ["MAX_NUMBER", "MAX_TIME", "MIN_DIVISOR", "Eligibility", "Number", "Positive", "Spread", "Time", "Whole"]


class Stats(TypedDict, total=False):
    """stats.py: stats, the summary every time of profiled steps is stored as."""
    median: Time
    min: Time
    max: Time
    mean: Time
    n: int
    quarters: list[Time]  # host figures: the median of each quarter of the pass
    spread_pct: Number


class HostStats(Stats, total=False):
    """measure/host.py: host overhead per call, and what it was measured beside."""
    calls: int
    slices: int
    warm: Whole
    per_small_op: Stats
    small_op_us: Stats
    first_calls: dict[str, Stats]
    gpu_kept_busy: Number


class Wall(TypedDict, total=False):
    """measure/timing.py: wall time per call over timed runs."""
    median: Time
    iqr: Spread
    runs: int
    calls_per_run: int


class Kernel(TypedDict, total=False):
    """trace/analyze.py: one GPU activity of a forward pass (a kernel, Memcpy or Memset)."""
    name: str
    short_name: str
    kind: str
    launched_by: str | None
    aten_op: str | None
    aten_stack: list[str]
    cause: str
    calls: int
    total_us: Time
    per_forward: Number
    avg_us: Time
    registers_per_thread: int | None
    shared_memory: Whole | None
    block: list[int] | None
    grid: list[int] | None
    kineto_occupancy_pct: Number | None
    our_kineto_rule_pct: Number
    our_optin_pct: Number
    our_optin_blocks: Whole
    our_optin_limited_by: list[str]


class Attribution(TypedDict, total=False):
    us_per_forward: Time
    activities_per_forward: Number


class Round(TypedDict, total=False):
    """measure/rounds.py: one round of one variant at the seed's shape: a short profile,
    the wall timer and the round's host pass; a round that failed holds "error"."""
    kernel_sum_us: Stats | None
    cuda_time_us: Stats | None
    cpu_time_us: Stats | None
    wall_time_us: Wall | None
    host_time_us: HostStats | None
    error: str
    host_error: str


class VariantRow(TypedDict, total=False):
    """measure/seed.py: one variant at the seed's shape. Beside each figure, the code that
    measures it."""
    status: str  # "ok", or measure/guard.py's "oom", "unsupported", "error"
    reason: str | None
    first_call_ms: Time | None  # measure/guard.py: timed_call_ms
    rel_error: Number | None  # measure/seed.py: _timings, against a float64 reference
    peak_extra_mib: Number | None  # measure/guard.py: peak_extra_mib
    wall_time_us: Wall | None  # measure/timing.py: wall_us
    profiler_table: str  # measure/seed.py: _profile, torch.profiler's key_averages table
    steps: int
    cpu_time_us: Stats | None  # trace/analyze.py: analyze_trace, the profiled CPU range
    cuda_time_us: Stats | None  # trace/analyze.py: _gpu_times, the GPU span per forward
    kernel_sum_us: Stats | None  # trace/analyze.py: _gpu_times, the sum of GPU activity per forward
    launch_api_us: Stats | None  # trace/analyze.py: activities_per_step
    gpu_activities_per_forward: Stats | None  # trace/analyze.py: _gpu_times
    kernels: list[Kernel]  # trace/analyze.py: _kernel_table; occupancy: trace/kernel_occupancy.py
    attribution: dict[str, Attribution]  # trace/analyze.py: attribution, causes from trace/causes.py
    cpu_ops_per_forward: dict[str, Number]  # trace/analyze.py: analyze_trace
    backend_ran: str | None  # trace/names.py: backend_of_kernels
    tflops: Number | None  # measure/seed.py: _gpu_figures
    label: str
    host_time_us: HostStats | None  # measure/host.py: host_overheads, stored by measure/seed.py: measure_host
    rounds: list[Round]  # measure/rounds.py: measure_round, the compared figures again per round (process)


class FreshProcess(TypedDict, total=False):
    """measure/first_call_child.py: one fused backend's first calls in a fresh process."""
    status: str
    reason: str | None
    import_torch_ms: Time
    setup_ms: Time
    first_call_ms: Time
    same_shape_again_ms: Time
    first_new_shape_ms: Time
    new_shape_again_ms: Time
    new_thread_first_ms: Time
    new_thread_again_ms: Time
    new_thread_error: str
    process_s: Time


class FirstCallsRow(TypedDict, total=False):
    """measure/first_calls.py: a fused backend's first call, taken apart."""
    status: str
    reason: str | None
    first_in_process_ms: Time | None
    same_shape_again_ms: Time | None
    first_new_shape_ms: Time | None
    new_shape_again_ms: Time | None
    rounds: list[FreshProcess]  # measure/first_calls.py: fresh_process_rounds, one per round


class FirstCalls(TypedDict, total=False):
    new_shape: dict[str, int]
    rows: dict[str, FirstCallsRow]


class SmallRound(TypedDict, total=False):
    """measure/rounds.py: one round of one variant at the small shape of overhead.py."""
    kernel_sum_us: Stats | None
    cuda_time_us: Stats | None
    cpu_time_us: Stats | None
    eager_wall_us: Wall | None
    graph_wall_us: Wall | None
    error: str
    graph_error: str


class OverheadRow(TypedDict, total=False):
    """measure/overhead.py: eager calls against CUDA graphs, per shape."""
    status: str
    reason: str | None
    kernel_sum_us: Stats | None
    cuda_time_us: Stats | None
    cpu_time_us: Stats | None
    eager_wall_us: Wall | None
    graph_wall_us: Wall | None
    rounds: list[SmallRound]  # the small shape only: measure/rounds.py


class Overhead(TypedDict, total=False):
    shapes: dict[str, dict[str, int]]
    rows: dict[str, dict[str, OverheadRow]]


class BackwardRow(TypedDict, total=False):
    """measure/backward.py: one training step (forward and backward)."""
    status: str
    reason: str | None
    first_call_ms: Time | None
    peak_extra_mib: Number | None
    wall_time_us: Wall | None
    cuda_time_us: Stats | None
    kernel_sum_us: Stats | None
    cpu_time_us: Stats | None
    gpu_activities_per_forward: Stats | None
    kernels: list[Kernel]


class Backward(TypedDict, total=False):
    config: dict[str, int]
    rows: dict[str, BackwardRow]


class SweepPoint(TypedDict, total=False):
    """measure/sweep.py: one variant at one sequence length and head size."""
    variant: Required[str]
    status: Required[str]
    reason: str | None
    batch: int
    heads: int
    seq_len: int
    head_dim: int
    backend_ran: str | None
    cuda_time_us: Stats | None
    cpu_time_us: Stats | None
    kernel_sum_us: Stats | None
    wall_time_us: Wall | None
    peak_extra_mib: Number | None
    tflops: Number | None


class Sweep(TypedDict, total=False):
    batch: int
    heads: int
    dtype: str
    seq_lens: list[int]
    head_dims: list[int]
    steps: int
    points: list[SweepPoint]


class ShapePoint(TypedDict, total=False):
    """measure/shape_runs.py: one variant at one of today's shapes."""
    family: Required[str]
    variant: Required[str]
    status: Required[str]
    reason: str | None
    batch: int
    q_heads: int
    kv_heads: int
    q_len: int
    kv_len: int
    head_dim: int
    window: int | None
    kv_bytes: Positive
    io_bytes: Positive
    flops: Positive
    first_call_ms: Time | None
    rel_error: Number | None
    peak_extra_mib: Number | None
    wall_time_us: Wall | None
    host_time_us: HostStats | None
    cuda_time_us: Stats | None
    kernel_sum_us: Stats | None
    cpu_time_us: Stats | None
    gpu_activities_per_forward: Stats | None
    kernels: list[Kernel]
    backend_ran: str | None
    block_sparsity_pct: Number | None


class CopyRoof(TypedDict, total=False):
    bytes: Positive
    median_ms: Time
    min_ms: Time
    max_ms: Time
    gb_per_s: Positive


class Shapes(TypedDict, total=False):
    config: dict[str, Any]
    copy_roof: CopyRoof
    points: list[ShapePoint]


class Roof(TypedDict, total=False):
    """measure/roof.py: the matmul roof of this GPU."""
    shape: list[int]
    dtype: str
    tflops: Positive
    median_ms: Time


class ExpRoof(TypedDict, total=False):
    """measure/roof.py: measure_exp_roof, the special-function (exp) rate of this device."""
    status: Required[str]  # "ok", or "error" with its reason
    reason: str | None
    how: str
    dtype: str
    elements: int
    exps_per_element: int
    median_ms: Time
    min_ms: Time
    max_ms: Time
    copy_ms: Time  # one read and one write of the same tensor: the chain is not memory-bound
    exps_per_s: Number


class NcuRow(TypedDict, total=False):
    status: str
    reason: str | None
    # measure/ncu.py: METRICS and the keys of EXTRA (dram_read_bytes, dram_write_bytes,
    # tensor_pct, tensor_hmma_pct, gmma_inst, xu_pct) per kernel; runs before tensor_pct
    # asked for tensor_gmma_pct, which H200's ncu does not have
    kernels: dict[str, dict[str, Number | None]]
    metrics_error: str  # why ncu refused the whole set of metrics (measure/ncu.py: ncu_row)
    metrics_dropped: list[str]  # the keys left out after that refusal


class Ncu(TypedDict, total=False):
    status: str
    reason: str | None
    rows: dict[str, NcuRow]
    metrics: dict[str, str]  # measure/ncu.py: key -> the ncu metric recorded under it
    metrics_missing: dict[str, str]  # key -> why it was not recorded (no such metric on this GPU)


class PairRound(TypedDict, total=False):
    """measure/pairs.py: measure_group, one round of one group: per entry its blocks'
    times in µs per call, one per pair in the order measured, and each pair's ratio to the
    group's reference (the reference itself has no ratio); a round that failed holds
    "error"."""
    calls_per_block: dict[str, int]
    blocks_us: dict[str, list[Time]]
    ratio: dict[str, list[Number]]
    refused: dict[str, str]  # entries left out, with why
    seconds: Number  # how long the round took: a round that failed at once takes next to none
    error: str


class PairGroup(TypedDict, total=False):
    """measure/pair_groups.py: one comparison: its timer ("wall" or "host"), its shape
    and one entry per round."""
    metric: Required[str]
    shape: dict[str, int]
    block_ms: Time  # this group's block aim, where it is not Pairs.block_ms (training's is longer)
    rounds: Required[list[PairRound]]


class Pairs(TypedDict, total=False):
    """measure/pair_groups.py: settings and measure_round, paired and interleaved timing (one
    round per fresh process: measure/round_processes.py)."""
    pairs: int
    seed: Whole
    block_ms: Time
    min_calls: int
    max_calls: int
    warm_calls: Whole
    order: str
    rounds: int
    reference: str
    seconds: list[Number]  # per round, as Rounds.seconds: a failed round takes next to none
    groups: dict[str, PairGroup]


class RoundProcess(TypedDict, total=False):
    """measure/round_child.py: one round's fresh process, its parts' seconds (warm_s: each
    variant's first calls, Flex's compile among them); "error" where it gave no figures."""
    seconds: Number
    import_torch_s: Number
    setup_s: Number
    warm_s: dict[str, Number]
    warm_errors: dict[str, str]
    rounds_s: Number
    pairs_s: Number
    error: str


class Rounds(TypedDict, total=False):
    """measure/rounds.py: settings, what each round measured per variant, and its seconds."""
    count: int
    profile_steps: int
    timer_seconds: Number
    host_calls: int
    unit: str  # "process": each round in a fresh process (runs before December 2026: one process)
    order: str
    seconds: list[Number]
    processes: list[RoundProcess]
    small_error: str


class Provenance(TypedDict, total=False):
    """measure/run.py: what the run was measured with and where (torch, cuda, cudnn, driver,
    code_sha256, ...: kept, not checked here). `host`: a stable, non-identifying id of the
    machine (a hash, never a host name); no run records it yet (issue 51). Runs that name one
    host are one unit of replication when reruns are pooled (verdict/across_runs.py: pooling)."""
    host: str


class Results(TypedDict, total=False):
    """A whole results.json (measure/run.py writes it, results.py loads it)."""
    schema_version: Required[int]
    generated_by: str
    provenance: Required[Provenance]
    config: Required[dict[str, Any]]
    roof: Required[Roof]
    fp32_roof: Roof  # measure/roof.py: measure_fp32_roof (runs before December 2026 lack it)
    variants: Required[dict[str, VariantRow]]
    first_calls: FirstCalls | None
    overhead: Overhead | None
    backward: Backward | None
    sweep: Sweep | None
    shapes: Shapes | None
    ncu: Ncu | None
    eligibility: Eligibility | None
    eligibility_error: str
    rounds: Rounds
    rounds_error: str
    pairs: Pairs
    pairs_error: str
    exp_roof: ExpRoof
    first_calls_rounds_error: str
    phase_seconds: dict[str, Number]  # measure/run.py: Phases
