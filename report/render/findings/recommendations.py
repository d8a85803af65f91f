"""Findings behind the three recommendations."""
from ...text.catalog import t
from ...text.format import fmt_pct, fmt_ratio, fmt_us
from ...trace.stats import median
from ...variants import BACKEND_NAMES, FUSED
from ..markdown import label
from .common import cuda, ok, wall_gap
from .registry import finding


def auto_against_pinned(results, lang):
    """Auto against the fastest pinned fused backend, in wall time per call: (auto's wall
    time, the backend it ran, the fastest pinned variant, its wall time, the verdict), or
    None where the run lacks them. Auto is said to lose only beyond the two timers' IQRs."""
    v = results["variants"]
    pinned = [n for n in FUSED if ok(results, n) and v[n].get("wall_time_us")]
    if not (ok(results, "auto") and pinned and v["auto"].get("wall_time_us")):
        return None
    best = min(pinned, key=lambda n: v[n]["wall_time_us"]["median"])
    a, b = v["auto"]["wall_time_us"], v[best]["wall_time_us"]
    slower, spread = wall_gap(a, b)
    ran = v["auto"].get("backend_ran")
    if ran == best:
        verdict = t("finding.rec_auto_same", lang)
    elif slower:
        verdict = t("finding.rec_auto_lost", lang, ratio=fmt_ratio(a["median"] / b["median"], lang),
                    spread=fmt_us(spread, lang))
    else:
        verdict = t("finding.rec_auto_noise", lang, spread=fmt_us(spread, lang))
    return a["median"], ran, best, b["median"], verdict


@finding("rec_auto")
def rec_auto(results, ref, lang):
    """Auto against the fastest pinned fused backend, in wall time per call (not against math)."""
    found = auto_against_pinned(results, lang)
    if found is None:
        return []
    auto, ran, best, best_time, verdict = found
    return [t("finding.rec_auto", lang, gpu=results["provenance"]["gpu_name"], backend=BACKEND_NAMES.get(ran),
              auto=fmt_us(auto, lang), best=label(best, lang), best_time=fmt_us(best_time, lang),
              verdict=verdict)]


def _host_share(v, n):
    return median(v[n]["host_time_us"]) / median(v[n]["kernel_sum_us"])


def within_noise(a, b, spread_pct):
    """True when two values differ by no more than the measured spread (percent)."""
    return abs(a - b) <= spread_pct / 100 * min(a, b)


def host_ranked(results):
    """The fused backends with a host overhead, largest share of their kernel time first."""
    v = results["variants"]
    names = [n for n in FUSED if ok(results, n) and (v[n].get("host_time_us") or {}).get("spread_pct") is not None
             and median(v[n].get("kernel_sum_us"))]
    return sorted(names, key=lambda n: -_host_share(v, n))


@finding("rec_cpu")
def rec_cpu(results, ref, lang):
    """The fused backend whose host overhead is largest next to its kernel time; the order
    is stated only when it is larger than the spread between repeats."""
    v = results["variants"]
    ranked = names = host_ranked(results)
    if not names:
        return []
    n = ranked[0]
    spread = max(v[m]["host_time_us"]["spread_pct"] for m in names)
    if len(ranked) > 1 and within_noise(_host_share(v, n), _host_share(v, ranked[1]), spread):
        order = t("finding.rec_cpu_noise", lang, other=label(ranked[1], lang),
                  other_host=fmt_us(median(v[ranked[1]]["host_time_us"]), lang), spread=fmt_pct(spread, lang, 0))
    else:
        order = t("finding.rec_cpu_highest", lang, spread=fmt_pct(spread, lang, 0))
    return [t("finding.rec_cpu", lang, variant=label(n, lang), host=fmt_us(median(v[n]["host_time_us"]), lang),
              kernel=fmt_us(median(v[n]["kernel_sum_us"]), lang), first=fmt_us(v[n]["first_call_ms"] * 1000, lang),
              order=order)]


@finding("rec_inplace")
def rec_inplace(results, ref, lang):
    if not ok(results, "naive"):
        return []
    copies = [k for k in results["variants"]["naive"]["kernels"] if k["kind"] == "memcpy"]
    if not copies:
        return []
    return [t("finding.rec_inplace", lang, memcpy=fmt_us(copies[0]["avg_us"], lang),
              share=fmt_pct(100 * copies[0]["avg_us"] / cuda(results, "naive"), lang, 0))]
