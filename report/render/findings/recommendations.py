"""Findings behind the three recommendations."""
from ...text.catalog import t
from ...text.format import fmt_pct, fmt_ratio, fmt_us
from ...trace.stats import median
from ...variants import BACKEND_NAMES, FUSED
from ..markdown import label
from .common import cuda, ok
from .registry import finding


@finding("rec_auto")
def rec_auto(results, ref, lang):
    if not (ok(results, "auto") and ok(results, "math")):
        return []
    auto, math_ = cuda(results, "auto"), cuda(results, "math")
    return [t("finding.rec_auto", lang, gpu=results["provenance"]["gpu_name"],
              backend=BACKEND_NAMES.get(results["variants"]["auto"].get("backend_ran")),
              auto=fmt_us(auto, lang), math=fmt_us(math_, lang), factor=fmt_ratio(math_ / auto, lang))]


@finding("rec_cpu")
def rec_cpu(results, ref, lang):
    v = results["variants"]
    names = [n for n in FUSED if ok(results, n)]
    if not names:
        return []
    # the backend whose CPU time is largest next to its CUDA time
    n = max(names, key=lambda n: median(v[n]["cpu_time_us"]) / cuda(results, n))
    return [t("finding.rec_cpu", lang, variant=label(n, lang), cuda=fmt_us(cuda(results, n), lang),
              cpu=fmt_us(median(v[n]["cpu_time_us"]), lang), first=fmt_us(v[n]["first_call_ms"] * 1000, lang))]


@finding("rec_inplace")
def rec_inplace(results, ref, lang):
    if not ok(results, "naive"):
        return []
    copies = [k for k in results["variants"]["naive"]["kernels"] if k["kind"] == "memcpy"]
    if not copies:
        return []
    return [t("finding.rec_inplace", lang, memcpy=fmt_us(copies[0]["avg_us"], lang),
              share=fmt_pct(100 * copies[0]["avg_us"] / cuda(results, "naive"), lang, 0))]
