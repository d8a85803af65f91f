"""Findings behind the three recommendations."""
from ...text.catalog import t
from ...text.format import fmt_pct, fmt_us
from ...trace.stats import differ, median, noise, spread
from ...variants import BACKEND_NAMES, FUSED
from ..markdown import host_figures, label
from .common import cuda, lost_or_noise, ok
from .registry import finding


def auto_against_pinned(results, lang):
    """Auto against the fastest pinned fused backend, in wall time per call: (auto's wall
    time, the backend it ran, the fastest pinned variant, its wall time, the verdict), or
    None where the run lacks them. Auto is said to lose only beyond noise (trace/stats.py)."""
    v = results["variants"]
    pinned = [n for n in FUSED if ok(results, n) and v[n].get("wall_time_us")]
    if not (ok(results, "auto") and pinned and v["auto"].get("wall_time_us")):
        return None
    best = min(pinned, key=lambda n: v[n]["wall_time_us"]["median"])
    a, b = v["auto"]["wall_time_us"], v[best]["wall_time_us"]
    ran = v["auto"].get("backend_ran")
    verdict = t("finding.rec_auto_same", lang) if ran == best else lost_or_noise(a, b, "finding.rec_auto_lost", lang)
    return a["median"], ran, best, b["median"], verdict


@finding("finding-rec-auto")
def rec_auto(results, ref, lang):
    """Auto against the fastest pinned fused backend, in wall time per call (not against math)."""
    found = auto_against_pinned(results, lang)
    if found is None:
        return []
    auto, ran, best, best_time, verdict = found
    return [t("finding.rec_auto", lang, gpu=results["provenance"]["gpu_name"], backend=BACKEND_NAMES.get(ran),
              auto=fmt_us(auto, lang), best=label(best, lang), best_time=fmt_us(best_time, lang),
              verdict=verdict)]


def host_share(row):
    """Host overhead against kernel time, as a figure the noise rule can compare: built on
    the cost in small ops (in which what slows the small op and the call alike cancels),
    with the larger of that figure's spread and the kernel time's."""
    per_op, kernel = row["host_time_us"]["per_small_op"], row["kernel_sum_us"]
    return {"median": per_op["median"] / kernel["median"],
            "spread_pct": 100 * max(spread(per_op), spread(kernel))}


def host_ranked(results):
    """The fused backends with a host overhead, largest share of their kernel time first."""
    v, hs = results["variants"], host_figures(results)
    names = [n for n in FUSED if n in hs and ok(results, n) and median(v[n].get("kernel_sum_us"))]
    return sorted(names, key=lambda n: -host_share(v[n])["median"])


@finding("finding-rec-cpu")
def rec_cpu(results, ref, lang):
    """The fused backend whose host overhead is largest next to its kernel time; the order
    is stated only where it is beyond noise."""
    v = results["variants"]
    ranked = host_ranked(results)
    if not ranked:
        return []
    n = ranked[0]
    host = fmt_us(median(v[n]["host_time_us"]), lang)
    if len(ranked) > 1:
        a, b = host_share(v[n]), host_share(v[ranked[1]])
        spread_text = fmt_pct(100 * noise(a, b), lang, 0)
        if differ(a, b):
            order = t("finding.rec_cpu_highest", lang, spread=spread_text)
        else:
            order = t("finding.rec_cpu_noise", lang, other=label(ranked[1], lang),
                      other_host=fmt_us(median(v[ranked[1]]["host_time_us"]), lang), spread=spread_text)
    else:
        order = ""
    return [t("finding.rec_cpu", lang, variant=label(n, lang), host=host,
              kernel=fmt_us(median(v[n]["kernel_sum_us"]), lang), first=fmt_us(v[n]["first_call_ms"] * 1000, lang),
              order=order).rstrip()]


@finding("finding-rec-inplace")
def rec_inplace(results, ref, lang):
    if not ok(results, "naive"):
        return []
    copies = [k for k in results["variants"]["naive"]["kernels"] if k["kind"] == "memcpy"]
    if not copies:
        return []
    return [t("finding.rec_inplace", lang, memcpy=fmt_us(copies[0]["avg_us"], lang),
              share=fmt_pct(100 * copies[0]["avg_us"] / cuda(results, "naive"), lang, 0))]
