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

from dataclasses import dataclass

from ..text.catalog import t
from ..text.format import fmt_num, fmt_ratio, fmt_sig, fmt_us
from ..trace.causes import CAUSES
from ..verdict import median
from . import prose
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
    return row if row and row.get("status") == "ok" and row.get("kernel_sum_us") else None


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
    total = median(row["kernel_sum_us"])
    table = md_table([t("col.cause", lang), t("col.per_forward", lang), t("col.kernel_sum", lang),
                      t("col.model_passes", lang, pass_us=fmt_us(one_pass, lang))], rows)
    fact = HandWritten(HAND_WRITTEN, total, total / one_pass, total / (z["flops_square"] / roof) if roof else None,
                       tuple((c, e["us_per_forward"] / one_pass) for c, e in steps if c in ONE_PASS))
    return prose.render("model-hand-written", lang, {"table": table, "check": fact})


@dataclass(frozen=True)
class FusedFloor:
    """A fused kernel's two floors: its bytes at the copy bandwidth and its causal
    arithmetic at the matmul roof (µs), its intensity and the ridge point (FLOP per byte)."""
    bytes_us: float
    flops_us: float
    intensity: float
    ridge: float


def fused_check(results, lang, names):
    """The fused backends' kernel times against the two floors of a fused kernel (its bytes
    at the copy bandwidth, its causal arithmetic at the matmul roof): a table and its
    sentence (report/text/templates/model-fused.<lang>.md.j2)."""
    bandwidth, roof = ceilings(results)
    ran = [(n, median(row["kernel_sum_us"])) for n in names if (row := _ok(results, n))]
    if not ran or not bandwidth or not roof:
        return t("finding.missing", lang)
    z = sizes(results["config"])
    bytes_us, flops_us = z["fused_bytes"] / bandwidth, z["flops_causal"] / roof
    rows = [[label(n, lang), fmt_us(k, lang), fmt_ratio(k / bytes_us, lang), fmt_ratio(k / flops_us, lang)]
            for n, k in ran]
    table = md_table([t("col.variant", lang), t("col.kernel_sum", lang),
                      t("col.model_over_bytes", lang, floor=fmt_us(bytes_us, lang)),
                      t("col.model_over_flops", lang, floor=fmt_us(flops_us, lang))], rows)
    fact = FusedFloor(bytes_us, flops_us, z["flops_causal"] / z["fused_bytes"], roof / bandwidth)
    return prose.render("model-fused", lang, {"table": table, "floor": fact})
