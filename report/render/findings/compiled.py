"""Findings of torch.compile of the naive module and of FlexAttention."""
import statistics

from ...text.catalog import t
from ...text.format import fmt_num, fmt_pct, fmt_ratio_sig, fmt_us, fmt_us_range, fmt_us_sig
from ...trace.names import backend_of_kernels
from ...verdict import (
    below,
    compare_rounds,
    differ,
    host_floor,
    median,
    noise,
    order_holds,
    round_median,
    round_range,
    rounds_of,
    samples,
)
from ..kernel_names import in_name_order
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
              kernels=", ".join(f"`{k['short_name']}`" for k in in_name_order(c["kernels"])),
              verdict=t("finding.compiled_found" if fused else "finding.compiled_not_found", lang),
              cuda=fmt_us(median(c["cuda_time_us"]), lang), eager=fmt_us(median(e["cuda_time_us"]), lang))]


def versus(a_row, b_row, key, lang):
    """(the order of a against b in the figure `key`: "<", ">" or None within noise, the
    text of the two figures). Across the rounds both rows have (report/verdict:
    compare_rounds: an order only where it holds in every round beyond the spread between
    rounds), else by `differ` on the rows' own figures (files without rounds)."""
    a_rounds, b_rounds = rounds_of(a_row, key), rounds_of(b_row, key)
    if a_rounds is not None and b_rounds is not None:
        c = compare_rounds(a_rounds, b_rounds)
        if c.a_range and c.b_range:
            text = t("finding.round_ranges", lang, a=fmt_us_range(c.a_range, lang),
                     b=fmt_us_range(c.b_range, lang), n=len([r for r in a_rounds if r is not None]))
            return c.order, c.a, c.b, text
    a, b = a_row[key], b_row[key]
    order = ("<" if a["median"] < b["median"] else ">") if differ(a, b) else None
    text = t("finding.flex_figures", lang, a=fmt_us_sig(a["median"], lang), b=fmt_us_sig(b["median"], lang),
             spread=fmt_pct(100 * noise(a, b), lang, 0))
    return order, a["median"], b["median"], text


def _wall_versus(results, fx, fl, lang):
    """FlexAttention against flash in wall time per call. Where the run has a floor for
    host-paced figures (report/verdict: host_floor) and rounds, an order only where every
    measurement of one is below every measurement of the other beyond that floor (flex's
    host overhead is on a par with its kernel time, so its calls are paced by the CPU);
    else versus()."""
    noise_floor = host_floor(results)
    a, b = samples(fx, "wall_time_us"), samples(fl, "wall_time_us")
    if noise_floor <= 0 or len(a) < 2 or len(b) < 2:
        return versus(fx, fl, "wall_time_us", lang)
    order = ("<" if below(fx, fl, "wall_time_us", noise_floor)
             else ">" if below(fl, fx, "wall_time_us", noise_floor) else None)
    text = t("finding.flex_wall_figures", lang, a=fmt_us_range((min(a), max(a)), lang),
             b=fmt_us_range((min(b), max(b)), lang), floor=fmt_pct(100 * noise_floor, lang, 0))
    return order, statistics.median(a), statistics.median(b), text


def _figure(row, key, lang):
    """A row's figure as the rounds give it (their range), else its own median."""
    rounds = rounds_of(row, key)
    found = round_range(rounds) if rounds is not None else None
    return fmt_us_range(found, lang) if found else fmt_us_sig(median(row[key]), lang)


def _verdict(found, lang):
    order, a, b, text = found
    if order is None:
        return t("finding.flex_even", lang, figures=text)
    key = "finding.flex_faster" if order == "<" else "finding.flex_slower"
    return t(key, lang, ratio=fmt_ratio_sig(max(a, b) / min(a, b), lang), figures=text)


@finding("findings-compiled")
def flex(results, ref, lang):
    """FlexAttention against flash in kernel time and in wall time per call, each by the
    noise rule (never by GPU span); where flex's host overhead is above its own kernel time
    in every round, that is why its calls back to back are paced by the CPU."""
    v = results["variants"]
    if not (ok(results, "flex") and ok(results, "flash")):
        return []
    fx, fl = v["flex"], v["flash"]
    kernels = ", ".join(f"`{k['short_name']}`" for k in in_name_order(fx["kernels"]) if k["kind"] == "kernel")
    parts = [t("finding.flex", lang, kernels=kernels, first=fmt_us(fx["first_call_ms"] * 1000, lang))]
    if fx.get("kernel_sum_us") and fl.get("kernel_sum_us"):
        parts.append(t("finding.flex_kernel", lang, verdict=_verdict(versus(fx, fl, "kernel_sum_us", lang), lang)))
    if fx.get("wall_time_us") and fl.get("wall_time_us"):
        parts.append(t("finding.flex_wall", lang, verdict=_verdict(_wall_versus(results, fx, fl, lang), lang)))
    host, kernel = fx.get("host_time_us"), fx.get("kernel_sum_us")
    if host and kernel and fl.get("host_time_us"):
        h_rounds, k_rounds = rounds_of(fx, "host_time_us"), rounds_of(fx, "kernel_sum_us")
        if h_rounds is not None and k_rounds is not None:  # the direction from the rounds too
            above = order_holds(h_rounds, k_rounds) and round_median(h_rounds) > round_median(k_rounds)
        else:
            above = differ(host, kernel) and median(host) > median(kernel)
        if above:
            key = "finding.flex_host" if h_rounds is not None and k_rounds is not None else "finding.flex_host_one"
            parts.append(t(key, lang, host=_figure(fx, "host_time_us", lang),
                           flash=_figure(fl, "host_time_us", lang), kernel=_figure(fx, "kernel_sum_us", lang)))
    return [" ".join(parts)]
