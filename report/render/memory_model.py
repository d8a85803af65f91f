"""The model before the measurement: what attention must compute and move at the run's
shape, worked out from that shape and from the two ceilings measured in the same run (the
matmul roof and the copy bandwidth), so that it holds on any GPU; then what the run's
kernel times say about it.

The hand-written version writes the score matrix (B·H·L² elements) to global memory and
every later step reads it and writes it again; a fused kernel keeps its tiles on the chip
and moves only q, k, v and the output. Counting those bytes, and the arithmetic, gives a
floor for each; the measured kernels are then read in units of that floor.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..rows import kernel_time, with_kernel_time
from ..text.catalog import t
from ..text.format import fmt_num, fmt_ratio, fmt_sig, fmt_us, fmt_us_sig, unit
from ..trace.causes import CAUSES
from ..verdict import Verdict, by_points, median
from . import prose
from .call_floor import CallFloor, call_floor
from .keyed import keyed
from .markdown import label, md_table
from .prose import Data

DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4}
HAND_WRITTEN = "naive"  # the five operations of the page, with masked_fill
# the steps whose least work is reading the score matrix once and writing it once
ONE_PASS = ("scaling", "copy", "mask_application", "softmax")


def sizes(config):
    """The counts the model is made of, from the run's shape."""
    b, h, n, d = (config[k] for k in ("batch", "heads", "seq_len", "head_dim"))
    elem = DTYPE_BYTES.get(config.get("dtype"), 2)
    x, s = b * h * n * d, b * h * n * n
    return {
        "elem": elem, "x": x, "x_bytes": x * elem, "s": s, "s_bytes": s * elem,
        "pass_bytes": 2 * s * elem,  # read the score matrix once, write it once
        "fused_bytes": 4 * x * elem,  # q, k, v read, the output written
        "flops_square": 4 * b * h * n * n * d,
        "flops_causal": 4 * b * h * d * n * (n + 1) // 2,
        "exps_causal": b * h * n * (n + 1) // 2,  # the softmax's one exponential per score the mask keeps
        "exps_square": b * h * n * n,  # a softmax over the whole score matrix: masked scores included
    }


def ceilings(results):
    """(copy bandwidth in bytes per µs, matmul roof in FLOP per µs) measured in the run;
    either is None where the run did not measure it."""
    copy = ((results.get("shapes") or {}).get("copy_roof") or {}).get("gb_per_s")
    roof = (results.get("roof") or {}).get("tflops")
    return (copy * 1e3 if copy else None), (roof * 1e6 if roof else None)


@dataclass(frozen=True)
class Model:
    """The model at the run's shape (`config`, `sizes`), with the copy bandwidth (`copy`:
    results' copy_roof, None where not measured) and the matmul roof (`roof`: results'
    roof, None where not measured) it is read against: the time of one pass over the score
    matrix, of a fused kernel's bytes, of the square and causal arithmetic (µs; None
    without the ceiling); `gpu` for the datasheet's figures beside the ceilings."""
    config: dict
    sizes: dict
    copy: dict | None
    roof: dict | None
    pass_us: float | None
    fused_us: float | None
    square_us: float | None
    causal_us: float | None
    gpu: Data


def model(results) -> Model:
    z = sizes(results["config"])
    bandwidth, roof = ceilings(results)
    return Model(config=results["config"], sizes=z, copy=results["shapes"]["copy_roof"] if bandwidth else None,
                 roof=results["roof"] if roof else None,
                 pass_us=z["pass_bytes"] / bandwidth if bandwidth else None,
                 fused_us=z["fused_bytes"] / bandwidth if bandwidth else None,
                 square_us=z["flops_square"] / roof if roof else None,
                 causal_us=z["flops_causal"] / roof if roof else None,
                 gpu=Data(results["provenance"].get("gpu_name") or "?"))


def model_text(results, lang):
    """The model in three short paragraphs: sizes, bytes, arithmetic (each with its floor
    where the run measured the ceiling); the sentences are in report/text/templates/model.<lang>.md.j2."""
    return prose.render("model", lang, {"model": model(results)})


def _ok(results, name):
    row = results["variants"].get(name)
    return row if row and row.get("status") == "ok" and kernel_time(row) else None


@dataclass(frozen=True)
class HandWritten:
    """The hand-written version's kernel time per forward pass, in passes over the score
    matrix at the copy bandwidth and against its arithmetic at the matmul roof (`arithmetic`,
    None without the roof); `single`: (cause, passes) for the steps whose least work is one
    pass, in the order of the causes."""
    variant: str
    total_us: float
    passes: float
    arithmetic: float | None
    single: tuple[tuple[str, float], ...]
    mask: MaskBytes | None = None


@dataclass(frozen=True)
class MaskBytes:
    """The DRAM bytes Nsight Compute counted for the hand-written version's `masked_fill`
    kernel (`read`, `written`), in passes over the score matrix (`byte_passes`: one read
    and one write is 1) beside its kernel time in passes at the copy bandwidth
    (`time_passes`); `extra_work`: its bytes exceed one pass by more than ONE_PASS_SLACK."""
    read: float
    written: float
    byte_passes: float
    time_passes: float
    extra_work: bool


# bytes within 25 % of one read and one write count as one pass: the L2 cache keeps part of
# a pass off DRAM, and a broadcast mask adds a little of its own
ONE_PASS_SLACK = 0.25


def mask_bytes(results, one_pass_us):
    """MaskBytes for HAND_WRITTEN's `masked_fill` kernel, or None where the run has no ncu
    row for it or no attribution of the mask."""
    kernels = ((((results.get("ncu") or {}).get("rows") or {}).get(HAND_WRITTEN) or {}).get("kernels") or {})
    k = next((m for name, m in kernels.items() if "masked_fill" in name), None)
    applied = ((results["variants"][HAND_WRITTEN].get("attribution") or {}).get("mask_application") or {})
    if not k or k.get("dram_read_bytes") is None or not applied.get("us_per_forward"):
        return None
    passes = (k["dram_read_bytes"] + k["dram_write_bytes"]) / sizes(results["config"])["pass_bytes"]
    return MaskBytes(k["dram_read_bytes"], k["dram_write_bytes"], passes, applied["us_per_forward"] / one_pass_us,
                     passes > 1 + ONE_PASS_SLACK)


def hand_written_check(results, lang):
    """The hand-written version's kernel time per step, in passes over the score matrix at
    the copy bandwidth: a table and the sentence it proves (report/text/templates/
    model-hand-written.<lang>.md.j2); the "not measured" line where the run lacks the
    variant or the bandwidth."""
    row, (bandwidth, roof) = _ok(results, HAND_WRITTEN), ceilings(results)
    if not row or not bandwidth or not row.get("attribution"):
        return t("finding.missing", lang)
    z = sizes(results["config"])
    one_pass = z["pass_bytes"] / bandwidth
    # in the order of the causes (trace/causes.py), so that a rerun keeps rows and words in place
    steps = [(c, row["attribution"][c]) for c in CAUSES if c in row["attribution"]]
    rows = [[keyed("cause.", cause, lang), fmt_num(e["activities_per_forward"], lang, 0),
             fmt_us(e["us_per_forward"], lang), fmt_sig(e["us_per_forward"] / one_pass, lang)]
            for cause, e in steps]
    total = median(kernel_time(row))
    table = md_table([t("col.cause", lang), t("col.per_forward", lang), t("col.kernel_sum", lang),
                      t("col.model_passes", lang, pass_us=fmt_us(one_pass, lang))], rows)
    fact = HandWritten(HAND_WRITTEN, total, total / one_pass, total / (z["flops_square"] / roof) if roof else None,
                       tuple((c, e["us_per_forward"] / one_pass) for c, e in steps if c in ONE_PASS),
                       mask_bytes(results, one_pass))
    return prose.render("model-hand-written", lang, {"table": table, "check": fact})


def exp_rate(results):
    """The exp ceiling measured in the run (results.json "exp_roof": FP32 exponentials per
    µs), or None where the run did not measure it."""
    e = results.get("exp_roof") or {}
    return e["exps_per_s"] / 1e6 if e.get("status") == "ok" and e.get("exps_per_s") else None


@dataclass(frozen=True)
class FusedFloor:
    """A fused kernel's floors: its bytes at the copy bandwidth and its causal arithmetic at
    the matmul roof (µs), its intensity and the ridge point (FLOP per byte); the softmax's
    exponentials (`exps`, one per score the causal mask keeps) at the run's exp ceiling
    (`exp_us`, `exp_rate` per second; None without it); `binds`: the ceiling whose floor is
    largest ("bytes", "flops" or "exps"), `runner_up` the next; `tie`: the two through the
    rule of two points (verdict.by_points, each floor with its ceiling's spread over its
    timed runs), order None where they are the same within its noise, so the model cannot
    say which binds; `contenders`: (name, µs) of the largest floor and of every other floor
    the same rule does not order below it, largest first (one: the model says which binds);
    the work (`flops`, `fused_bytes`) and the two other ceilings as measured (`roof_tflops`,
    `copy_gbs`), for the table of ceilings."""
    bytes_us: float
    flops_us: float
    intensity: float
    ridge: float
    exps: int
    exp_us: float | None
    exp_rate: float | None
    binds: str
    runner_up: str = ""
    tie: Verdict | None = None
    flops: int = 0
    fused_bytes: int = 0
    roof_tflops: float = 0.0
    copy_gbs: float = 0.0
    contenders: tuple[tuple[str, float], ...] = ()


def fused_floor(results) -> FusedFloor | None:
    """The floors of a fused kernel at the run's shape and ceilings, or None where the run
    lacks the copy bandwidth or the matmul roof."""
    bandwidth, roof = ceilings(results)
    if not bandwidth or not roof:
        return None
    z = sizes(results["config"])
    bytes_us, flops_us = z["fused_bytes"] / bandwidth, z["flops_causal"] / roof
    rate = exp_rate(results)
    exp_us = z["exps_causal"] / rate if rate else None
    floors = {"bytes": bytes_us, "flops": flops_us, **({"exps": exp_us} if exp_us else {})}
    timed = {"bytes": (results.get("shapes") or {}).get("copy_roof"), "flops": results.get("roof"),
             "exps": results.get("exp_roof")}
    ranked = sorted(floors, key=floors.get, reverse=True)
    first, second = ranked[:2]

    def against_first(name):
        return by_points(_floor_point(floors[first], timed[first]), _floor_point(floors[name], timed[name]))
    tie = against_first(second)
    contenders = tuple((n, floors[n]) for n in ranked if n == first or against_first(n).order is None)
    return FusedFloor(bytes_us, flops_us, z["flops_causal"] / z["fused_bytes"], roof / bandwidth,
                      z["exps_causal"], exp_us, rate * 1e6 if rate else None, first, second, tie,
                      z["flops_causal"], z["fused_bytes"], roof / 1e6, bandwidth / 1e3, contenders)


def _floor_point(us, timing):
    """A floor as a point for by_points: its ceiling's timed runs (median_ms, min_ms,
    max_ms) scale it; a ceiling with no min and max has no spread."""
    timing = timing or {}
    point = {"median": us}
    if timing.get("median_ms") and timing.get("min_ms") is not None and timing.get("max_ms") is not None:
        point.update(min=us * timing["min_ms"] / timing["median_ms"], max=us * timing["max_ms"] / timing["median_ms"])
    return with_kernel_time(point)


def fused_check(results, lang, names):
    """The fused backends' kernel times against the floors of a fused kernel (its bytes at
    the copy bandwidth, its causal arithmetic at the matmul roof, its exponentials at the
    exp ceiling where the run measured it): a table and its sentence
    (report/text/templates/model-fused.<lang>.md.j2)."""
    ran = [(n, median(kernel_time(row))) for n in names if (row := _ok(results, n))]
    fact = fused_floor(results)
    if not ran or fact is None:
        return t("finding.missing", lang)
    rows = [[label(n, lang), fmt_us(k, lang), fmt_ratio(k / fact.bytes_us, lang), fmt_ratio(k / fact.flops_us, lang),
             *([fmt_ratio(k / fact.exp_us, lang)] if fact.exp_us else [])] for n, k in ran]
    table = md_table([t("col.variant", lang), t("col.kernel_sum", lang),
                      t("col.model_over_bytes", lang, floor=fmt_us(fact.bytes_us, lang)),
                      t("col.model_over_flops", lang, floor=fmt_us(fact.flops_us, lang)),
                      *([t("col.model_over_exps", lang, floor=fmt_us(fact.exp_us, lang))] if fact.exp_us else [])],
                     rows)
    return prose.render("model-fused", lang, {"table": table, "floor": fact})


# --- which ceiling binds the variants that keep the score matrix in global memory -------

# the hand-written version (both spellings) and SDPA's math backend, in the page's order
UNFUSED = ("naive", "naive_inplace", "math")
# math upcasts bf16/fp16 inputs to FP32 and runs its matmuls on the FP32 cores (ncu: the
# tensor pipe about 0 % busy, findings/ncu_findings.py: math_pipe); the others run theirs in
# the run's dtype, on the tensor cores the matmul roof measured
FP32_MATMULS = ("math",)


def fp32_rate(results):
    """The FP32 (not TF32) matmul roof measured in the run (results.json "fp32_roof", the
    shape of "roof") in FLOP per µs, or None where the run did not measure it."""
    x = (results.get("fp32_roof") or {}).get("tflops")
    ok = isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0
    return x * 1e6 if ok else None


def ncu_dram(results, variant):
    """(DRAM bytes read + written, kernels counted) summed over the kernels Nsight Compute
    profiled in one call of `variant`, or None where the run has no ncu row with DRAM bytes
    for it. ncu counts kernels only (no Memcpy, no Memset) and keeps one launch per kernel
    name (report/measure/ncu.py: parse), so the sum is a lower bound where the call has
    more GPU activities."""
    row = (((results.get("ncu") or {}).get("rows") or {}).get(variant)) or {}
    kernels = list((row.get("kernels") or {}).values()) if row.get("status") == "ok" else []
    if not kernels or any(k.get("dram_read_bytes") is None or k.get("dram_write_bytes") is None for k in kernels):
        return None
    return sum(k["dram_read_bytes"] + k["dram_write_bytes"] for k in kernels), len(kernels)


@dataclass(frozen=True)
class Binding:
    """One variant that writes the score matrix to global memory, against the ceilings
    measured in the same run, each floor summed over one call:
    its two matmuls over the whole square (`flops`: a dense matmul computes the masked half
    too) at `matmul` ("roof": the tensor cores in the run's dtype; "fp32_roof": the FP32
    cores), `matmul_tflops` and `matmul_us` None where the run did not measure that roof;
    the softmax's exponentials over the whole square (`exps`) at the exp ceiling (`exp_us`,
    None without it); the DRAM bytes Nsight Compute counted (`dram_bytes`, None: no ncu row)
    in `counted` of the call's `activities` GPU activities (fewer: `lower_bound`), at the
    copy bandwidth (`bytes_us`); `floor`: the call's floor, its kernels' floors summed
    (call_floor.py: they run one after another), None unless both the matmul floor and the
    bytes were measured; `kernel_us`: the measured kernel time per forward pass, `over`: it
    over that floor."""
    variant: str
    kernel_us: float
    flops: int
    matmul: str
    matmul_tflops: float | None
    matmul_us: float | None
    exps: int
    exp_us: float | None
    dram_bytes: float | None
    counted: int
    activities: int
    lower_bound: bool
    bytes_us: float | None
    floor: CallFloor | None
    over: float | None


def binding(results, variant) -> Binding | None:
    """Binding for `variant`, or None where it did not run or the run lacks the copy
    bandwidth (every floor's unit of comparison)."""
    row, (bandwidth, roof) = _ok(results, variant), ceilings(results)
    if not row or not bandwidth:
        return None
    z = sizes(results["config"])
    matmul = "fp32_roof" if variant in FP32_MATMULS else "roof"
    rate = fp32_rate(results) if matmul == "fp32_roof" else roof
    rate_exp = exp_rate(results)
    dram = ncu_dram(results, variant)
    activities = round(median(row.get("gpu_activities_per_forward")) or 0)
    flops_us = z["flops_square"] / rate if rate else None
    exp_us = z["exps_square"] / rate_exp if rate_exp else None
    kernels = ((results.get("ncu") or {}).get("rows") or {}).get(variant, {}).get("kernels") or {}
    floor = call_floor(row, kernels, flops_us, exp_us, bandwidth) if dram else None
    kernel_us = median(kernel_time(row))
    return Binding(variant, kernel_us, z["flops_square"], matmul, rate / 1e6 if rate else None, flops_us,
                   z["exps_square"], exp_us, dram[0] if dram else None, dram[1] if dram else 0, activities,
                   bool(dram) and dram[1] < activities, dram[0] / bandwidth if dram else None, floor,
                   kernel_us / floor.total_us if floor else None)


def _floor_cell(us, lang, lower_bound=False):
    return t("finding.missing", lang) if us is None else ("≥ " if lower_bound else "") + fmt_us_sig(us, lang)


def ceilings_check(results, lang, names=UNFUSED):
    """Which ceiling binds the hand-written version and math: per ceiling measured in the
    run (rows: the tensor-core matmul roof, the FP32 matmul roof, the exp rate, the copy
    bandwidth), each variant's floor summed over one call, then which binds and the kernel
    time measured; the sentences: report/text/templates/model-ceilings.<lang>.md.j2. The
    "not measured" line where none of the variants ran or the run lacks the bandwidth."""
    facts = tuple(b for n in names if (b := binding(results, n)))
    if not facts:
        return t("finding.missing", lang)
    bandwidth, roof = ceilings(results)
    fp32, rate_exp = fp32_rate(results), exp_rate(results)
    def rate(x, name):
        return unit(fmt_sig(x, lang), name, lang) if x else t("finding.missing", lang)

    def floor(b, ceiling):
        return _floor_cell(b.matmul_us, lang) if b.matmul == ceiling else t("value.none", lang)

    rows = [[t("word.ceiling_matmul", lang), rate(roof and roof / 1e6, "TFLOP/s"), *(floor(b, "roof") for b in facts)],
            [t("word.ceiling_fp32", lang), rate(fp32 and fp32 / 1e6, "TFLOP/s"),
             *(floor(b, "fp32_roof") for b in facts)],
            [t("word.ceiling_exp", lang), rate(rate_exp and rate_exp / 1e6, "× 10¹²/s"),
             *(_floor_cell(b.exp_us, lang) for b in facts)],
            [t("word.ceiling_dram_bytes", lang), "", *(t("finding.missing", lang) if b.dram_bytes is None else
                                                        ("≥ " if b.lower_bound else "")
                                                        + unit(fmt_sig(b.dram_bytes / 1e9, lang), "GB", lang)
                                                        for b in facts)],
            [t("word.ceiling_dram", lang), rate(bandwidth / 1e3, "GB/s"),
             *(_floor_cell(b.bytes_us, lang, b.lower_bound) for b in facts)],
            [t("word.ceiling_sum", lang), "",
             *(_floor_cell(b.floor and b.floor.total_us, lang, b.lower_bound) for b in facts)],
            [t("col.kernel_sum", lang), "", *(fmt_us_sig(b.kernel_us, lang) for b in facts)]]
    table = md_table([t("col.ceiling", lang), t("col.ceiling_rate", lang), *(label(b.variant, lang) for b in facts)],
                     rows)
    return prose.render("model-ceilings", lang, {"table": table, "bindings": facts})
