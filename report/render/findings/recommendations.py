"""Findings behind the three recommendations."""
from ...text.catalog import t
from ...text.display import BACKEND_NAMES
from ...text.format import fmt_num, fmt_pct, fmt_us
from ...variants import FUSED
from ...verdict import differ, median, noise, order_holds, round_median, spread
from ..markdown import host_figures, label
from .common import cuda, lost_or_noise, ok, rounds_verdict
from .registry import finding


def auto_against_pinned(results, lang):
    """Auto against the fastest pinned fused backend, in wall time per call: (auto's wall
    time, the backend it ran, the fastest pinned variant, its wall time, the verdict), or
    None where the run lacks them. Auto is said to lose only beyond noise (report/verdict)."""
    v = results["variants"]
    pinned = [n for n in FUSED if ok(results, n) and v[n].get("wall_time_us")]
    if not (ok(results, "auto") and pinned and v["auto"].get("wall_time_us")):
        return None
    best = min(pinned, key=lambda n: v[n]["wall_time_us"]["median"])
    a, b = v["auto"]["wall_time_us"], v[best]["wall_time_us"]
    ran = v["auto"].get("backend_ran")
    if ran == best:
        verdict = t("finding.rec_auto_same", lang)
    else:
        verdict = (rounds_verdict(v["auto"], v[best], "wall_time_us", "finding.rec_auto_lost_rounds", lang)
                   or lost_or_noise(a, b, "finding.rec_auto_lost", lang))
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


def share_rounds(row, part="per_small_op"):
    """Host overhead against kernel time in each round of a row (None for a round without
    both figures; None where the row has no rounds): in small ops by default, the figure
    the ranking compares; part=None gives µs over µs, the figure a page shows."""
    rounds = row.get("rounds")
    if not rounds:
        return None
    out = []
    for r in rounds:
        host, kernel = (r or {}).get("host_time_us") or {}, median((r or {}).get("kernel_sum_us"))
        figure = host.get(part) if part else host
        out.append(figure["median"] / kernel if isinstance(figure, dict) and figure.get("median")
                   and kernel else None)
    return out


def host_ranked(results):
    """The fused backends with a host overhead, largest share of their kernel time first
    (the median over the rounds where the run has rounds)."""
    v, hs = results["variants"], host_figures(results)
    names = [n for n in FUSED if n in hs and ok(results, n) and median(v[n].get("kernel_sum_us"))]

    def share(n):
        rounds = share_rounds(v[n])
        return round_median(rounds) if rounds and round_median(rounds) is not None else host_share(v[n])["median"]
    return sorted(names, key=lambda n: -share(n))


def host_leader(results):
    """(the backend named first, the runner-up or None, True where the first's share is the
    highest beyond noise): across rounds where both have them (order_holds), else by
    `differ`. Within noise, the first named is the one that comes first in FUSED's order,
    so that a rerun that swaps the two medians does not swap the names."""
    ranked = host_ranked(results)
    if not ranked:
        return None
    if len(ranked) == 1:
        return ranked[0], None, True
    v, (a, b) = results["variants"], ranked[:2]
    ra, rb = share_rounds(v[a]), share_rounds(v[b])
    holds = order_holds(ra, rb) if ra and rb else differ(host_share(v[a]), host_share(v[b]))
    if holds:
        return a, b, True
    first, second = sorted((a, b), key=FUSED.index)
    return first, second, False


def pct_range(shares, lang):
    """"55–81%" (nb "55–81 %"): shares over the rounds, the unit written once; one value
    where both ends read the same."""
    values = [s for s in shares if s is not None]
    low, high = round(100 * min(values)), round(100 * max(values))
    return fmt_pct(high, lang, 0) if low == high else f"{fmt_num(low, lang, 0)}–{fmt_pct(high, lang, 0)}"


@finding("finding-rec-cpu")
def rec_cpu(results, ref, lang):
    """The fused backend whose host overhead is largest next to its kernel time; the order
    is stated only where it is beyond noise."""
    v = results["variants"]
    leader = host_leader(results)
    if leader is None:
        return []
    n, other, holds = leader
    host = fmt_us(median(v[n]["host_time_us"]), lang)
    order = ""
    if other is not None:
        ra, rb = share_rounds(v[n]), share_rounds(v[other])
        if ra and rb:
            ranges = t("finding.round_pct_ranges", lang, a=pct_range(ra, lang), b=pct_range(rb, lang),
                       other=label(other, lang), n=len(ra))
            order = t("finding.rec_cpu_highest_rounds" if holds else "finding.rec_cpu_noise_rounds", lang,
                      other=label(other, lang), ranges=ranges)
        else:
            spread_text = fmt_pct(100 * noise(host_share(v[n]), host_share(v[other])), lang, 0)
            order = (t("finding.rec_cpu_highest", lang, spread=spread_text) if holds else
                     t("finding.rec_cpu_noise", lang, other=label(other, lang),
                       other_host=fmt_us(median(v[other]["host_time_us"]), lang), spread=spread_text))
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
