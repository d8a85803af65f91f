"""Every GPU's results side by side: one column per GPU run, and Hugging Face's A100.

The caller passes the results of every folder it found ([(folder name, results), ...]);
a run without CUDA in its provenance (a CPU run) is left out, the others become columns
in the order of their folder names, and the cited A100 figures are the last column. The
files have fixed names (FILES), so the page that includes them needs no edit when a GPU
is added. Columns that measured another shape say so in the table, and the findings
compare only columns of the same shape; they call one faster only beyond noise
(report/verdict: differ).
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from ..text.catalog import t
from ..text.display import BACKEND_NAMES, LANGS
from ..text.format import fmt_num, fmt_pct, fmt_ratio, fmt_us
from ..variants import EXTRA_VARIANTS, FUSED, VARIANTS
from ..verdict import differ, median, point_figure
from .findings.common import by_pair_group, by_rounds, compute_kernel, ok, pair_group
from .header import header
from .markdown import code_safe, kernel_count, label, markdown_safe, md_table, safe_provenance, status_text

FILES = ("runs", "cuda-time", "cpu-time", "wall-time", "kernels", "sweep", "findings")
SHAPE_KEYS = ("batch", "heads", "seq_len", "head_dim", "dtype")


@dataclass(frozen=True)
class Column:
    label: str          # Markdown-safe
    shape: tuple        # SHAPE_KEYS' values
    folder: str | None  # None: Hugging Face's A100
    results: dict       # safe_provenance(results.json), or the reference's figures


def columns(runs, ref, lang):
    """One Column per GPU run (sorted by folder), then the A100's."""
    gpu = sorted(((folder, safe_provenance(r)) for folder, r in runs if "cuda" in r["provenance"]),
                 key=lambda item: item[0])
    names = [r["provenance"]["gpu_name"] for _, r in gpu]
    cols = []
    for folder, r in gpu:
        name = r["provenance"]["gpu_name"]
        if names.count(name) > 1:  # two runs of one GPU: the folder tells them apart
            name = f"{name} ({markdown_safe(folder)})"
        cols.append(Column(name, shape_of(r["config"]), folder, r))
    cols.append(Column(t("compare.a100", lang), shape_of(ref["config"]), None, ref))
    return cols


def shape_of(config):
    return tuple(config.get(k) for k in SHAPE_KEYS)


def shape_text(shape, lang, key="compare.shape"):
    """"8 × 16 × 1024 × 64, bfloat16" (B × H × S × D), or the sentence of `key`."""
    return t(key, lang).format(**dict(zip(SHAPE_KEYS, shape, strict=True)))


def _finite(x):
    return x if isinstance(x, (int, float)) and math.isfinite(x) and x > 0 else None


# --- the cells of one column -------------------------------------------------------------

def _row(col, name):
    return col.results["variants"].get(name)


def _ours(col, name, lang, value):
    """The cell of a measured variant: value(row), its status, or "–" where not measured."""
    row = _row(col, name)
    if row is None:
        return t("value.none", lang)
    if row["status"] != "ok":
        return status_text(row, lang)
    return value(row)


def cuda_cell(col, name, lang):
    if col.folder is None:
        return fmt_us((_row(col, name) or {}).get("cuda_time_us"), lang)
    return _ours(col, name, lang, lambda row: fmt_us(median(row.get("cuda_time_us")), lang))


def cpu_cell(col, name, lang):
    if col.folder is None:
        return fmt_us((_row(col, name) or {}).get("cpu_time_us"), lang)
    return _ours(col, name, lang, lambda row: fmt_us(median(row.get("cpu_time_us")), lang))


def wall_cell(col, name, lang):
    return _ours(col, name, lang, lambda row: fmt_us((row.get("wall_time_us") or {}).get("median"), lang))


def kernels_cell(col, name, lang):
    if col.folder is None:
        n = (_row(col, name) or {}).get("kernels_per_forward")
        return fmt_num(n, lang, 0) if n is not None else t("value.none", lang)
    return _ours(col, name, lang, lambda row: kernel_count(row, lang))


def cuda_figure(col, name):
    """A column's recorded GPU span of a variant (Hugging Face's "CUDA time" for the A100,
    a figure with no spread), or None."""
    row = _row(col, name) or {}
    if col.folder is None:
        x = _finite(row.get("cuda_time_us"))
        return {"median": x} if x else None
    if row.get("status") != "ok":
        return None
    return _timed(row.get("cuda_time_us"))


def _timed(figure):
    return figure if figure and _finite(figure.get("median")) else None


# --- the tables ----------------------------------------------------------------------------

def variant_names(cols):
    """Every variant some column has, the known ones in their usual order."""
    seen = [n for c in cols for n in c.results["variants"]]
    known = [n for n in VARIANTS + EXTRA_VARIANTS if n in seen]
    return known + [n for n in dict.fromkeys(seen) if n not in known]


def shape_note(cols, lang):
    """(a first row naming each column's shape, or None; the note under the table)."""
    shapes = {c.shape for c in cols}
    if len(shapes) == 1:
        return None, shape_text(cols[0].shape, lang, "compare.same_shape")
    return ([t("compare.shape_row", lang)] + [shape_text(c.shape, lang) for c in cols],
            t("compare.shapes_differ", lang))


def variant_table(cols, lang, cell):
    first, note = shape_note(cols, lang)
    rows = [first] if first else []
    rows += [[label(n, lang)] + [cell(c, n, lang) for c in cols] for n in variant_names(cols)]
    return md_table([t("col.variant", lang)] + [c.label for c in cols], rows), note


def runs_table(cols, ref, lang):
    none = t("value.none", lang)
    src = ref["source"]
    items = [
        ("compare.row_folder", lambda c: f"`{code_safe(c.folder)}`" if c.folder
         else f"[{src['publisher']}]({src['url']})"),
        ("compare.row_gpu", lambda c: c.results["provenance"]["gpu_name"] if c.folder
         else markdown_safe(src["gpu_name"])),
        ("compare.shape_row", lambda c: shape_text(c.shape, lang)),
        ("compare.row_driver", lambda c: c.results["provenance"].get("driver") if c.folder else None),
        ("compare.row_cuda", lambda c: c.results["provenance"].get("cuda") if c.folder else None),
        ("compare.row_cudnn", lambda c: c.results["provenance"].get("cudnn") if c.folder else None),
        ("compare.row_torch", lambda c: c.results["provenance"].get("torch") if c.folder else None),
        ("compare.row_date", lambda c: c.results["provenance"].get("date") if c.folder
         else markdown_safe(src["published"])),
        ("compare.row_command", lambda c: f"`{c.results['provenance']['command']}`" if c.folder else None),
        ("compare.row_statistic", lambda c: statistic(c, lang)),
    ]
    rows = [[t(key, lang)] + [str(v) if (v := get(c)) is not None else none for c in cols]
            for key, get in items]
    return md_table([t("compare.column", lang)] + [c.label for c in cols], rows, ["l"] * (len(cols) + 1))


def statistic(col, lang):
    """Which figure of the steps a column shows: our median, or Hugging Face's mean."""
    if col.folder is None:
        return t("stat.mean_active", lang, steps=fmt_num(col.results["config"]["active_steps"], lang, 0))
    steps = col.results["config"].get("steps")
    return t("stat.median_steps", lang, steps=fmt_num(steps, lang, 0)) if steps else None


def _sweep_key(sweep):
    return sweep.get("batch"), sweep.get("heads"), sweep.get("dtype")


def sweep_tables(cols, lang):
    """Per head dimension: the fastest variant at each sequence length, one column per GPU."""
    swept = [c for c in cols if c.folder and c.results.get("sweep")]
    if not swept:
        return t("compare.no_sweep", lang)
    parts = []
    for d in sorted({d for c in swept for d in c.results["sweep"]["head_dims"]}):
        have = [c for c in swept if d in c.results["sweep"]["head_dims"]]
        seqs = sorted({s for c in have for s in c.results["sweep"]["seq_lens"]})
        rows, differ = [], len({_sweep_key(c.results["sweep"]) for c in have}) > 1
        if differ:
            rows.append([t("compare.sweep_shape_row", lang)] + [
                t("compare.sweep_shape", lang).format(batch=b, heads=h, dtype=dt)
                for b, h, dt in (_sweep_key(c.results["sweep"]) for c in have)])
        for s in seqs:
            rows.append([fmt_num(s, lang, 0)] + [_fastest_cell(c, d, s, lang) for c in have])
        parts += [t("compare.head_dim", lang).format(head_dim=d), "",
                  md_table([t("figure.seq", lang)] + [c.label for c in have], rows), ""]
        parts += [t("compare.shapes_differ", lang), ""] if differ else []
    missing = [c.label for c in cols if c.folder and c not in swept]
    if missing:
        parts += [t("compare.sweep_missing", lang).format(gpus=", ".join(missing)), ""]
    return "\n".join(parts + [t("compare.sweep_note", lang)])


def _fastest_cell(col, head_dim, seq_len, lang):
    """The fastest time at a point and every variant within noise of it ("auto" is left
    out: it runs one of the others)."""
    points = [p for p in col.results["sweep"]["points"]
              if p["head_dim"] == head_dim and p["seq_len"] == seq_len and p["variant"] != "auto"]
    timed = {p["variant"]: x for p in points if p["status"] == "ok" and (x := _timed(point_figure(p)))}
    if not timed:
        if not points:
            return t("value.none", lang)
        return status_text(next((p for p in points if p["status"] == "oom"), points[0]), lang)
    ahead, _ = leaders(timed)
    return f"{fmt_us(timed[ahead[0]]['median'], lang)} · {', '.join(label(n, lang) for n in ahead)}"


# --- the findings --------------------------------------------------------------------------

def _join(items, lang):
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + t("compare.and", lang) + items[-1]


def leaders(figures):
    """(the keys within noise of the fastest figure, fastest first; [(key, ratio)] of the
    rest by ratio). Noise is report/verdict's: a cited figure with no spread is compared
    within the other's spread."""
    best = min(figures.values(), key=lambda f: f["median"])
    ranked = sorted(figures, key=lambda k: figures[k]["median"])
    ahead = [k for k in ranked if not differ(figures[k], best)]
    behind = [(k, figures[k]["median"] / best["median"]) for k in ranked if differ(figures[k], best)]
    return ahead, behind


def _verdict_line(cols, name, ahead, behind, lang):
    """One variant's verdict in a sentence of its own."""
    gpus = _join([cols[i].label for i in ahead], lang)
    if not behind:
        return t("compare.even", lang).format(variant=label(name, lang), gpus=gpus)
    slower = [t("compare.slower", lang).format(gpu=cols[i].label, ratio=fmt_ratio(r, lang)) for i, r in behind]
    return t("compare.faster", lang).format(variant=label(name, lang), gpus=gpus, slower=", ".join(slower))


def _ratio_span(found, lang):
    """"1.6× (SDPA flash) to 2.7× (SDPA math)" from [(ratio, variant)], or "2.0×" where
    every variant gives the same figure as printed."""
    low, high = min(r for r, _ in found), max(r for r, _ in found)
    if fmt_ratio(low, lang) == fmt_ratio(high, lang):
        return fmt_ratio(low, lang)

    def at(x):
        names = [label(n, lang) for r, n in found if fmt_ratio(r, lang) == fmt_ratio(x, lang)]
        return t("compare.ratio_for", lang, ratio=fmt_ratio(x, lang), variants=_join(names, lang))

    return t("compare.ratio_span", lang, low=at(low), high=at(high))


def _pattern_line(cols, ahead, slower_cols, members, which, lang):
    """The verdict several variants share, once: who is fastest, and for each slower
    column the range of its factors over those variants."""
    gpus = _join([cols[i].label for i in ahead], lang)
    if not slower_cols:
        return t("compare.pattern_even", lang, gpus=gpus, which=which)
    slower = [t("compare.slower", lang).format(
        gpu=cols[i].label, ratio=_ratio_span([(dict(behind)[i], name) for name, _, behind in members], lang))
        for i in slower_cols]
    return t("compare.pattern_faster", lang, gpus=gpus, which=which, slower=", ".join(slower))


def speed_lines(cols, lang, indent="    "):
    """Which column is clearly faster in GPU span (same shape only): the verdict most
    variants share, said once with the range of the slower columns' factors; under it the
    exceptions, the variants that share another verdict together, a variant alone in its
    own sentence."""
    verdicts = []  # (variant, the columns within noise of the fastest, [(column, ratio)] of the rest)
    for name in variant_names(cols):
        values = {i: v for i, c in enumerate(cols) if (v := cuda_figure(c, name)) is not None}
        if len(values) >= 2:
            verdicts.append((name, *leaders(values)))
    groups = {}  # (ahead, slower columns) -> its variants' verdicts, in variant order
    for v in verdicts:
        groups.setdefault((tuple(v[1]), tuple(sorted(i for i, _ in v[2]))), []).append(v)
    ranked = sorted(groups.items(), key=lambda item: -len(item[1]))  # stable: the first of the most
    if not ranked or len(ranked[0][1]) < 2:  # no verdict shared: one sentence per variant
        return [_verdict_line(cols, *v, lang) for v in verdicts]
    (ahead, slower_cols), members = ranked[0]
    which = (t("compare.which_all", lang, total=len(verdicts)) if len(ranked) == 1
             else t("compare.which_some", lang, n=len(members), total=len(verdicts)))
    line = _pattern_line(cols, ahead, slower_cols, members, which, lang)
    others = []
    for (ahead, slower_cols), group in ranked[1:]:
        if len(group) == 1:
            others.append(_verdict_line(cols, *group[0], lang))
        else:
            names = _join([label(name, lang) for name, _, _ in group], lang)
            others.append(_pattern_line(cols, ahead, slower_cols, group, names, lang))
    if others:
        line += " " + t("compare.exception_one" if len(verdicts) - len(members) == 1 else "compare.exception_many",
                        lang)
        line += "".join(f"\n{indent}- {other}" for other in others)
    return [line]


@dataclass(frozen=True)
class Leaders:
    """The fused backends no other beats in one metric: `names`, fastest first (the lowest,
    then those the paired rule of report/verdict cannot tell from it), `within`: the widest
    "the same within ±y %" among them (0 for one)."""
    names: tuple[str, ...]
    within: float


def paired_leaders(medians, verdict) -> Leaders | None:
    """From {backend: its median} and verdict(a, b) (a Paired, "<" where a is faster):
    the lowest and every backend not slower than it by the rule."""
    if not medians:
        return None
    best = min(medians, key=medians.get)
    ties = [(n, v) for n in sorted(medians, key=medians.get) if n != best
            and (v := verdict(best, n)) is not None and v.order is None]
    return Leaders((best, *(n for n, _ in ties)), max((v.within for _, v in ties), default=0.0))


def kernel_leaders(results) -> Leaders | None:
    """The fused backends fastest in kernel time (by_rounds: the rounds' medians), or None
    where a backend that ran lacks rounds (files written before them)."""
    rows = {n: r for n in FUSED if (r := ok(results, n)) and r.get("kernel_sum_us")}
    if not rows or any(not r.get("rounds") for r in rows.values()):
        return None
    return paired_leaders({n: median(r["kernel_sum_us"]) for n, r in rows.items()},
                          lambda a, b: by_rounds(rows[a], rows[b]))


def wall_leaders(results) -> Leaders | None:
    """The fused backends fastest in wall time per call, timed in pairs at the seed shape
    (group "seed_wall"), or None where the run has no pairs."""
    group = pair_group(results, "seed_wall")
    if group is None:
        return None
    blocks = {n: [x for rnd in group["rounds"] if "error" not in rnd for x in (rnd.get("blocks_us") or {}).get(n) or []]
              for n in FUSED}
    medians = {n: statistics.median(b) for n, b in blocks.items() if b}
    return paired_leaders(medians, lambda a, b: by_pair_group(results, "seed_wall", a, b))


def _leaders_text(found, lang):
    text = _join([BACKEND_NAMES[n] for n in found.names], lang)
    return text + (t("compare.within", lang, pct=fmt_pct(found.within, lang, 0)) if len(found.names) > 1 else "")


def fused_line(col, lang):
    """Our GPU: the fastest fused backend in kernel time and in wall time per call, each by
    the paired rule; Hugging Face's A100: only its profiler's CUDA time, named so and
    ranked by nothing but the order of its figures (it has no kernel time or wall time)."""
    if col.folder is None:
        values = {BACKEND_NAMES[n]: v for n in FUSED if (v := cuda_figure(col, n)) is not None}
        if not values:
            return []
        low = _join(sorted(values, key=lambda k: values[k]["median"])[:1], lang)
        return [t("compare.fused_cited", lang, gpu=col.label, backend=low, auto=t("compare.auto_unknown", lang))]
    kernel, wall = kernel_leaders(col.results), wall_leaders(col.results)
    if kernel is None and wall is None:
        return []
    ran = (_row(col, "auto") or {}).get("backend_ran")
    auto = t("compare.auto", lang).format(backend=BACKEND_NAMES.get(ran, ran)) if ran else ""
    parts = [t("compare.fused_kernel", lang, backends=_leaders_text(kernel, lang)) if kernel
             else t("compare.fused_kernel_none", lang),
             t("compare.fused_wall", lang, backends=_leaders_text(wall, lang)) if wall
             else t("compare.fused_wall_none", lang)]
    return [t("compare.fused", lang, gpu=col.label, kernel=parts[0], wall=parts[1], auto=auto).rstrip()]


def occupancy_line(cols, lang):
    """Kineto's estimate for the fused kernels of each column (computed, not measured)."""
    parts = []
    for c in cols:
        occ = []
        for n in FUSED:
            row = _row(c, n) or {}
            if c.folder is None:
                pct = row.get("est_occupancy_pct")
            else:
                k = compute_kernel(row) if row.get("status") == "ok" else None
                pct = k.get("kineto_occupancy_pct") if k else None
            if pct is not None:
                occ.append(f"{BACKEND_NAMES[n]} {fmt_pct(pct, lang, 0)}")
        if occ:
            parts.append(t("compare.on", lang).format(what=", ".join(occ), gpu=c.label))
    return [t("compare.occupancy", lang).format(list="; ".join(parts))] if parts else []


def findings(cols, lang):
    groups = {}
    for c in cols:
        groups.setdefault(c.shape, []).append(c)
    lines = [t("compare.rule", lang)]
    for shape, group in groups.items():
        if len(group) == 1:
            lines.append(t("compare.alone", lang).format(gpu=group[0].label, shape=shape_text(shape, lang)))
        elif len(groups) == 1:
            lines += speed_lines(group, lang)
        elif sub := speed_lines(group, lang, indent="        "):  # a list per shape
            lines.append(t("compare.group", lang).format(shape=shape_text(shape, lang),
                                                         gpus=_join([c.label for c in group], lang))
                         + "".join(f"\n    - {line}" for line in sub))
    for c in cols:
        lines += fused_line(c, lang)
    lines += occupancy_line(cols, lang)
    return "\n".join(f"- {line}" for line in lines)


# --- the files -----------------------------------------------------------------------------

def bodies(runs, ref, lang):
    """name -> (Markdown body, notes under it, the functions that wrote it), for every name
    in FILES."""
    cols = columns(runs, ref, lang)
    cite = t("page.cite", lang).format(**ref["source"])
    ours = [c for c in cols if c.folder]
    out = {"runs": (runs_table(cols, ref, lang), [cite], (runs_table,))}
    stat = t("compare.statistic", lang, steps=fmt_num(ref["config"]["active_steps"], lang, 0))
    for name, cell, cs, extra in (("cuda-time", cuda_cell, cols, [stat, cite]),
                                  ("cpu-time", cpu_cell, cols, [stat, cite]),
                                  ("wall-time", wall_cell, ours, [t("compare.no_a100_wall", lang)]),
                                  ("kernels", kernels_cell, cols, [cite])):
        table, note = variant_table(cs, lang, cell)
        out[name] = (table, [note] + extra, (variant_table, cell))
    out["sweep"] = (sweep_tables(cols, lang), [], (sweep_tables,))
    out["findings"] = (findings(cols, lang), [], (findings,))
    return out


def has_gpu_runs(runs):
    return any("cuda" in r["provenance"] for _, r in runs)


def render_compare(runs, ref, tables_dir):
    """Write tables_dir/<name>.<lang>.md for every name in FILES; returns the paths."""
    tables_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for lang in LANGS:
        for name, (body, notes, fns) in bodies(runs, ref, lang).items():
            foot = ["", "  \n".join(notes)] if notes else []
            path = tables_dir / f"{name}.{lang}.md"
            path.write_text("\n".join([header(lang, fns), "", body] + foot) + "\n", encoding="utf-8")
            written.append(path)
    return written
