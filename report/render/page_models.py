"""The model before the measurement on the pages after "Naive attention vs math": occupancy,
scaling, today's shapes and training. Each is a few lines of arithmetic a reader can redo,
worked out from the run's shapes and from what the same run measured about the GPU (its
memory, registers per SM, copy bandwidth, matmul roof); then one generated sentence says
whether the measurement agrees. Modelled figures and measured ones are labelled as such.

Every function returns the "not measured" line where the run lacks what it needs, so the
pages can include the file from any run.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..rows import kernel_time
from ..text.catalog import t
from ..text.format import fmt_bytes, fmt_num, fmt_pct, fmt_ratio, fmt_sig, fmt_us
from ..trace.kernel_occupancy import registers_per_block
from ..variants import FUSED
from ..verdict import median
from . import prose
from .extra_tables import point_time
from .findings.common import compute_kernel, ok
from .markdown import label, md_table
from .memory_model import DTYPE_BYTES, ceilings, sizes
from .prose import Data
from .shape_points import backend_name, fastest, grouped, points

GIB = 2**30
# the variants whose extra memory holds whole score matrices, and the element size of theirs
QUADRATIC = {"naive": None, "math": 4}  # None: the input's dtype; math computes in FP32


def _missing(lang):
    return t("finding.missing", lang)


# --- occupancy -------------------------------------------------------------------------

@dataclass(frozen=True)
class OccupancyModel:
    """The SM's registers and warps, the GPU's SMs, and for the first fused backend's
    compute kernel: registers × threads per block (as handed out), the blocks the registers
    alone leave room for, the calculator's blocks, warps, share of the SM's warps (%), the
    grid and the waves it makes."""
    regs_sm: int
    max_warps: int
    sms: int | None
    kernel: Data
    regs: int
    threads: int
    per_block: int
    by_regs: int | None
    blocks: int
    warps: int
    pct: float
    grid: int
    waves: float


def occupancy_model(results, lang):
    """Registers × threads per block against the SM's register file, for the compute
    kernel of each fused backend at the seed's shape; blocks per SM, warps, and how many
    waves the grid makes over the SMs. The blocks per SM are the calculator's (with the
    kernel's shared-memory opt-in); the register line shows where the register limit
    comes from. The sentences: report/text/templates/model-occupancy.<lang>.md.j2."""
    prov = results["provenance"]
    regs_sm, max_warps, sms = prov.get("regs_per_sm"), prov.get("max_warps_per_sm"), prov.get("sm_count")
    rows, first = [], None
    for name in FUSED:
        row = ok(results, name)
        k = compute_kernel(row) if row else None
        if not k or k.get("registers_per_thread") is None or k.get("our_optin_blocks") is None:
            continue
        threads = math.prod(k["block"])
        _, per_block = registers_per_block(k["registers_per_thread"], threads)
        by_regs = regs_sm // per_block if regs_sm else None
        blocks = k["our_optin_blocks"]
        warps = threads // 32 * blocks
        grid = math.prod(k["grid"]) if k.get("grid") else None
        waves = grid / (sms * blocks) if grid and sms and blocks else None
        rows.append([label(name, lang),
                     f"{k['registers_per_thread']} × {threads} → {fmt_num(per_block, lang, 0)}",
                     fmt_num(by_regs, lang, 0) if by_regs is not None else "–",
                     fmt_num(blocks, lang, 0), f"{warps}/{max_warps}",
                     fmt_pct(100 * warps / max_warps, lang) if max_warps else "–",
                     fmt_sig(waves, lang, 2) if waves else "–"])
        first = first or (k, threads, per_block, by_regs, blocks, warps, grid, waves)
    if not rows or not regs_sm or not max_warps:
        return _missing(lang)
    k, threads, per_block, by_regs, blocks, warps, grid, waves = first
    fact = OccupancyModel(regs_sm, max_warps, sms, Data(k["short_name"]), k["registers_per_thread"], threads, per_block,
                          by_regs, blocks, warps, 100 * warps / max_warps, grid or 0, waves or 0)
    table = md_table([t("col.variant", lang), t("col.model_regs_block", lang), t("col.model_by_regs", lang),
                      t("col.blocks_sm", lang), t("col.model_warps", lang), t("col.model_occ", lang),
                      t("col.model_waves", lang)], rows)
    return prose.render("model-occupancy", lang, {"occupancy": fact, "table": table})


def occupancy_check(results, lang):
    """Kineto's figure against the model's, kernel by kernel (the same rule: the default
    shared-memory limit and the grid), in one sentence: report/text/templates/
    model-occupancy-check.<lang>.md.j2 over (the backends that agree, those that differ)."""
    pairs = []
    for name in FUSED:
        row = ok(results, name)
        k = compute_kernel(row) if row else None
        if k and k.get("kineto_occupancy_pct") is not None and k.get("our_kineto_rule_pct") is not None:
            pairs.append((name, k))
    if not pairs:
        return _missing(lang)
    # Kineto rounds half up (12.5 % shows as 13 %)
    agree = tuple(n for n, k in pairs if math.floor(k["our_kineto_rule_pct"] + 0.5) == round(k["kineto_occupancy_pct"]))
    return prose.render("model-occupancy-check", lang,
                        {"agree": agree, "differ": tuple(n for n, _ in pairs if n not in agree)})


# --- scaling ---------------------------------------------------------------------------

def _sweep_point(sweep, variant, seq_len, head_dim):
    return next((p for p in sweep["points"] if p["variant"] == variant and p["seq_len"] == seq_len
                 and p["head_dim"] == head_dim), None)


@dataclass(frozen=True)
class ScalingModel:
    """The sweep's shape, the score matrix's bytes at the seed's length (`ref_len`) and at
    the longest (`top`), the GPU's memory (GiB), and per quadratic variant (variant, score
    matrices it held at ref_len, bits per element)."""
    batch: int
    heads: int
    head_dim: int
    dtype: Data
    ref_len: int
    ref_score: int
    top: int
    top_score: int
    memory: float
    held: tuple[tuple[str, float, int], ...]


def scaling_model(results, lang):
    """The score matrix grows with L²: its size at each sweep length, how many score
    matrices the hand-written version and math held at the seed's length (measured), and
    from that the memory each would need at every length, against the GPU's memory; the
    measured peaks and out-of-memory points beside it."""
    sweep, prov = results.get("sweep"), results["provenance"]
    memory = prov.get("gpu_memory_gib")
    if not sweep or not memory:
        return _missing(lang)
    d = sweep["head_dims"][0]
    b, h = sweep["batch"], sweep["heads"]
    elem = DTYPE_BYTES.get(sweep.get("dtype"), 2)
    lens = sweep["seq_lens"]
    ref_len = results["config"]["seq_len"] if results["config"]["seq_len"] in lens else lens[0]

    def score(n, size):
        return b * h * n * n * size

    held, fails = {}, {}
    for variant, size in QUADRATIC.items():
        p = _sweep_point(sweep, variant, ref_len, d)
        if not (p and p["status"] == "ok" and p.get("peak_extra_mib")):
            continue
        size = size or elem
        held[variant] = (size, p["peak_extra_mib"] * 2**20 / score(ref_len, size))
        fails[variant] = next((n for n in lens if held[variant][1] * score(n, size) > memory * GIB), None)
    if not held:
        return _missing(lang)
    rows = []
    for n in lens:
        cells = [fmt_num(n, lang, 0), fmt_bytes(score(n, elem), lang)]
        for variant, (size, k) in held.items():
            p = _sweep_point(sweep, variant, n, d)
            cells.append(fmt_bytes(k * score(n, size), lang))
            cells.append(fmt_bytes(p["peak_extra_mib"] * 2**20, lang) if p and p["status"] == "ok"
                         else t("value.oom" if p and p["status"] == "oom" else "value.none", lang))
        rows.append(cells)
    headers = [t("col.model_seq_len", lang), t("col.model_score", lang, dtype=sweep.get("dtype"))]
    for variant in held:
        headers += [t("col.model_modelled", lang, variant=label(variant, lang)),
                    t("col.model_measured", lang, variant=label(variant, lang))]
    fact = ScalingModel(b, h, d, Data(sweep.get("dtype")), ref_len, score(ref_len, elem), lens[-1],
                        score(lens[-1], elem), memory, tuple((v, k, 8 * size) for v, (size, k) in held.items()))
    return prose.render("model-scaling", lang, {"scaling": fact, "table": md_table(headers, rows)})


def scaling_check(results, lang):
    """Where the model says each quadratic variant runs out of memory, and where it did:
    (variant, predicted length, measured length; None: room at every length) for
    report/text/templates/model-scaling-check.<lang>.md.j2."""
    sweep, memory = results.get("sweep"), results["provenance"].get("gpu_memory_gib")
    if not sweep or not memory:
        return _missing(lang)
    d, lens = sweep["head_dims"][0], sweep["seq_lens"]
    ref_len = results["config"]["seq_len"] if results["config"]["seq_len"] in lens else lens[0]
    elem = DTYPE_BYTES.get(sweep.get("dtype"), 2)
    lines = []
    for variant, size in QUADRATIC.items():
        p = _sweep_point(sweep, variant, ref_len, d)
        if not (p and p["status"] == "ok" and p.get("peak_extra_mib")):
            continue
        size = size or elem
        k = p["peak_extra_mib"] * 2**20 / (sweep["batch"] * sweep["heads"] * ref_len**2 * size)
        predicted = next((n for n in lens if k * sweep["batch"] * sweep["heads"] * n * n * size > memory * GIB), None)
        measured = next((n for n in lens if (q := _sweep_point(sweep, variant, n, d)) and q["status"] == "oom"), None)
        lines.append((variant, predicted, measured))
    return prose.render("model-scaling-check", lang, {"checks": tuple(lines)}) if lines else _missing(lang)


# --- today's shapes: decode -------------------------------------------------------------

def decode_model(results, lang):
    """Decode reads the KV cache once: its bytes at the measured copy bandwidth are the
    time floor of one call. Per decode run and KV length: bytes, floor, the fastest
    measured kernel time and, beside it, the CPU's time to issue that call."""
    bandwidth, _ = ceilings(results)
    pts = points(results, "decode")
    if not bandwidth or not pts:
        return _missing(lang)
    rows = []
    for (q_len, batch), by_variant in grouped(pts).items():
        for kv in sorted({kv for per in by_variant.values() for kv in per}):
            best = fastest([per.get(kv) for per in by_variant.values()])
            if not best:
                continue
            floor = best["io_bytes"] / bandwidth
            host = median(best.get("host_time_us")) if best.get("host_time_us") else None
            ran = backend_name(best.get("backend_ran") or best["variant"])
            rows.append([fmt_num(q_len, lang, 0), fmt_num(batch, lang, 0), fmt_num(kv, lang, 0),
                         fmt_bytes(best["io_bytes"], lang), fmt_us(floor, lang),
                         f"{fmt_us(point_time(best), lang)} ({ran})",
                         fmt_ratio(point_time(best) / floor, lang), fmt_us(host, lang)])
    if not rows:
        return _missing(lang)
    copy = results["shapes"]["copy_roof"]
    table = md_table([t("col.shapes_q_len", lang), t("col.shapes_batch", lang), t("col.shapes_kv_len", lang),
                      t("col.model_bytes", lang), t("col.model_floor", lang), t("col.model_fastest", lang),
                      t("col.model_over_floor", lang), t("col.host_time", lang)], rows)
    share = 100 * min(p["kv_bytes"] / p["io_bytes"] for p in pts if p.get("io_bytes"))
    return prose.render("model-decode", lang, {"table": table, "copy": copy, "share": share})


@dataclass(frozen=True)
class DecodeCheck:
    """The fastest backend's kernel time over the floor (its bytes at the copy bandwidth):
    lowest and highest, at the smallest and the largest cache (with their bytes); at how
    many of the points with a host overhead (`hosted`, 0: none) it exceeded the kernel time."""
    low: float
    high: float
    short: float
    short_bytes: int
    long: float
    long_bytes: int
    cpu_bound: int
    hosted: int


def decode_check(results, lang):
    """How close the fastest kernel came to the floor at the shortest and the longest
    cache, and at how many points the CPU's time per call exceeded the kernel time."""
    bandwidth, _ = ceilings(results)
    pts = points(results, "decode")
    best = []
    for by_variant in grouped(pts).values():
        for kv in {kv for per in by_variant.values() for kv in per}:
            p = fastest([per.get(kv) for per in by_variant.values()])
            if p:
                best.append(p)
    if not bandwidth or not best:
        return _missing(lang)
    ratios = sorted(point_time(p) / (p["io_bytes"] / bandwidth) for p in best)
    short = min(best, key=lambda p: p["io_bytes"])
    long = max(best, key=lambda p: p["io_bytes"])
    hosted = [p for p in best if p.get("host_time_us")]
    cpu_bound = [p for p in hosted if median(p["host_time_us"]) > point_time(p)]
    floor = lambda p: point_time(p) / (p["io_bytes"] / bandwidth)  # noqa: E731
    return prose.render("model-decode-check", lang, {"check": DecodeCheck(
        ratios[0], ratios[-1], floor(short), short["io_bytes"], floor(long), long["io_bytes"], len(cpu_bound),
        len(hosted))})


# --- training --------------------------------------------------------------------------

@dataclass(frozen=True)
class TrainingModel:
    """A training step's arithmetic and memory at the backward pass's shape: the forward's
    causal FLOP, the score matrix's and the output's bytes, one float per row; the step's
    time at the matmul roof (None without it) and the roof (TFLOP/s)."""
    flops_causal: float
    s_bytes: int
    out_bytes: int
    stats_bytes: int
    step_us: float | None
    roof: float | None


def training_model(results, lang):
    """Backward does about twice the forward's matmul work (a gradient for each of the two
    inputs of every matmul), so a training step is about three forwards of arithmetic; a
    fused backward also computes the score matrix again (one matmul more). Memory: the
    hand-written version keeps the softmax output, one score matrix, for backward; a fused
    one keeps the output and one float per row. The sentences:
    report/text/templates/model-training.<lang>.md.j2."""
    bw = results.get("backward")
    _, roof = ceilings(results)
    if not bw:
        return _missing(lang)
    c = bw["config"]
    z = sizes(dict(results["config"], **c))
    fact = TrainingModel(z["flops_causal"], z["s_bytes"], z["x_bytes"], c["batch"] * c["heads"] * c["seq_len"] * 4,
                         3 * z["flops_causal"] / roof if roof else None, results["roof"]["tflops"] if roof else None)
    return prose.render("model-training", lang, {"training": fact})


def training_check(results, lang):
    """Measured: a training step's kernel time against the forward's, per variant (the
    model's 3 to 3.5), and whether the extra memory held the score matrix: a table, then
    report/text/templates/model-training-check.<lang>.md.j2 over the variants within 2.5
    to 4 times, above and below."""
    bw = results.get("backward")
    if not bw:
        return _missing(lang)
    z = sizes(dict(results["config"], **bw["config"]))
    rows = []
    for name, row in bw["rows"].items():
        fwd = ok(results, name)
        if row.get("status") != "ok" or not fwd or not kernel_time(row):
            continue
        ratio = median(kernel_time(row)) / median(kernel_time(fwd))
        held = row["peak_extra_mib"] * 2**20 / z["s_bytes"] if row.get("peak_extra_mib") is not None else None
        rows.append([label(name, lang), fmt_us(median(kernel_time(fwd)), lang),
                     fmt_us(median(kernel_time(row)), lang), fmt_ratio(ratio, lang),
                     fmt_sig(held, lang, 2) if held is not None else "–"])
    if not rows:
        return _missing(lang)
    table = md_table([t("col.variant", lang), t("col.model_fwd_kernel", lang), t("col.model_step_kernel", lang),
                      t("col.model_step_ratio", lang), t("col.model_score_held", lang,
                                                         s_bytes=fmt_bytes(z["s_bytes"], lang))], rows)
    ratios = {name: median(kernel_time(row)) / median(kernel_time(ok(results, name)))
              for name, row in bw["rows"].items()
              if row.get("status") == "ok" and ok(results, name) and kernel_time(row)}
    return prose.render("model-training-check", lang, {
        "table": table, "inside": tuple(n for n, r in ratios.items() if 2.5 <= r <= 4),
        "above": tuple(n for n, r in ratios.items() if r > 4), "below": tuple(n for n, r in ratios.items() if r < 2.5)})
