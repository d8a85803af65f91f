"""Findings of the shapes page for decode (one to a few query tokens against a KV cache):
what to use, the wall time at the smallest batch, what unpinned SDPA ran, the cost of a
launch, the bandwidth, a few query tokens against one, the longest kernel's grid.

Comparisons follow the noise rule of shape_common.py.
"""
import math

from ...text.catalog import t
from ...text.format import (
    fmt_num,
    fmt_pct,
    fmt_ratio_sig,
    fmt_us,
    fmt_us_sig,
)
from ...verdict import differ, host_floor, median, noise, wall_figure, walls_differ
from ..datasheets import bandwidth_text, memory_share, missing
from ..extra_tables import point_time
from ..markdown import label
from ..shape_points import (
    backend_name,
    fmt_gbs,
    gb_per_s,
    grouped,
    point_ok,
    points,
)
from .registry import finding
from .shape_common import PINNED, accepted, answer, cells_by, compare_times, decode_key, place_of


@finding("shapes-findings-decode")
def shapes_decode_answer(results, ref, lang):
    return answer(cells_by(points(results, "decode"), decode_key), "decode", lang)


def _wall(p):
    return p["wall_time_us"]["median"]


@finding("shapes-findings-decode")
def shapes_decode_wall(results, ref, lang):
    """The answer above is in kernel time; at the smallest batch, where the CPU can set the
    pace, unpinned SDPA against the pinned backend fastest in wall time per call: each
    point is one measurement of a host-paced figure, so a gap counts only beyond the run's
    floor for such figures (report/verdict: host_floor); files without it by the noise rule
    (report/verdict: walls_differ), naming the points and both host overheads."""
    cells = cells_by(points(results, "decode"), decode_key)
    batch = min((k[1] for k in cells), default=None)
    scored = []
    for (_, b, _), cell in sorted(cells.items()):
        auto = cell.get("auto")
        pinned = [cell[n] for n in PINNED if point_ok(cell.get(n)) and cell[n].get("wall_time_us")]
        if b != batch or not (point_ok(auto) and auto.get("wall_time_us") and pinned):
            continue
        best = min(pinned, key=_wall)
        scored.append((auto, best, walls_differ(auto, best) and _wall(auto) > _wall(best)))
    if not scored:
        return []
    noise_floor = host_floor(results)
    if noise_floor > 0:  # single measurements of a host-paced figure: judged against the run's floor
        good = sum(not (walls_differ(a, b) and _wall(a) / _wall(b) - 1 > noise_floor) for a, b, _ in scored)
        return [t("finding.shapes_wall_floor", lang, batch=batch, floor=fmt_pct(100 * noise_floor, lang, 0),
                  good=good, n=len(scored))]
    lost = [(a, b) for a, b, slower in scored if slower]
    one_run = any((p["wall_time_us"].get("runs") or 0) < 2 for a, b, _ in scored for p in (a, b))
    note = " " + t("finding.shapes_wall_one_run", lang) if one_run else ""
    if not lost:
        return [t("finding.shapes_wall_all", lang, batch=batch, n=len(scored)) + note]
    items = []
    for a, b in lost:
        host = (t("finding.shapes_wall_hosts", lang, auto=fmt_us_sig(median(a["host_time_us"]), lang),
                  best=fmt_us_sig(median(b["host_time_us"]), lang))
                if a.get("host_time_us") and b.get("host_time_us") else "")
        items.append(t("finding.shapes_wall_item", lang, q_len=a["q_len"], kv=fmt_num(a["kv_len"], lang, 0),
                       auto=fmt_us_sig(_wall(a), lang), variant=label(b["variant"], lang),
                       best=fmt_us_sig(_wall(b), lang), ratio=fmt_ratio_sig(_wall(a) / _wall(b), lang),
                       spread=fmt_pct(wall_noise(a, b), lang, 0), hosts=host))
    return [t("finding.shapes_wall_lost", lang, batch=batch, good=len(scored) - len(lost), n=len(scored),
              list="; ".join(items)) + note]


def wall_noise(a, b):
    """The noise two points' wall times are compared within, in percent."""
    return 100 * noise(wall_figure(a), wall_figure(b))


@finding("shapes-findings-decode")
def shapes_decode_auto(results, ref, lang):
    """What unpinned SDPA ran, read off the kernel names: said once per backend for the
    decode runs where it ran one backend at every KV length; a run where the backend
    changed with the KV length is named with its lengths. Then who accepted decode."""
    pts = points(results, "decode")
    steady, mixed = {}, []
    for (q_len, batch), by_variant in grouped(pts).items():
        ran = {kv: p["backend_ran"] for kv, p in by_variant.get("auto", {}).items()
               if point_ok(p) and p.get("backend_ran")}
        if not ran:
            continue
        if len(set(ran.values())) == 1:
            steady.setdefault(next(iter(ran.values())), {}).setdefault(q_len, []).append(batch)
        else:
            run = t("finding.shapes_run", lang, q_len=q_len, batch=batch)
            mixed.append(t("finding.shapes_auto_mixed", lang, run=run, list=", ".join(
                f"{fmt_num(kv, lang, 0)}: {backend_name(b)}" for kv, b in ran.items())))
    lines = []
    if steady:
        lines.append(t("finding.shapes_auto_steady", lang, list="; ".join(
            f"{backend_name(b)} {t('word.at', lang)} " + ", ".join(
                t("finding.shapes_runs", lang, q_len=q, batches=", ".join(map(str, batches)))
                for q, batches in runs.items()) for b, runs in steady.items())))
    return lines + mixed + accepted(pts, lang)


def _ends(sorted_points):
    """The first and the last point (one, if there is only one)."""
    return sorted_points[:1] + sorted_points[1:][-1:]


def _launch_line(p, lang):
    kernel, host, wall = point_time(p), median(p["host_time_us"]), p["wall_time_us"]["median"]
    s = noise(p["host_time_us"], p["kernel_sum_us"])
    key = ("finding.shapes_even" if not differ(p["host_time_us"], p["kernel_sum_us"]) else
           "finding.shapes_cpu_paces" if host > kernel else "finding.shapes_gpu_paces")
    return t("finding.shapes_launch", lang, at=place_of(p, lang), variant=label(p["variant"], lang),
             kernel=fmt_us(kernel, lang), host=fmt_us(host, lang), wall=fmt_us(wall, lang),
             verdict=t(key, lang, spread=fmt_pct(100 * s, lang, 0)))


@finding("shapes-findings-decode")
def shapes_decode_launch(results, ref, lang):
    """Batch 1, one query token: CPU time to issue a call against the kernels' time, at the
    shortest and the longest KV cache (GPU runs only: without a GPU there are no kernels)."""
    pts = [p for p in points(results, "decode") if p["variant"] == "auto" and p["q_len"] == 1 and point_ok(p)
           and p.get("host_time_us") and p.get("kernel_sum_us")]
    if not pts:
        return []
    batch = min(p["batch"] for p in pts)
    mine = sorted((p for p in pts if p["batch"] == batch), key=lambda p: p["kv_len"])
    return [_launch_line(p, lang) for p in _ends(mine)]


@finding("shapes-findings-decode")
def shapes_decode_bandwidth(results, ref, lang):
    pts = [p for p in points(results, "decode") if point_ok(p)]
    if not pts:
        return []
    roof = results["shapes"]["copy_roof"]["gb_per_s"]
    # auto is no entry of its own (it runs a pinned backend's kernels), and the point is
    # not named: several points lie within noise of the top one
    best = max((p for p in pts if p["variant"] != "auto"), key=gb_per_s, default=None) or max(pts, key=gb_per_s)
    lines = [t("finding.shapes_bandwidth_best", lang, variant=label(best["variant"], lang),
               gbs=fmt_gbs(gb_per_s(best), lang), pct=fmt_pct(100 * gb_per_s(best) / roof, lang, 0),
               roof=fmt_gbs(roof, lang))]
    pinned = [p for p in pts if p["variant"] != "auto"]
    above = [p for p in pinned if gb_per_s(p) > roof]
    if above:  # the copy was beaten: a reference, and the datasheet's figure beside it
        found = memory_share(results, gb_per_s(best))
        sheet = (t("finding.shapes_bandwidth_datasheet", lang, tb_s=bandwidth_text(found[0], lang),
                   product=found[0].product, url=found[0].url, share=fmt_pct(found[1], lang, 0))
                 if found else missing(results, lang))
        lines.append(t("finding.shapes_bandwidth_reference", lang, n=len(above), total=len(pinned), datasheet=sheet))
    autos = [p for p in pts if p["variant"] == "auto" and p["q_len"] == 1]
    if autos:
        batch = min(p["batch"] for p in autos)
        for p in sorted((p for p in autos if p["batch"] == batch), key=lambda p: p["kv_len"])[::-1][:1]:
            lines.append(t("finding.shapes_bandwidth_auto", lang, at=place_of(p, lang), gbs=fmt_gbs(gb_per_s(p), lang),
                           pct=fmt_pct(100 * gb_per_s(p) / roof, lang, 0)))
    return lines


@finding("shapes-findings-decode")
def shapes_decode_speculative(results, ref, lang):
    """A few query tokens against one, unpinned, at the longest cache both have."""
    cells = cells_by(points(results, "decode"), decode_key)
    q_lens = sorted({k[0] for k in cells})
    if len(q_lens) < 2:
        return []
    one, few = q_lens[0], q_lens[-1]
    lines = []
    for batch in sorted({k[1] for k in cells}):
        both = [kv for (q, b, kv) in cells if q == one and b == batch and point_ok(cells[(one, b, kv)].get("auto"))
                and point_ok(cells.get((few, b, kv), {}).get("auto"))]
        if both:
            kv = max(both)
            a, b = cells[(few, batch, kv)]["auto"], cells[(one, batch, kv)]["auto"]
            lines.append(t("finding.shapes_speculative", lang, few=few, one=one, batch=batch,
                           kv=fmt_num(kv, lang, 0), t_few=fmt_us(point_time(a), lang),
                           t_one=fmt_us(point_time(b), lang), compare=compare_times(a, b, lang)))
            lines += _speculative_backends(cells, a, b, lang)
    return lines


def _speculative_backends(cells, a, b, lang):
    """Where unpinned SDPA ran another backend for the few tokens (a) than for one (b): say
    so, and compare that backend pinned at both; then what pinned cuDNN launched for the few
    tokens against one (the mask built as a tensor shows as `triu_tril_kernel`)."""
    lines = []
    ran_few, ran_one = a.get("backend_ran"), b.get("backend_ran")
    if ran_few and ran_one and ran_few != ran_one:
        key = (a["q_len"], a["batch"], a["kv_len"]), (b["q_len"], b["batch"], b["kv_len"])
        pa, pb = cells[key[0]].get(ran_few), cells[key[1]].get(ran_few)
        same = (t("finding.shapes_speculative_same", lang, variant=label(ran_few, lang), few=a["q_len"],
                  t_few=fmt_us(point_time(pa), lang), t_one=fmt_us(point_time(pb), lang),
                  compare=compare_times(pa, pb, lang)) if point_ok(pa) and point_ok(pb) else "")
        lines.append(t("finding.shapes_speculative_changed", lang, one=b["q_len"], few=a["q_len"],
                       ran_one=backend_name(ran_one), ran_few=backend_name(ran_few), same=same))
    ca = cells[(a["q_len"], a["batch"], a["kv_len"])].get("cudnn")
    cb = cells[(b["q_len"], b["batch"], b["kv_len"])].get("cudnn")
    mask = [k for k in (ca or {}).get("kernels") or [] if "triu_tril" in k["short_name"]]
    if point_ok(ca) and point_ok(cb) and mask:
        lines.append(t("finding.shapes_speculative_cudnn", lang, few=a["q_len"], one=b["q_len"],
                       n_few=fmt_num(median(ca["gpu_activities_per_forward"]), lang, 0),
                       n_one=fmt_num(median(cb["gpu_activities_per_forward"]), lang, 0),
                       kernel=mask[0]["short_name"], t_few=fmt_us(point_time(ca), lang),
                       t_one=fmt_us(point_time(cb), lang)))
    return lines


def _main_kernel(p):
    kernels = [k for k in p.get("kernels") or [] if k["kind"] == "kernel" and k.get("grid")]
    return max(kernels, key=lambda k: k["avg_us"] * k["per_forward"], default=None)


@finding("shapes-findings-decode")
def shapes_decode_grid(results, ref, lang):
    """The longest kernel's grid against the number of SMs, unpinned, batch 1, one query
    token: one sentence for the KV lengths that share a kernel and grid, one more for
    each kernel or grid that differs."""
    sms = results["provenance"].get("sm_count")
    pts = [p for p in points(results, "decode") if p["variant"] == "auto" and p["q_len"] == 1 and point_ok(p)
           and _main_kernel(p)]
    if not (sms and pts):
        return []
    batch = min(p["batch"] for p in pts)
    same = {}  # (kernel, grid) -> the points that ran it, in KV order
    for p in sorted((p for p in pts if p["batch"] == batch), key=lambda p: p["kv_len"]):
        k = _main_kernel(p)
        same.setdefault((k["short_name"], tuple(k["grid"])), []).append(p)
    lines = []
    for (kernel, grid), group in same.items():
        blocks = math.prod(grid)
        kvs = [fmt_num(p["kv_len"], lang, 0) for p in group]
        where = (t("finding.shapes_every_kv", lang, n=len(kvs)) if len(same) == 1 and len(kvs) > 1
                 else t("finding.shapes_kv_list", lang, list=", ".join(kvs)))
        verdict = "finding.shapes_grid_few" if blocks < sms else "finding.shapes_grid_full"
        lines.append(t("finding.shapes_grid", lang, q_len=1, batch=batch, where=where, kernel=kernel,
                       grid="×".join(map(str, grid)), blocks=fmt_num(blocks, lang, 0), sms=sms,
                       verdict=t(verdict, lang)))
    return lines
