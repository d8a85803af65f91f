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

from ..text.catalog import t
from ..text.format import fmt_bytes, fmt_num, fmt_ratio, fmt_sig, fmt_us
from ..trace.causes import CAUSES
from ..verdict import median
from .datasheets import beside_copy, beside_matmul
from .keyed import keyed
from .markdown import label, md_table

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


def _gflop(flops, lang):
    return f"{fmt_sig(flops / 1e9, lang)} GFLOP"


def model_text(results, lang):
    """The model in three short paragraphs: sizes, bytes, arithmetic (each with its floor
    where the run measured the ceiling)."""
    c = results["config"]
    z = sizes(c)
    bandwidth, roof = ceilings(results)
    out = [t("model.sizes", lang, batch=c["batch"], heads=c["heads"], seq_len=c["seq_len"],
             head_dim=c["head_dim"], dtype=c["dtype"], x=fmt_sig(z["x"] / 1e6, lang),
             x_bytes=fmt_bytes(z["x_bytes"], lang), s=fmt_sig(z["s"] / 1e6, lang),
             s_bytes=fmt_bytes(z["s_bytes"], lang), ratio=fmt_num(z["s"] / z["x"], lang, 0))]
    if bandwidth:
        copy = results["shapes"]["copy_roof"]
        out.append(t("model.bytes", lang, pass_bytes=fmt_bytes(z["pass_bytes"], lang),
                     bandwidth=fmt_sig(copy["gb_per_s"] / 1e3, lang),
                     copy=fmt_bytes(copy["bytes"], lang),
                     pass_us=fmt_us(z["pass_bytes"] / bandwidth, lang),
                     fused_bytes=fmt_bytes(z["fused_bytes"], lang),
                     fused_us=fmt_us(z["fused_bytes"] / bandwidth, lang))
                   + " " + beside_copy(results, lang))
    else:
        out.append(t("model.bytes_unmeasured", lang, pass_bytes=fmt_bytes(z["pass_bytes"], lang),
                     fused_bytes=fmt_bytes(z["fused_bytes"], lang)))
    if roof:
        r = results["roof"]
        square_us = z["flops_square"] / roof
        text = t("model.flops", lang, square=_gflop(z["flops_square"], lang),
                 causal=_gflop(z["flops_causal"], lang), roof=fmt_sig(r["tflops"], lang),
                 n=r["shape"][0], dtype=r["dtype"], square_us=fmt_us(square_us, lang),
                 causal_us=fmt_us(z["flops_causal"] / roof, lang))
        if bandwidth:
            pass_us = z["pass_bytes"] / bandwidth
            verdict = "model.memory_bound" if pass_us > square_us else "model.compute_bound"
            text += " " + t(verdict, lang, pass_us=fmt_us(pass_us, lang), square_us=fmt_us(square_us, lang))
        sheet = beside_matmul(results, lang)
        out.append(text + (f" {sheet}" if sheet else ""))
    return "\n\n".join(out)


def _ok(results, name):
    row = results["variants"].get(name)
    return row if row and row.get("status") == "ok" and row.get("kernel_sum_us") else None


def hand_written_check(results, lang):
    """The hand-written version's kernel time per step, in passes over the score matrix at
    the copy bandwidth: a table and the sentence it proves; the "not measured" line where
    the run lacks the variant or the bandwidth."""
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
    sentence = t("model.hand_written_check", lang, variant=label(HAND_WRITTEN, lang),
                 total=fmt_us(total, lang), passes=fmt_sig(total / one_pass, lang),
                 arithmetic=fmt_ratio(total / (z["flops_square"] / roof), lang) if roof else "–")
    single = [(c, e["us_per_forward"] / one_pass) for c, e in steps if c in ONE_PASS]
    if single:
        sentence += " " + t("model.one_pass_steps", lang, low=fmt_sig(min(p for _, p in single), lang),
                            high=fmt_sig(max(p for _, p in single), lang),
                            steps=", ".join(keyed("cause.", c, lang) for c, _ in single))
    return table + "\n\n" + sentence


def fused_check(results, lang, names):
    """The fused backends' kernel times against the two floors of a fused kernel (its bytes
    at the copy bandwidth, its causal arithmetic at the matmul roof)."""
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
    bound = "model.fused_memory_floor" if bytes_us >= flops_us else "model.fused_compute_floor"
    return table + "\n\n" + t(bound, lang, bytes_us=fmt_us(bytes_us, lang), flops_us=fmt_us(flops_us, lang),
                              intensity=fmt_num(z["flops_causal"] / z["fused_bytes"], lang, 0),
                              ridge=fmt_num(roof / bandwidth, lang, 0))
