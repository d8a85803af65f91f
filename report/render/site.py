"""Every generated file of one GPU's folder: tables/<name>.<lang>.md and figures/*.svg."""
from __future__ import annotations

import json
from pathlib import Path

from ..doctor.explain import TraceError, explain, load_trace, report
from ..text.catalog import t
from ..text.display import LANGS
from ..variants import FUSED
from ..verdict import pooled
from . import (
    ask_table,
    attribution,
    extra_tables,
    figures,
    findings,
    prose,
    shape_figures,
    shape_tables,
    tables,
    timelines,
)
from .downloads import trace_links
from .fixes import fixes_table
from .header import call_writers, header
from .kernel_names import kernel_names
from .keyed import keyed
from .markdown import code_safe, fenced, markdown_safe, measured_on, safe_provenance
from .memory_model import ceilings_check, fused_check, hand_written_check, model_text
from .page_models import (
    decode_check,
    decode_model,
    occupancy_check,
    occupancy_model,
    scaling_check,
    scaling_model,
    training_check,
    training_model,
)
from .reruns import reruns_table


def seed_tables(results, ref, lang, split=None):
    """name -> (Markdown body, the functions that wrote it), for the tables of the seed's
    shape; split: the dtype conversions told apart in the traces (attribution.splits)."""
    fused = list(FUSED) + ["auto"]
    naive_math = ["naive", "naive_inplace", "math"]
    out = call_writers({
        "vocabulary": (tables.vocabulary, results, ref, lang),
        "headline": (tables.headline, results, lang),
        "headline-home": (tables.headline_home, results, lang),
        "kernels-naive-math": (tables.kernels, results, lang, naive_math),
        "kernels-fused": (tables.kernels, results, lang, fused),
        "kernel-names": (kernel_names, results, lang, fused),
        "model-hand-written": (hand_written_check, results, lang),
        "model-fused": (fused_check, results, lang, list(FUSED)),
        "model-ceilings": (ceilings_check, results, lang),
        "model-occupancy": (occupancy_model, results, lang),
        "model-occupancy-check": (occupancy_check, results, lang),
        "resources": (tables.resources, results, lang, fused),
        "details": (tables.details, results, lang),
        "cpu-ops-naive-math": (tables.cpu_ops, results, lang, naive_math),
        # cuDNN first: the page compares it with flash and efficient, and a phone shows the
        # first columns of a wide table
        "cpu-ops-fused": (tables.cpu_ops, results, lang, ["cudnn", "flash", "efficient", "auto"]),
        "provenance": (tables.provenance, results, lang),
        "attribution": (attribution.attribution_table, results, lang, split),
        "occupancy-ncu": (tables.ncu_occupancy, results, lang),
        "host-overhead": (tables.host_overhead, results, lang),
        "rounds": (tables.rounds_table, results, lang),
    })
    out.update(call_writers({f"profiler-{name}": (tables.profiler_table, results, name, lang)
                             for name in results["variants"]}))
    return out


def findings_files(plain, ref, lang):
    """name -> (Markdown body, the functions and template that wrote it), for every findings
    file (findings.FILES and EXTRA_FILES): facts from the plain results, whose strings the
    templates' filters escape where a sentence prints them (the tables get results made safe
    beforehand: safe_provenance)."""
    files = {**findings.FILES, **findings.EXTRA_FILES}
    return {name: (findings.render_findings(name, keys, plain, ref, lang), findings.writers(name, keys, lang))
            for name, keys in files.items()}


def extra(results, ref, lang):
    """name -> (Markdown body, the functions that wrote it), for the --all and --shapes files."""
    out = dict(findings.answer_files(results, ref, lang))  # the answer each main page opens with
    sweep = results.get("sweep")
    for d in sweep["head_dims"] if sweep else ():
        cap = t("page.sweep_caption", lang).format(**sweep)
        for what in ("time", "memory", "tflops"):
            out[f"sweep-{what}-d{d}"] = (extra_tables.sweep_table(sweep, lang, d, what) + "\n\n" + cap,
                                         (extra_tables.sweep_table,))
    overhead = results.get("overhead")
    for shape_name, cfg in overhead["shapes"].items() if overhead else ():
        out[f"overhead-{shape_name}"] = (keyed("page.shape_", shape_name, lang).format(**cfg) + "\n\n"
                                         + extra_tables.overhead_table(overhead, lang, shape_name)
                                         + "\n\n" + t("page.overhead_own_measurement", lang),
                                         (extra_tables.overhead_table,))
    calls = {}
    for d in sweep["head_dims"] if sweep and any(p.get("backend_ran") for p in sweep["points"]) else ():
        calls[f"auto-vs-best-d{d}"] = (extra_tables.auto_vs_best_table, sweep, lang, d)
    if results.get("first_calls"):
        calls["first-calls"] = (extra_tables.first_calls_table, results["first_calls"], lang)
    if results.get("backward"):
        calls["backward"] = (extra_tables.backward_table, results["backward"], lang)
    out.update(call_writers(calls))
    # the model on the pages of --all, written from any run (the "not measured" line without the data)
    out.update(call_writers({
        "model-scaling": (scaling_model, results, lang),
        "model-scaling-check": (scaling_check, results, lang),
        "model-decode": (decode_model, results, lang),
        "model-decode-check": (decode_check, results, lang),
        "model-training": (training_model, results, lang),
        "model-training-check": (training_check, results, lang),
    }))
    out.update(shape_tables.render_tables(results, ref, lang))  # every file, measured or not
    # "When SDPA refuses a backend": the table, or the "not measured" line
    out.update(call_writers({"ask-why": (ask_table.ask_table, results, lang)}))
    return out


# the traces whose `build_tables.py --explain` output the page "Read your own trace" shows
EXPLAINED = ("cudnn", "naive")


def explained(traces_dir, lang="en"):
    """name -> (Markdown body, the functions that wrote it): the command and what it prints,
    for each trace of EXPLAINED, named as a reader has it after downloading it from the
    page "Read your own trace" in `lang` (`--lang nb` on the Norwegian page).

    The output is the command's own, in the page's language. A trace that is missing or has
    no GPU activity (a CPU run's) gets no file.
    """
    out = {}
    for variant in EXPLAINED if traces_dir is not None else ():
        path = Path(traces_dir) / f"{variant}.json.gz"
        if not path.is_file():
            continue
        try:
            text = report(explain(load_trace(path)), lang)
        except TraceError:
            continue
        command = f"$ python build_tables.py --explain {variant}.json.gz{_lang_option(lang)}"
        out[f"explain-{variant}"] = (fenced(command + "\n" + text), (explain, report))
    return out


def _lang_option(lang):
    return "" if lang == "en" else f" --lang {lang}"


def model_explained(results, trace, lang="en"):
    """{"explain-model": (body, writers, the manifest)} for the real model's trace the page
    "Read your own trace" walks through (report.paths.MODEL_TRACE), in `lang`. A trace
    recorded on another GPU than this run's (its manifest.json says which) is explained all
    the same, under a line that names the GPU and torch it was recorded with: it is the
    corpus's trace, not this run's."""
    manifest_path = Path(trace).parent / "manifest.json" if trace is not None else None
    if manifest_path is None or not Path(trace).is_file() or not manifest_path.is_file():
        return {}
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    text = report(explain(load_trace(trace)), lang)
    body = "\n".join(["```text", f"$ python build_tables.py --explain {Path(trace).name}{_lang_option(lang)}",
                      text + "```"])
    if manifest.get("gpu") != results["provenance"].get("gpu_name"):
        body = t("model_trace.other_gpu", lang, gpu=markdown_safe(manifest.get("gpu")),
                 torch=code_safe(manifest.get("torch"))) + "\n\n" + body
    return {"explain-model": (body, (explain, report), manifest)}


def render_all(results, ref, tables_dir, figures_dir=None, traces_dir=None, model_trace=None, reruns=(),
               fixes=(), fixes_code=None):
    """Write tables/<name>.<lang>.md (and figures/*.svg) in both languages; returns the paths.

    With traces_dir (the folder's traces/), also the --explain output of some of its
    traces and the list of its traces to download; with model_trace, the --explain output
    of a real model's trace recorded on the same GPU; with reruns ([(name, results)],
    output/rerun_files.py), the findings' verdicts are decided across the run and the reruns
    by the same measuring code (report/verdict: pooled, by_runs), and Reproduce's table
    shows each run's ratio beside them. The numbers a page shows stay this run's. fixes:
    [(name, collection)] of report/collect/fix_collector.py for this GPU (output/fix_files.py),
    checked, and fixes_code, the collecting code as it is now (results.collect_hashes): their
    table, of the collections of that code, is tables/fixes.<lang>.md (or the line that none is
    collected).
    """
    written = []
    alone, results = results, pooled(results, reruns)
    explanations = {lang: explained(traces_dir, lang) for lang in LANGS}  # the doctor speaks each page's language
    split = attribution.splits(results, traces_dir)
    models = {lang: model_explained(results, model_trace, lang) for lang in LANGS}
    tables_dir.mkdir(parents=True, exist_ok=True)
    plain, results = results, safe_provenance(results)  # figures draw text, pages read Markdown
    for lang in LANGS:
        bodies = dict(seed_tables(results, ref, lang, split))
        bodies.update(extra(results, ref, lang))
        bodies.update(findings_files(plain, ref, lang))
        # prose over facts from the plain results, like the findings: its template escapes
        bodies["model"] = (model_text(plain, lang), (model_text,))
        bodies.update(explanations[lang])
        bodies["traces"] = (trace_links(results, traces_dir, lang), (trace_links,))
        if figures_dir is not None:  # figures/timeline-*.svg, and each one's caption and events here
            figures_dir.mkdir(parents=True, exist_ok=True)
            drawn, paths = timelines.render_timelines(traces_dir, figures_dir, lang)
            bodies.update(drawn)
            written += paths
        # what the run was measured on, once per page (each page includes it at its end)
        bodies["measured-on"] = (measured_on(results, lang), (measured_on,))
        bodies["reruns"] = (reruns_table(alone, ref, reruns, lang), (reruns_table,))
        bodies["fixes"] = (fixes_table(fixes, lang, fixes_code), (fixes_table,))
        for name, (body, fns) in bodies.items():
            template = prose.template_path(name, lang) if prose.has_template(name) else None
            fns = (*fns, template) if template and template not in fns else fns  # its sentences' template
            path = tables_dir / f"{name}.{lang}.md"
            path.write_text("\n".join([header(lang, fns), "", body]) + "\n", encoding="utf-8")
            written.append(path)
        for name, (body, fns, manifest) in models[lang].items():  # not this run's: its own caption
            note = t("page.model_trace", lang).format(gpu=manifest["gpu"], torch=manifest["torch"],
                                                      transformers=manifest["transformers"])
            path = tables_dir / f"{name}.{lang}.md"
            path.write_text("\n".join([header(lang, fns), "", body, "", note]) + "\n", encoding="utf-8")
            written.append(path)
        if figures_dir is not None:
            written += figures.render_figures(plain, lang, figures_dir)
            written += shape_figures.render_figures(plain, lang, figures_dir)
    return written
