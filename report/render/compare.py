"""Every GPU's results side by side: the files of docs/generated/compare/.

The caller passes the results of every folder it found ([(folder name, results), ...]);
compare_columns.py makes one column per GPU run (a CPU run is left out) in the order of
their folder names, and the cited A100 figures the last column; compare_tables.py writes
the tables, compare_findings.py the findings' facts, which
report/text/templates/compare-findings.<lang>.md.j2 words. The files have fixed names
(FILES), so the page that includes them needs no edit when a GPU is added.
"""
from __future__ import annotations

from ..text.catalog import t
from ..text.display import LANGS
from ..text.format import fmt_num
from ..verdict import pooled
from . import prose
from .compare_columns import columns, cpu_cell, cuda_cell, kernels_cell, wall_cell
from .compare_findings import compare_findings
from .compare_tables import runs_table, sweep_tables, variant_table
from .header import header

FILES = ("runs", "cuda-time", "cpu-time", "wall-time", "kernels", "sweep", "findings")
TEMPLATE = "compare-findings"


def findings(cols, lang):
    """The findings file's body: the template of `lang` over compare_findings(cols)."""
    return prose.render(TEMPLATE, lang, {"compare_findings": compare_findings(cols)})


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
    out["findings"] = (findings(cols, lang), [], (compare_findings, prose.template_path(TEMPLATE, lang)))
    return out


def has_gpu_runs(runs):
    return any("cuda" in r["provenance"] for _, r in runs)


def render_compare(runs, ref, tables_dir, reruns=None):
    """Write tables_dir/<name>.<lang>.md for every name in FILES; returns the paths. runs:
    [(GPU folder name, results)]; reruns: {GPU folder name: [(name, results)]}, the reruns
    committed beside each, pooled into its results (report/verdict: pooled) so that each
    GPU's verdicts are decided across its runs, as its own pages decide them."""
    runs = [(name, pooled(results, (reruns or {}).get(name, []))) for name, results in runs]
    tables_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for lang in LANGS:
        for name, (body, notes, fns) in bodies(runs, ref, lang).items():
            foot = ["", "  \n".join(notes)] if notes else []
            path = tables_dir / f"{name}.{lang}.md"
            path.write_text("\n".join([header(lang, fns), "", body] + foot) + "\n", encoding="utf-8")
            written.append(path)
    return written
