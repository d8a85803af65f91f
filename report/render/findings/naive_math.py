"""Findings of the naive-vs-math page: ratio, the copy, the Memset, matmuls, extra ops."""
from ...text.catalog import t
from ...text.format import fmt_error, fmt_num, fmt_pct, fmt_ratio, fmt_us
from ...variants import MATH_SWITCHES
from ...verdict import median
from ..kernel_names import in_name_order
from ..keyed import keyed
from ..markdown import label
from .common import cuda, ok
from .registry import finding

MASK_OPS = ("aten::ones", "aten::tril", "aten::scalar_tensor", "aten::fill_", "aten::where")
SAFE_SOFTMAX_OPS = ("aten::isneginf", "aten::all", "aten::where", "aten::fill_")


@finding("findings-naive-math")
def math_ratio(results, ref, lang):
    """Math against the hand-written in-place version in kernel time (the GPU's own work;
    the span adds the idle time the profiler opens), beside Hugging Face's A100 factor."""
    if not (ok(results, "math") and ok(results, "naive_inplace")):
        return []
    v, rv = results["variants"], ref["variants"]
    math, inplace = median(v["math"]["kernel_sum_us"]), median(v["naive_inplace"]["kernel_sum_us"])
    a100 = rv["math"]["cuda_time_us"] / rv["naive_inplace"]["cuda_time_us"]
    return [t("finding.math_ratio", lang, ratio=fmt_ratio(math / inplace, lang),
              math=fmt_us(math, lang), inplace=fmt_us(inplace, lang),
              a100_ratio=fmt_ratio(a100, lang), a100_steps=fmt_num(ref["config"]["active_steps"], lang, 0),
              a100_math=fmt_us(rv["math"]["cuda_time_us"], lang),
              a100_inplace=fmt_us(rv["naive_inplace"]["cuda_time_us"], lang))]


@finding("findings-naive-math")
def memcpy(results, ref, lang):
    if not (ok(results, "naive") and ok(results, "naive_inplace")):
        return []
    copies = [k for k in results["variants"]["naive"]["kernels"] if k["kind"] == "memcpy"]
    if not copies:
        return []
    return [t("finding.memcpy", lang, name=copies[0]["short_name"],
              memcpy=fmt_us(copies[0]["avg_us"], lang), naive=fmt_us(cuda(results, "naive"), lang),
              inplace=fmt_us(cuda(results, "naive_inplace"), lang))]


@finding("findings-naive-math")
def memset(results, ref, lang):
    v, rv = results["variants"], ref["variants"]
    if not (ok(results, "naive") and ok(results, "naive_inplace")):
        return []
    sets = [k for k in v["naive_inplace"]["kernels"] if k["kind"] == "memset"]
    if not sets:
        return []
    count = lambda n: fmt_num(median(v[n]["gpu_activities_per_forward"]), lang, 0)  # noqa: E731
    return [t("finding.memset", lang, memset=fmt_us(sets[0]["avg_us"], lang), op=sets[0]["aten_op"],
              naive_n=count("naive"), inplace_n=count("naive_inplace"),
              a100_naive=rv["naive"]["kernels_per_forward"],
              a100_inplace=rv["naive_inplace"]["kernels_per_forward"])]


@finding("findings-naive-math")
def math_gemms(results, ref, lang):
    if not (ok(results, "math") and ok(results, "naive_inplace")):
        return []

    def gemms(n):
        return ", ".join(f"`{k['short_name']}`" for k in in_name_order(results["variants"][n]["kernels"])
                         if k["aten_op"] in ("aten::bmm", "aten::mm") and k["kind"] == "kernel")
    return [t("finding.math_gemms", lang, math_gemms=gemms("math"), naive_gemms=gemms("naive_inplace"))]


@finding("findings-naive-math")
def math_ops(results, ref, lang):
    if not ok(results, "math"):
        return []
    row = results["variants"]["math"]
    ops = row["cpu_ops_per_forward"]
    mask = [o for o in MASK_OPS if ops.get(o)]
    if "attribution" in row:  # the kernels launched from inside _safe_softmax, softmax itself aside
        safe = [k for k in row["kernels"] if k.get("cause") == "safe_softmax_extras"]
    else:  # older results: by the innermost op alone (counts the mask's fill_/where in too)
        safe = [k for k in row["kernels"] if k["aten_op"] in SAFE_SOFTMAX_OPS]
    n_safe = sum(k["per_forward"] for k in safe)
    return [t("finding.math_ops", lang,
              n_kernels=fmt_num(median(row["gpu_activities_per_forward"]), lang, 0),
              mask_ops=", ".join(f"`{o}` ×{fmt_num(ops[o], lang, 0)}" for o in mask),
              safe_ops=f"{fmt_num(n_safe, lang, 0)} {t('word.gpu_activities_from', lang)} "
              + ", ".join(sorted({f"`{k['aten_op']}`" for k in safe})))]


def cause_diffs(results):
    """(cause, math minus naive in-place, in µs per forward) for every cause, largest first."""
    a = results["variants"]["math"]["attribution"]
    b = results["variants"]["naive_inplace"]["attribution"]
    diffs = [(c, a.get(c, {}).get("us_per_forward", 0.0) - b.get(c, {}).get("us_per_forward", 0.0))
             for c in dict.fromkeys([*a, *b])]
    return sorted(diffs, key=lambda cd: -abs(cd[1]))


@finding("findings-math-why")
def math_why(results, ref, lang):
    v = results["variants"]
    if not (ok(results, "math") and ok(results, "naive_inplace") and "attribution" in v["math"]
            and "attribution" in v["naive_inplace"]):
        return []
    total = lambda n: sum(e["us_per_forward"] for e in v[n]["attribution"].values())  # noqa: E731
    extra = total("math") - total("naive_inplace")
    if extra <= 0:
        return []
    sign = lambda x: ("+" if x >= 0 else "\u2212") + fmt_us(abs(x), lang)  # noqa: E731
    parts = [f"{keyed('cause.', c, lang)} {sign(d)} ({fmt_pct(100 * d / extra, lang, 0)})"
             for c, d in cause_diffs(results) if abs(d) >= 0.005 * extra]
    return [t("finding.math_why", lang, extra=fmt_us(extra, lang), math=fmt_us(total("math"), lang),
              inplace=fmt_us(total("naive_inplace"), lang), list="; ".join(parts))]


@finding("findings-math-switches")
def math_switches(results, ref, lang):
    v = results["variants"]
    names = [n for n in MATH_SWITCHES if ok(results, n)]
    if not (names and ok(results, "math")):
        return []
    base = cuda(results, "math")
    items = [t("finding.math_switch_item", lang, variant=label(n, lang), cuda=fmt_us(cuda(results, n), lang),
               ratio=fmt_pct(100 * cuda(results, n) / base, lang, 0), error=fmt_error(v[n]["rel_error"], lang))
             for n in names]
    return [t("finding.math_switches", lang, list="; ".join(items), math=fmt_us(base, lang))]
