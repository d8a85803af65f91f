"""Findings of torch.compile of the naive module and of FlexAttention."""
from ...text.catalog import t
from ...text.format import fmt_num, fmt_us
from ...trace.names import backend_of_kernels
from ...trace.stats import median
from .common import ok
from .registry import finding


@finding("findings-compiled")
def compiled(results, ref, lang):
    v = results["variants"]
    if not (ok(results, "compiled_naive") and ok(results, "naive_inplace")):
        return []
    c, e = v["compiled_naive"], v["naive_inplace"]
    fused = backend_of_kernels([k["name"] for k in c["kernels"]]) != "math"
    return [t("finding.compiled", lang, n=fmt_num(median(c["gpu_activities_per_forward"]), lang, 0),
              eager_n=fmt_num(median(e["gpu_activities_per_forward"]), lang, 0),
              kernels=", ".join(f"`{k['short_name']}`" for k in c["kernels"]),
              verdict=t("finding.compiled_found" if fused else "finding.compiled_not_found", lang),
              cuda=fmt_us(median(c["cuda_time_us"]), lang), eager=fmt_us(median(e["cuda_time_us"]), lang))]


@finding("findings-compiled")
def flex(results, ref, lang):
    v = results["variants"]
    if not (ok(results, "flex") and ok(results, "flash")):
        return []
    fx = v["flex"]
    kernels = ", ".join(f"`{k['short_name']}`" for k in fx["kernels"] if k["kind"] == "kernel")
    return [t("finding.flex", lang, kernels=kernels, cuda=fmt_us(median(fx["cuda_time_us"]), lang),
              flash=fmt_us(median(v["flash"]["cuda_time_us"]), lang),
              first=fmt_us(fx["first_call_ms"] * 1000, lang))]
