"""The tables of the seed's shape: headline, kernels, resources, details, CPU ops,
the profiler's own table and provenance."""
from __future__ import annotations

import hashlib
import math

from ..rows import KERNEL_TIME, cpu_time, gpu_span, kernel_time
from ..text.catalog import t
from ..text.format import (
    fmt_bytes,
    fmt_error,
    fmt_mib,
    fmt_num,
    fmt_pct,
    fmt_ratio,
    fmt_sig,
    fmt_tflops,
    fmt_us,
    fmt_us_range,
)
from ..trace.names import short_kernel_name
from ..variants import FUSED
from ..verdict import median, round_range
from .datasheets import beside_matmul
from .kernel_names import brief_names, kernel_cell
from .markdown import (
    GAP_SHOWN,
    fenced,
    has_idle_gap,
    host_figures,
    idle_gap_cell,
    kernel_count,
    label,
    limits_text,
    markdown_safe,
    md_table,
    not_run_row,
    status_text,
)


def _time_cells(results, lang):
    """Column key -> the cell of one measured row, for the tables of every variant's times."""
    base = results["variants"].get("naive_inplace", {})
    base_cuda = median(gpu_span(base)) if base.get("status") == "ok" else None

    def vs_inplace(row):
        cuda = median(gpu_span(row))
        return fmt_ratio(cuda / base_cuda, lang) if cuda and base_cuda else t("value.none", lang)

    return {
        "col.kernels_fwd": lambda row: kernel_count(row, lang),
        "col.kernel_sum": lambda row: fmt_us(median(kernel_time(row)), lang),
        "col.cuda_time": lambda row: fmt_us(median(gpu_span(row)), lang),
        "col.idle_gap": lambda row: idle_gap_cell(row, lang),
        "col.cpu_time": lambda row: fmt_us(median(cpu_time(row)), lang),
        "col.host_time": lambda row: fmt_us(median(row.get("host_time_us")), lang),
        "col.wall": lambda row: fmt_us((row.get("wall_time_us") or {}).get("median"), lang),
        "col.vs_inplace": vs_inplace,
    }


def _times_table(results, lang, columns):
    """One row per variant with the given columns (the idle gap only where it is not
    negligible); a variant that did not run shows its status in the first column."""
    if not has_idle_gap(results["variants"].values()):
        columns = [c for c in columns if c != "col.idle_gap"]
    cells = _time_cells(results, lang)
    rows = []
    for name, row in results["variants"].items():
        if row["status"] != "ok":
            rows.append(not_run_row(name, row, lang, len(columns) - 1))
        else:
            rows.append([label(name, lang)] + [cells[c](row) for c in columns])
    return md_table([t(c, lang) for c in ("col.variant", *columns)], rows)


def headline(results, lang):
    """Every time of every variant at the seed's shape (Hugging Face's A100 figures are on
    the comparison page, compare.py)."""
    return _times_table(results, lang, ["col.kernels_fwd", "col.kernel_sum", "col.cuda_time", "col.idle_gap",
                                        "col.cpu_time", "col.host_time", "col.wall", "col.vs_inplace"])


def headline_home(results, lang):
    """The headline table Home shows: the times of the vocabulary a reader needs first
    (every column, and the A100's figures, are on the pages that explain them)."""
    return _times_table(results, lang, ["col.kernel_sum", "col.cuda_time", "col.idle_gap", "col.wall", "col.host_time"])


def _briefs(results, names, lang):
    """The short names (kernel_names.brief_names) of every kernel the variants `names` ran."""
    return brief_names([k["short_name"] for n in names for k in (results["variants"].get(n) or {}).get("kernels", [])
                        if k["kind"] == "kernel"])


def kernels(results, lang, names):
    rows = []
    briefs = _briefs(results, names, lang)
    for name in names:
        row = results["variants"].get(name)
        if not row:
            continue
        if row["status"] != "ok":
            rows.append(not_run_row(name, row, lang, 4, fill=""))
            continue
        for k in row["kernels"]:
            # a copy or a fill (Memcpy, Memset: the name says which) stands out in bold
            kernel = kernel_cell(k["short_name"], lang, briefs, bold=k["kind"] != "kernel")
            rows.append([label(name, lang), kernel,
                         f"`{k['aten_op']}`" if k["aten_op"] else t("value.none", lang),
                         f"`{k['launched_by']}`", fmt_num(k["per_forward"], lang, 0),
                         fmt_us(k["avg_us"], lang)])
    cols = ("col.variant", "col.kernel", "col.op", "col.launched_by", "col.per_forward", "col.avg_time")
    return md_table([t(c, lang) for c in cols], rows, ["l", "l", "l", "l", "r", "r"])


def _resource_rows(results, names):
    out = []
    for name in names:
        row = results["variants"].get(name)
        if row and row["status"] == "ok":
            out += [(name, k) for k in row["kernels"] if k["kind"] == "kernel" and "our_optin_pct" in k]
    return out


def resources(results, lang, names):
    """Two tables that fit the page's column: what each kernel asked for, then the
    occupancy that gives, Kineto's and ours, row for row; a long generated kernel name
    by its short name, the full one a click away (kernel_names.kernel_cell)."""
    asked, occupancy = [], []
    briefs = _briefs(results, names, lang)
    for name, k in _resource_rows(results, names):
        kineto = k["kineto_occupancy_pct"]
        kernel = kernel_cell(k["short_name"], lang, briefs)
        asked.append([label(name, lang), kernel, str(k["registers_per_thread"]),
                      fmt_bytes(k["shared_memory"], lang), "×".join(map(str, k["block"])),
                      "×".join(map(str, k["grid"]))])
        occupancy.append([label(name, lang), kernel,
                          fmt_pct(kineto, lang, 0) if kineto is not None else t("value.none", lang),
                          fmt_pct(k["our_kineto_rule_pct"], lang), fmt_pct(k["our_optin_pct"], lang),
                          fmt_num(k["our_optin_blocks"], lang, 0), limits_text(k["our_optin_limited_by"], lang)])
    first = md_table([t(c, lang) for c in ("col.variant", "col.kernel", "col.regs", "col.smem", "col.block",
                                            "col.grid")], asked, ["l", "l", "r", "r", "r", "r"])
    second = md_table([t(c, lang) for c in ("col.variant", "col.kernel", "col.kineto_occ", "col.ours_kineto",
                                             "col.ours_optin", "col.blocks_sm", "col.limited_by")],
                      occupancy, ["l", "l", "r", "r", "r", "r", "l"])
    return first + "\n\n" + second


def details(results, lang):
    none = t("value.none", lang)
    roof = results["roof"]
    gap = has_idle_gap(results["variants"].values())
    rows = []
    for name, row in results["variants"].items():
        if row["status"] != "ok":
            rows.append(not_run_row(name, row, lang, 6 + gap))
            continue
        cuda = gpu_span(row)
        spread = f"{fmt_us(cuda['min'], lang)} – {fmt_us(cuda['max'], lang)}" if cuda else none
        rows.append([label(name, lang), fmt_us(median(kernel_time(row)), lang), spread]
                    + [idle_gap_cell(row, lang)] * gap
                    + [fmt_mib(row.get("peak_extra_mib"), lang), fmt_tflops(row["tflops"], lang),
                       fmt_pct(100 * row["tflops"] / roof["tflops"], lang),
                       fmt_error(row["rel_error"], lang), fmt_us(row["first_call_ms"] * 1000, lang)])
    cols = ("col.variant", "col.kernel_sum", "col.spread", *("col.idle_gap",) * gap, "col.peak_mem", "col.tflops",
            "col.roof_share", "col.rel_err", "col.first_call")
    note = t("page.roof_note", lang).format(dtype=roof["dtype"], n=roof["shape"][0],
                                            tflops=fmt_tflops(roof["tflops"], lang))
    sheet = beside_matmul(results, lang)
    return md_table([t(c, lang) for c in cols], rows) + "\n\n" + note + (f" {sheet}" if sheet else "")


def vocabulary(results, ref, lang):
    """The words for time every table, finding and figure uses: what each is, and which
    figure of it is shown (the A100's last, as Hugging Face's)."""
    steps = t("stat.median_steps", lang, steps=fmt_num(results["config"]["steps"], lang, 0))
    h = next(iter(host_figures(results).values()), None)
    host = t("value.none", lang)
    if h:
        host = t("stat.host", lang, **_slicing(h, lang))
    rows = [
        ("col.kernel_sum", "vocab.kernel_time", steps),
        ("col.cuda_time", "vocab.gpu_span", steps),
        ("col.idle_gap", "vocab.idle_gap", t("stat.gap", lang)),
        ("col.wall", "vocab.wall", t("stat.wall", lang)),
        ("col.latency", "vocab.latency", t("stat.latency", lang)),
        ("col.host_time", "vocab.host", host),
        ("col.cpu_time", "vocab.profiled_cpu", steps),
        ("col.hf_cuda", "vocab.hf_cuda",
         t("stat.mean_active", lang, steps=fmt_num(ref["config"]["active_steps"], lang, 0))),
    ]
    pct = fmt_pct(GAP_SHOWN, lang, 0)
    body = [[f"**{t(col, lang)}**", t(what, lang).format(pct=pct), stat] for col, what, stat in rows]
    return md_table([t(c, lang) for c in ("col.term", "col.meaning", "col.statistic")], body, ["l", "l", "l"])


def _slicing(h, lang):
    """How a host-overhead figure was sampled: slices, timed calls per slice, untimed ones."""
    return {"slices": fmt_num(h["slices"], lang, 0), "calls": fmt_num(h["calls"] // h["slices"], lang, 0),
            "warm": fmt_num(h["warm"], lang, 0)}


def host_overhead(results, lang):
    """Per variant: host overhead in µs and in small ops, how far each moved between the
    quarters of the pass and what the small op itself cost; the note says in how many
    slices (at least) the GPU was still busy when the last call had been issued."""
    hs = host_figures(results)
    if not hs:
        return t("finding.missing", lang)
    rows = []
    for name, h in hs.items():
        op, per_op = h["small_op_us"], h["per_small_op"]
        rows.append([label(name, lang), fmt_us(h["median"], lang), fmt_pct(h["spread_pct"], lang, 0),
                     fmt_ratio(per_op["median"], lang), fmt_pct(per_op["spread_pct"], lang, 0),
                     f"{fmt_us(min(op['quarters']), lang)} – {fmt_us(max(op['quarters']), lang)}"])
    cols = ("col.variant", "col.host_time", "col.host_spread", "col.host_small_ops", "col.host_small_ops_spread",
            "col.small_op")
    first = next(iter(hs.values()))
    note = t("note.host_overhead", lang, **_slicing(first, lang),
             busy=fmt_pct(math.floor(100 * min(h["gpu_kept_busy"] for h in hs.values())), lang, 0))  # "at least"
    return md_table([t(c, lang) for c in cols], rows) + "\n\n" + note


def cpu_ops(results, lang, names):
    v = results["variants"]
    names = [n for n in names if v.get(n, {}).get("status") == "ok"]
    ops = sorted({op for n in names for op in v[n]["cpu_ops_per_forward"]})
    rows = [[f"`{op}`"] + [fmt_num(v[n]["cpu_ops_per_forward"].get(op, 0), lang, 0) for n in names]
            for op in ops]
    return md_table([t("col.op", lang)] + [label(n, lang) for n in names], rows)


def profiler_table(results, name, lang):
    row = results["variants"][name]
    if row["status"] != "ok":
        return f"{label(name, lang)}: {status_text(row, lang)} ({markdown_safe(row['reason'])})"
    return fenced(row["profiler_table"])


def provenance(results, lang):
    p = results["provenance"]
    keys = ["gpu_name", "compute_capability", "sm_count", "gpu_memory_gib", "driver", "cuda",
            "cudnn", "torch", "python", "cpu_threads", "date", "command"]
    rows = [[f"`{k}`", f"`{p[k]}`" if k == "command" else str(p[k])] for k in keys if k in p]
    rows += [[f"`{f}` (sha256)", f"`{h}`"] for f, h in p["snippet_sha256"].items()]
    if p.get("code_sha256"):  # one line for the build's measuring code (per file in results.json)
        joined = "".join(f"{f}:{h}\n" for f, h in sorted(p["code_sha256"].items()))
        rows.append(["`report/` (sha256)", f"`{hashlib.sha256(joined.encode()).hexdigest()[:16]}`"])
    return md_table([t("col.prov_item", lang), t("col.prov_value", lang)], rows, ["l", "l"])


def base_name(kernel):
    """A kernel's function name without namespace, template arguments or parameters."""
    return short_kernel_name(kernel).rsplit("::", 1)[-1]




def _ncu_work(section):
    """Whether the run's ncu rows carry DRAM bytes (newer runs)."""
    return any("dram_read_bytes" in m
               for name, r in section.get("rows", {}).items() if name in FUSED
               for m in r.get("kernels", {}).values())


def _work_cells(m, lang):
    """DRAM read / written in MB (– where not measured). The tensor pipes have a table of
    their own beside occupancy (findings/ncu_findings.py: tensor_pipe), so not here too."""
    if "dram_read_bytes" not in m:
        return [t("value.none", lang)]
    return [f"{fmt_num(m['dram_read_bytes'] / 1e6, lang)} / {fmt_num(m.get('dram_write_bytes', 0) / 1e6, lang)}"]


def _ncu_rows(results, lang, work=False):
    rows = []
    briefs = brief_names([short_kernel_name(kernel) for name, r in results["ncu"].get("rows", {}).items()
                          if name in FUSED for kernel in r.get("kernels", {})])
    for name, r in results["ncu"].get("rows", {}).items():
        if name not in FUSED:  # math's and naive's kernels are read by the findings, not listed here
            continue
        # ncu and Kineto spell kernels differently (namespaces, template arguments)
        ours = {base_name(k["name"]): k for k in results["variants"][name]["kernels"] if k["kind"] == "kernel"}
        if r["status"] != "ok":
            rows.append(not_run_row(name, r, lang, 5 + work))
            continue
        for kernel, m in r["kernels"].items():
            k = ours.get(base_name(kernel), {})
            limits = " / ".join(fmt_num(m.get(x, 0), lang, 0)
                                for x in ("limit_registers", "limit_shared_memory", "limit_warps"))
            rows.append([label(name, lang), kernel_cell(short_kernel_name(kernel), lang, briefs),
                         fmt_pct(k.get("kineto_occupancy_pct"), lang, 0), fmt_pct(k.get("our_optin_pct"), lang),
                         fmt_pct(m.get("theoretical_pct"), lang), fmt_pct(m.get("achieved_pct"), lang), limits]
                        + (_work_cells(m, lang) if work else []))
    return rows


def ncu_occupancy(results, lang):
    """Kineto, our calculator and Nsight Compute side by side, for each fused kernel; where
    the run has them, ncu's DRAM bytes and tensor-pipe use beside (and the metrics named)."""
    section = results.get("ncu")
    if not section:
        return t("finding.missing", lang)
    refused = {"unavailable": "value.ncu_unavailable", "no_permission": "value.ncu_no_permission"}
    if section["status"] in refused:
        return t(refused[section["status"]], lang)
    work = _ncu_work(section)
    cols = ("col.variant", "col.kernel", "col.kineto_occ", "col.ours_optin", "col.ncu_theoretical",
            "col.ncu_achieved", "col.ncu_limits") + (("col.ncu_dram",) if work else ())
    table = md_table([t(c, lang) for c in cols], _ncu_rows(results, lang, work),
                     ["l", "l", "r", "r", "r", "r", "r"] + ["r"] * work)
    note = t("page.ncu_note", lang)
    if work:
        used = section.get("metrics") or {}
        names = ", ".join(f"`{used[k]}`" for k in ("dram_read_bytes", "dram_write_bytes") if k in used)
        note += " " + t("page.ncu_work_note", lang, metrics=names or t("value.none", lang))
    return table + "\n\n" + note


def rounds_table(results, lang):
    """Every variant's figures over the run's independent rounds: each as its range (the
    median of each round), so a reader sees what a rerun moves; the "not measured" line
    for a run without rounds."""
    rows, n = [], 0
    for name, row in results["variants"].items():
        rounds = [r for r in row.get("rounds") or [] if isinstance(r, dict) and not r.get("error")]
        if row.get("status") != "ok" or not rounds:
            continue
        n = max(n, len(rounds))
        host = [r.get("host_time_us") for r in rounds]
        per_op = [h.get("per_small_op") if isinstance(h, dict) else None for h in host]
        rows.append([label(name, lang)] +
                    [fmt_us_range(round_range([r.get(key) for r in rounds]), lang)
                     for key in (KERNEL_TIME, "wall_time_us")] +
                    [fmt_us_range(round_range(host), lang), _ops_range(round_range(per_op), lang)])
    if not rows:
        return t("finding.missing", lang)
    headers = [t("col.variant", lang), t("col.kernel_sum", lang), t("col.wall", lang), t("col.host_time", lang),
               t("col.rounds_small_ops", lang)]
    return md_table(headers, rows) + "\n\n" + t("page.rounds_note", lang, n=n)


def _ops_range(low_high, lang):
    """"4.4–6.5": a cost in small ops over the rounds (a ratio: no unit)."""
    if low_high is None:
        return t("value.none", lang)
    low, high = (fmt_sig(x, lang) for x in low_high)
    return low if low == high else f"{low}\u2013{high}"

