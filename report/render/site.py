"""Every generated file of one GPU's folder: tables/<name>.<lang>.md and figures/*.svg."""
from __future__ import annotations

from pathlib import Path

from ..text.catalog import t
from ..trace.explain import TraceError, explain, load_trace, report
from ..variants import FUSED, LANGS
from . import causes, extra_tables, figures, findings, shapes, tables
from .markdown import caption, fenced, safe_provenance


def seed_tables(results, ref, lang):
    """name -> Markdown body, for the tables of the seed's shape."""
    fused = list(FUSED) + ["auto"]
    naive_math = ["naive", "naive_inplace", "math"]
    out = {
        "vocabulary": tables.vocabulary(results, ref, lang),
        "headline": tables.headline(results, lang),
        "headline-home": tables.headline_home(results, lang),
        "kernels-naive-math": tables.kernels(results, lang, naive_math),
        "kernels-fused": tables.kernels(results, lang, fused),
        "resources": tables.resources(results, lang, fused),
        "details": tables.details(results, lang),
        "cpu-ops-naive-math": tables.cpu_ops(results, lang, naive_math),
        "cpu-ops-fused": tables.cpu_ops(results, lang, fused),
        "provenance": tables.provenance(results, lang),
        "attribution": causes.attribution_table(results, lang),
        "occupancy-ncu": tables.ncu_occupancy(results, lang),
        "host-overhead": tables.host_overhead(results, lang),
    }
    for name in results["variants"]:
        out[f"profiler-{name}"] = tables.profiler_table(results, name, lang)
    for name, keys in findings.FILES.items():
        out[name] = findings.render_findings(results, ref, lang, keys)
    return out


def extra(results, ref, lang):
    """name -> Markdown body, for the --all measurements."""
    out = {}
    for name, keys in findings.EXTRA_FILES.items():
        out[name] = findings.render_findings(results, ref, lang, keys)
    sweep = results.get("sweep")
    for d in sweep["head_dims"] if sweep else ():
        cap = t("page.sweep_caption", lang).format(**sweep)
        for what in ("time", "memory", "tflops"):
            out[f"sweep-{what}-d{d}"] = extra_tables.sweep_table(sweep, lang, d, what) + "\n\n" + cap
    overhead = results.get("overhead")
    for shape_name, cfg in overhead["shapes"].items() if overhead else ():
        out[f"overhead-{shape_name}"] = (t(f"page.shape_{shape_name}", lang).format(**cfg) + "\n\n"
                                         + extra_tables.overhead_table(overhead, lang, shape_name))
    for d in sweep["head_dims"] if sweep and any(p.get("backend_ran") for p in sweep["points"]) else ():
        out[f"auto-vs-best-d{d}"] = extra_tables.auto_vs_best_table(sweep, lang, d)
    if results.get("first_calls"):
        out["first-calls"] = extra_tables.first_calls_table(results["first_calls"], lang)
    if results.get("backward"):
        out["backward"] = extra_tables.backward_table(results["backward"], lang)
    out.update(shapes.render_tables(results, ref, lang))  # every file, measured or not
    return out


# the traces whose `build_tables.py --explain` output the page "Read your own trace" shows
EXPLAINED = ("cudnn", "naive")


def explained(traces_dir, traces_shown):
    """name -> Markdown body: the command and what it prints, for each trace of EXPLAINED.

    The output is the command's own (English, en numbers) in both languages. A trace that
    is missing or has no GPU activity (a CPU run's) gets no file.
    """
    out = {}
    for variant in EXPLAINED if traces_dir is not None else ():
        path = Path(traces_dir) / f"{variant}.json.gz"
        if not path.is_file():
            continue
        try:
            text = report(explain(load_trace(path)))
        except TraceError:
            continue
        command = f"$ python build_tables.py --explain {traces_shown}/{variant}.json.gz"
        out[f"explain-{variant}"] = fenced(command + "\n" + text)
    return out


def render_all(results, ref, tables_dir, figures_dir=None, traces_dir=None, traces_shown=None):
    """Write tables/<name>.<lang>.md (and figures/*.svg) in both languages; returns the paths.

    With traces_dir (the folder's traces/), also the --explain output of some of its
    traces, with the command line naming the folder as traces_shown.
    """
    written = []
    traces_shown = traces_shown or (Path(traces_dir).as_posix() if traces_dir else None)
    explanations = explained(traces_dir, traces_shown)
    tables_dir.mkdir(parents=True, exist_ok=True)
    plain, results = results, safe_provenance(results)  # figures draw text, pages read Markdown
    for lang in LANGS:
        head = [t("page.header", lang), ""]
        shape = t("page.shape", lang).format(**results["config"])
        bodies = {name: (body, [shape]) for name, body in seed_tables(results, ref, lang).items()}
        bodies.update({name: (body, []) for name, body in extra(results, ref, lang).items()})
        bodies.update({name: (body, [shape]) for name, body in explanations.items()})
        for name, (body, notes) in bodies.items():
            foot = ["", caption(results, lang) + ("  " if notes else "")] + notes
            path = tables_dir / f"{name}.{lang}.md"
            path.write_text("\n".join(head + [body] + foot) + "\n", encoding="utf-8")
            written.append(path)
        if figures_dir is not None:
            written += figures.render_figures(plain, lang, figures_dir)
            written += shapes.render_figures(plain, lang, figures_dir)
    return written
