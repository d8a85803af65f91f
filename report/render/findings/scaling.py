"""Findings of the scaling page: where variants run out of memory, growth, the fastest."""
import statistics

from ...text.catalog import t
from ...text.display import BACKEND_NAMES
from ...text.format import fmt_bytes, fmt_num, fmt_pct, fmt_ratio, fmt_tflops, fmt_us, fmt_us_range
from ...variants import FUSED
from ...verdict import below, host_floor, samples, small_rows
from .. import extra_tables
from ..datasheets import beside_matmul
from ..extra_tables import point_time
from ..markdown import label
from .registry import finding


def _names(sweep):
    return list(dict.fromkeys(p["variant"] for p in sweep["points"]))


@finding("findings-scaling")
def oom(results, ref, lang):
    sweep = results.get("sweep")
    lines = []
    for d in sweep["head_dims"] if sweep else ():
        for n in _names(sweep):
            mine = [p for p in sweep["points"] if p["variant"] == n and p["head_dim"] == d]
            bad = next((p for p in mine if p["status"] == "oom"), None)
            prev = [p for p in mine if bad and p["status"] == "ok" and p["seq_len"] < bad["seq_len"]]
            if prev:
                mem = prev[-1].get("peak_extra_mib")
                lines.append(t("finding.oom" if mem is not None else "finding.oom_nomem", lang,
                               variant=label(n, lang), seq=fmt_num(bad["seq_len"], lang, 0), d=d,
                               prev=fmt_num(prev[-1]["seq_len"], lang, 0),
                               mem=fmt_bytes((mem or 0) * 2**20, lang)))
    return lines


@finding("findings-scaling")
def fits_all(results, ref, lang):
    sweep = results.get("sweep")
    if not sweep:
        return []
    full = [n for n in _names(sweep) if all(p["status"] == "ok" for p in sweep["points"]
                                            if p["variant"] == n)]
    if not full:
        return []
    return [t("finding.fits_all", lang, variants=", ".join(label(n, lang) for n in full),
              seq=fmt_num(max(sweep["seq_lens"]), lang, 0))]


@finding("findings-scaling")
def growth(results, ref, lang):
    sweep = results.get("sweep")
    if not sweep:
        return []
    d = sweep["head_dims"][0]
    mem = {(p["variant"], p["seq_len"]): p.get("peak_extra_mib") for p in sweep["points"]
           if p["head_dim"] == d and p["status"] == "ok"}
    both = [s for s in sweep["seq_lens"] if mem.get(("naive", s)) and mem.get(("flash", s))]
    if len(both) < 2:
        return []
    a, b = both[-2], both[-1]
    return [t("finding.growth", lang, a=fmt_num(a, lang, 0), b=fmt_num(b, lang, 0), d=d,
              naive=fmt_ratio(mem[("naive", b)] / mem[("naive", a)], lang),
              flash=fmt_ratio(mem[("flash", b)] / mem[("flash", a)], lang),
              naive_label=label("naive", lang), flash_label=label("flash", lang))]


@finding("findings-scaling")
def time_growth(results, ref, lang):
    """How much each variant's kernel time grew over the sweep's last doubling of the
    sequence length, beside how much the causal arithmetic grew."""
    sweep = results.get("sweep")
    if not sweep or len(sweep["seq_lens"]) < 2:
        return []
    d, (a, b) = sweep["head_dims"][0], sweep["seq_lens"][-2:]
    time = {(p["variant"], p["seq_len"]): point_time(p) for p in sweep["points"]
            if p["head_dim"] == d and p["status"] == "ok"}
    grew = [f"{label(n, lang)} {fmt_ratio(time[(n, b)] / time[(n, a)], lang)}" for n in _names(sweep)
            if time.get((n, a)) and time.get((n, b))]
    if not grew:
        return []
    return [t("finding.time_growth", lang, a=fmt_num(a, lang, 0), b=fmt_num(b, lang, 0), d=d,
              list=", ".join(grew), work=fmt_ratio(b * (b + 1) / (a * (a + 1)), lang))]


@finding("findings-scaling")
def fastest(results, ref, lang):
    """The fastest pinned variant per sequence length and head dimension, said once: the
    one that won most often, and by name the lengths where another won."""
    sweep = results.get("sweep")
    won = {}  # (head dimension, sequence length) -> the fastest variant
    for d in sweep["head_dims"] if sweep else ():
        for s in sweep["seq_lens"]:
            ok = [p for p in sweep["points"] if p["head_dim"] == d and p["seq_len"] == s
                  and p["status"] == "ok" and p["variant"] != "auto"]
            if ok:
                won[d, s] = min(ok, key=point_time)["variant"]
    if not won:
        return []
    names = list(won.values())
    top = max(dict.fromkeys(names), key=names.count)
    lens = sorted({s for _, s in won})
    values = dict(backend=BACKEND_NAMES.get(top, top), lo=fmt_num(lens[0], lang, 0), hi=fmt_num(lens[-1], lang, 0),
                  dims=", ".join(str(d) for d in dict.fromkeys(d for d, _ in won)))
    others = [t("finding.fastest_exception", lang, d=d, seq=fmt_num(s, lang, 0), backend=BACKEND_NAMES.get(v, v))
              for (d, s), v in won.items() if v != top]
    if not others:
        return [t("finding.fastest_all", lang, **values)]
    return [t("finding.fastest_but", lang, exceptions="; ".join(others), **values)]


@finding("findings-scaling")
def best_tflops(results, ref, lang):
    """The pinned variant with the highest TFLOP/s in the sweep. Auto is no entry of its
    own: it runs one of the pinned backends, and where it ran the winner's kernels at that
    point the two are one entry ("SDPA cuDNN, which auto ran too"), never each other's
    winner by a rounding."""
    sweep = results.get("sweep")
    ok = [p for p in sweep["points"] if p["status"] == "ok" and p["variant"] != "auto"] if sweep else []
    if not ok:
        return []
    p = max(ok, key=lambda p: p["tflops"])
    name = label(p["variant"], lang)
    auto = next((a for a in sweep["points"] if a["variant"] == "auto" and a["status"] == "ok"
                 and a["seq_len"] == p["seq_len"] and a["head_dim"] == p["head_dim"]), None)
    if auto and auto.get("backend_ran") == p["variant"]:
        name = t("finding.also_auto", lang, variant=name)
    line = t("finding.best_tflops", lang, variant=name,
             tflops=fmt_tflops(p["tflops"], lang), seq=fmt_num(p["seq_len"], lang, 0), d=p["head_dim"],
             share=fmt_pct(100 * p["tflops"] / results["roof"]["tflops"], lang, 0))
    sheet = beside_matmul(results, lang)  # the roof is measured: the datasheet's figure beside it
    return [line + (f" {sheet}" if sheet else "")]


@finding("findings-auto-vs-best")
def auto_vs_best(results, ref, lang):
    """Where SDPA's own choice was slower than the fastest pinned backend, beyond noise."""
    sweep = results.get("sweep")
    if not sweep or not any(p.get("backend_ran") for p in sweep["points"]):
        return []
    lines = []
    for d in sweep["head_dims"]:
        slower = [t("finding.auto_vs_best_item", lang, seq=fmt_num(s, lang, 0), auto=fmt_us(point_time(a), lang),
                    best=fmt_us(point_time(b), lang), backend=BACKEND_NAMES[b["variant"]])
                  for s, a, b, is_slower in extra_tables.auto_vs_best(sweep, d) if is_slower]
        if slower:
            lines.append(t("finding.auto_vs_best", lang, d=d, slower=", ".join(slower)))
        else:
            lines.append(t("finding.auto_vs_best_none", lang, d=d))
    return lines


def small_shape_pinning(results, lang):
    """At the small shape of the overhead section, where the CPU sets the pace: auto's
    eager wall time against the pinned fused backends', by the run's floor for host-paced
    figures (report/verdict: below, host_floor). {"auto": auto's range over every measurement,
    "best": the fastest pinned backend's label where it is faster than every other pinned
    one beyond that floor, else the words for all of them, "best_range": its (or their)
    range, "verdict": pinning wins, or within noise with the floor}, or None where the run
    lacks them."""
    rows = small_rows(results)
    auto = rows.get("auto")
    key = "eager_wall_us"
    pinned = {n: r for n, r in rows.items() if n in FUSED and samples(r, key)}
    if auto is None or not pinned or not samples(auto, key) \
            or not results["variants"].get("auto", {}).get("backend_ran"):
        return None
    noise_floor = host_floor(results)
    best = min(pinned, key=lambda n: statistics.median(samples(pinned[n], key)))
    distinct = all(below(pinned[best], r, key, noise_floor) for n, r in pinned.items() if n != best)
    chosen = [pinned[best]] if distinct else list(pinned.values())
    a = samples(auto, key)
    b = [x for r in chosen for x in samples(r, key)]
    ranges = t("finding.floor_ranges", lang, n=len(a))
    floor_pct = fmt_pct(100 * noise_floor, lang, 0)
    if distinct and below(pinned[best], auto, key, noise_floor):
        ratio = statistics.median(a) / statistics.median(samples(pinned[best], key))
        verdict = t("finding.pinning_wins_floor", lang, ratio=fmt_ratio(ratio, lang), floor=floor_pct, ranges=ranges)
    else:
        verdict = t("finding.pinning_noise_floor", lang, floor=floor_pct, ranges=ranges)
    name = (t("finding.small_best_pinned", lang, variant=label(best, lang)) if distinct
            else t("finding.small_pinned_all", lang))
    return {"auto": (min(a), max(a)), "best": name, "best_range": (min(b), max(b)), "verdict": verdict}


@finding("findings-auto-vs-best")
def auto_small(results, ref, lang):
    """At the small shape, where the CPU sets the pace: auto against the pinned backends."""
    found = small_shape_pinning(results, lang)
    if found is None:
        return []
    return [t("finding.auto_small", lang, shape=t("finding.shape_small", lang),
              backend=BACKEND_NAMES[results["variants"]["auto"]["backend_ran"]],
              auto=fmt_us_range(found["auto"], lang), best=found["best"],
              best_time=fmt_us_range(found["best_range"], lang), verdict=found["verdict"])]
