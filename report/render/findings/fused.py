"""Findings of the fused-backends page: ranking, auto's choice, profiled CPU time against
GPU span, idle time inside the span, first call, how busy the GPU is."""
from itertools import pairwise

from ...text.catalog import t
from ...text.display import BACKEND_NAMES
from ...text.format import fmt_num, fmt_pct, fmt_us, fmt_us_sig
from ...variants import FUSED
from ...verdict import median, rows_differ
from ..markdown import GAP_SHOWN, host_figures, idle_gap, label
from .common import cuda, ok, ran_fused
from .registry import finding


def _ranking(results, names, key, lang):
    """"cuDNN (57.8 µs) < flash (92.4 µs) ≈ …" by the figure `key`, and whether any pair
    was within noise: one backend is put before the next (<) only where the order holds
    in every round beyond the spread between rounds (report/verdict: rows_differ; for a
    file without rounds, beyond the spread of its steps or timer runs)."""
    v = results["variants"]
    ours = sorted(names, key=lambda n: v[n][key]["median"])
    text = f"{BACKEND_NAMES[ours[0]]} ({fmt_us_sig(v[ours[0]][key]['median'], lang)})"
    tied = False
    for a, b in pairwise(ours):
        even = not rows_differ(v[a], v[b], key)
        tied |= even
        text += f" {'≈' if even else '<'} {BACKEND_NAMES[b]} ({fmt_us_sig(v[b][key]['median'], lang)})"
    return text, tied


@finding("findings-fused")
def fused_rank(results, ref, lang):
    """The fused backends by kernel time and by wall time per call, never by GPU span (its
    idle time is the profiler's view, shown apart); Hugging Face's order is on the
    comparison page."""
    v = results["variants"]
    ours = [n for n in ran_fused(results) if v[n].get("kernel_sum_us")]
    if not ours:
        return []
    by_kernel, tied = _ranking(results, ours, "kernel_sum_us", lang)
    walled = [n for n in ours if (v[n].get("wall_time_us") or {}).get("median")]
    by_wall, tied_wall = _ranking(results, walled, "wall_time_us", lang) if walled else ("–", False)
    line = t("finding.fused_rank", lang, gpu=results["provenance"]["gpu_name"], kernel=by_kernel, wall=by_wall)
    return [line + (" " + t("finding.rank_noise", lang) if tied or tied_wall else "")]


@finding("findings-fused")
def auto(results, ref, lang):
    if not ok(results, "auto"):
        return []
    return [t("finding.auto", lang, backend=BACKEND_NAMES.get(results["variants"]["auto"].get("backend_ran")),
              gpu=results["provenance"]["gpu_name"], auto=fmt_us(cuda(results, "auto"), lang))]


@finding("findings-fused")
def cpu_cuda(results, ref, lang):
    v = results["variants"]
    names = ran_fused(results)
    if not names:
        return []
    return [t("finding.cpu_cuda", lang,
              pairs="; ".join(f"{BACKEND_NAMES[n]} {fmt_us(median(v[n]['cpu_time_us']), lang)} / "
                              f"{fmt_us(cuda(results, n), lang)}" for n in names),
              host=", ".join(f"{BACKEND_NAMES[n]} {fmt_us(median(v[n]['host_time_us']), lang)}"
                             for n in names))]


def _gap_in_every_round(row):
    """True where each round's short profile also has an idle gap of at least GAP_SHOWN
    (a gap on the threshold in one profile only is not named: a rerun would drop it)."""
    return all((g := idle_gap(r)) and g[1] >= GAP_SHOWN for r in row.get("rounds") or [] if "error" not in r)


@finding("findings-fused")
def idle_gap_finding(results, ref, lang):
    """Every variant whose GPU span holds idle time that is not negligible, in the full
    profile and in every round (cuDNN's gap between its Memset and its kernel is the case
    in point)."""
    v = results["variants"]
    gaps = {n: g for n in v if ok(results, n) and (g := idle_gap(v[n])) and v[n].get("kernel_sum_us")}
    if not gaps:
        return []
    pct = fmt_pct(GAP_SHOWN, lang, 0)
    shown = [t("finding.idle_gap_item", lang, variant=label(n, lang), gap=fmt_us(g, lang),
               span=fmt_us(cuda(results, n), lang), pct=fmt_pct(share, lang, 0))
             for n, (g, share) in gaps.items() if share >= GAP_SHOWN and _gap_in_every_round(v[n])]
    if not shown:
        return [t("finding.idle_gap_none", lang, pct=pct)]
    return [t("finding.idle_gap", lang, pct=pct, list="; ".join(shown))]


@finding("findings-fused")
def first_call(results, ref, lang):
    if not all(ok(results, n) for n in FUSED):
        return []
    first = lambda n: fmt_us(results["variants"][n]["first_call_ms"] * 1000, lang)  # noqa: E731
    return [t("finding.first_call", lang, cudnn_first=first("cudnn"),
              cudnn=fmt_us(cuda(results, "cudnn"), lang), flash_first=first("flash"),
              efficient_first=first("efficient"))]


@finding("findings-fused")
def gpu_busy(results, ref, lang):
    v = results["variants"]
    names = ran_fused(results)
    if not names:
        return []
    # the fused variant whose kernels are shortest is the one most likely to wait
    n = min(names, key=lambda n: median(v[n]["kernel_sum_us"]))
    wall, ksum = v[n]["wall_time_us"]["median"], median(v[n]["kernel_sum_us"])
    verdict = t("finding.busy_yes" if wall <= 1.1 * ksum else "finding.busy_no", lang)
    return [t("finding.gpu_busy", lang, variant=label(n, lang), wall=fmt_us(wall, lang),
              ksum=fmt_us(ksum, lang), wall_ratio=fmt_pct(100 * wall / ksum, lang, 0), verdict=verdict)]


@finding("findings-host-overhead")
def host_drift(results, ref, lang):
    """How far the time of the same CPU work moved during the host-overhead pass (the small
    op's quarters), how far the µs figures moved with it, and how far the figures counted in
    small ops did."""
    hs = host_figures(results)
    if not hs:
        return []
    op = [h["small_op_us"] for h in hs.values()]
    # the largest spread over the variants, not which variant it was: that name is the
    # noise's, and a rerun would change it
    us_spread = max(h["spread_pct"] for h in hs.values())
    ops_spread = max(h["per_small_op"]["spread_pct"] for h in hs.values())
    return [t("finding.host_drift", lang, low=fmt_us(min(q for o in op for q in o["quarters"]), lang),
              high=fmt_us(max(q for o in op for q in o["quarters"]), lang),
              us_spread=fmt_pct(us_spread, lang, 0), ops_spread=fmt_pct(ops_spread, lang, 0),
              verdict=t("finding.host_drift_rule", lang))]


@finding("findings-host-overhead")
def host_first_calls(results, ref, lang):
    """What the first call of a timed run cost against the steady ones, lowest and highest
    variant: after the wait for the GPU (small op) and after the switch (variant)."""
    fs = list(host_figures(results).values())
    if not fs:
        return []
    def lo_hi(key):
        m = [h["first_calls"][key]["median"] for h in fs]
        return fmt_num(min(m), lang, 1), fmt_num(max(m), lang, 1)
    (wait_low, wait_high), (switch_low, switch_high) = lo_hi("after_wait"), lo_hi("after_switch")
    return [t("finding.host_first_calls", lang, wait_low=wait_low, wait_high=wait_high,
              switch_low=switch_low, switch_high=switch_high, warm=fmt_num(fs[0]["warm"], lang, 0))]
