"""The short answer Home starts with: one line each for which backend SDPA picks here,
what math costs, when to measure CPU time and when to pin, every figure from this run."""
from ...text.catalog import t
from ...text.display import BACKEND_NAMES
from ...text.format import fmt_pct, fmt_ratio, fmt_us, fmt_us_range
from ...variants import FUSED
from ...verdict import differ, median
from .. import extra_tables
from ..keyed import keyed
from ..markdown import label
from .common import eager_over_kernel
from .naive_math import cause_diffs
from .recommendations import auto_against_pinned, host_leader, pct_range, share_rounds
from .registry import finding
from .scaling import small_shape_pinning


@finding("findings-home")
def home_auto(results, ref, lang):
    found = auto_against_pinned(results, lang)
    if found is None or found[1] is None:
        return []
    auto, ran, best, best_time, verdict = found
    return [t("finding.home_auto", lang, gpu=results["provenance"]["gpu_name"], backend=BACKEND_NAMES.get(ran),
              auto=fmt_us(auto, lang), best=label(best, lang), best_time=fmt_us(best_time, lang),
              verdict=verdict)]


def _against(k, other, what, lang):
    """"45× as much as <what> (58.3 µs)", or "as much as …, within noise" where the two
    kernel times do not differ beyond noise."""
    time = fmt_us(median(other), lang)
    if not differ(k, other):
        return t("finding.home_even", lang, what=what, time=time)
    return t("finding.home_times", lang, ratio=fmt_ratio(k["median"] / other["median"], lang), what=what, time=time)


def _kernel_times(results, names):
    v = results["variants"]
    return {n: v[n]["kernel_sum_us"] for n in names
            if v.get(n, {}).get("status") == "ok" and (v[n].get("kernel_sum_us") or {}).get("min") is not None}


@finding("findings-home")
def home_math(results, ref, lang):
    ks = _kernel_times(results, ("math", "naive_inplace", *FUSED))
    fused = sorted((n for n in FUSED if n in ks), key=lambda n: ks[n]["median"])
    if not ("math" in ks and "naive_inplace" in ks and fused):
        return []
    tied = [n for n in fused[1:] if not differ(ks[fused[0]], ks[n])]
    if tied:
        what = t("finding.home_fused_tied", lang, backends=", ".join(BACKEND_NAMES[n] for n in [fused[0], *tied]))
    else:
        what = t("finding.home_fastest_fused", lang, backend=BACKEND_NAMES[fused[0]])
    line = t("finding.home_math", lang, math=fmt_us(ks["math"]["median"], lang),
             vs_fused=_against(ks["math"], ks[fused[0]], what, lang),
             vs_naive=_against(ks["math"], ks["naive_inplace"], t("finding.home_hand_written", lang), lang))
    v = results["variants"]
    if "attribution" in v["math"] and "attribution" in v["naive_inplace"]:
        cause, extra = max(cause_diffs(results), key=lambda cd: cd[1])
        if extra > 0:
            line += " " + t("finding.home_math_cause", lang, cause=keyed("cause.", cause, lang),
                            extra="+" + fmt_us(extra, lang))
    return [line]


@finding("findings-home")
def home_cpu(results, ref, lang):
    leader = host_leader(results)
    if leader is None:
        return []
    name = leader[0]
    v = results["variants"][name]
    host, kernel = median(v["host_time_us"]), median(v["kernel_sum_us"])
    shares = share_rounds(v, part=None)
    if shares and any(s is not None for s in shares):  # a figure that moves: its range over the rounds
        pct = t("finding.home_cpu_rounds", lang, pct=pct_range(shares, lang), n=len(shares))
    else:
        pct = t("finding.home_cpu_pct", lang, pct=fmt_pct(100 * host / kernel, lang, 0))
    line = t("finding.home_cpu", lang, variant=label(name, lang), host=fmt_us(host, lang),
             kernel=fmt_us(kernel, lang), pct=pct)
    small = [r for r in (results.get("overhead") or {}).get("rows", {}).get("small", {}).values()
             if r.get("status") == "ok" and median(r.get("kernel_sum_us"))]
    if small:
        hi = max(eager_over_kernel(r) for r in small)
        line += " " + t("finding.home_cpu_small", lang, hi=fmt_ratio(hi, lang))
    return [line]


@finding("findings-home")
def home_pin(results, ref, lang):
    sweep = results.get("sweep")
    parts = []
    if sweep and any(p.get("backend_ran") for p in sweep["points"]):
        rows = [slower for d in sweep["head_dims"] for _, _, _, slower in extra_tables.auto_vs_best(sweep, d)]
        if rows:
            key = "finding.home_pin_sweep" if any(rows) else "finding.home_pin_sweep_none"
            parts.append(t(key, lang, n=sum(rows), m=len(rows)))
    small = small_shape_pinning(results, lang)
    if small is not None:
        parts.append(t("finding.home_pin_small", lang, best=small["best"],
                       best_time=fmt_us_range(small["best_range"], lang), auto=fmt_us_range(small["auto"], lang),
                       backend=BACKEND_NAMES[results["variants"]["auto"]["backend_ran"]], verdict=small["verdict"]))
    return [" ".join([t("finding.home_pin", lang), *parts])] if parts else []
