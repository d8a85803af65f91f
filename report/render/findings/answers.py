"""The answer each main page opens with (docs/*.md: `!!! answer`), two to four whole
sentences, every measured figure in them from this run: one file answer-<page> per page.

A page's answer is one paragraph (answer_files), not a list. The answers still return
their sentences from whole catalog strings (finding.answer_*), with a registry of their
own, ANSWERS; they are to move to facts and templates as the other findings did. Orders follow the
paired rule (report/verdict/paired.py: kernel time by the rounds' medians, wall time by the
pairs); an answer says nothing the run has no figure for.
"""
import statistics
from itertools import pairwise

from ...text.catalog import t
from ...text.display import BACKEND_NAMES
from ...text.format import fmt_num, fmt_pct, fmt_ratio, fmt_tflops, fmt_us, fmt_us_range, fmt_us_sig, unit
from ...variants import FUSED
from ...verdict import median
from ..extra_tables import fresh_rounds, us_range
from ..keyed import keyed
from ..markdown import label
from ..memory_model import sizes
from ..shape_points import points
from .common import by_rounds, eager_over_kernel, ok, pair_group
from .naive_math import cause_diffs
from .overhead_findings import KERNEL_PACED
from .shape_common import answer, cells_by, decode_key

ANSWERS = {}  # file -> its answer functions, in definition order


def finding(file):
    """Register the decorated function as (part of) the answer in tables/<file>.<lang>.md."""
    def register(fn):
        ANSWERS.setdefault(file, []).append(fn)
        return fn
    return register


def answer_files(results, ref, lang):
    """{file: (one paragraph of its answer's sentences, or the line that the run lacks them,
    the functions that wrote it)}."""
    out = {}
    for file, fns in ANSWERS.items():
        lines = [line for fn in fns for line in fn(results, ref, lang)]
        out[file] = (" ".join(lines) if lines else t("finding.answer_missing", lang), tuple(fns))
    return out


def ranking(results, names, key, lang):
    """\"cuDNN (57.2 µs) < flash (93.8 µs)\" by the figure `key`: `<` only where the order
    holds by the paired rule over the rounds (common.by_rounds), `≈` otherwise."""
    v = results["variants"]
    ours = sorted(names, key=lambda n: v[n][key]["median"])
    text = f"{BACKEND_NAMES[ours[0]]} ({fmt_us_sig(v[ours[0]][key]['median'], lang)})"
    for a, b in pairwise(ours):
        verdict = by_rounds(v[a], v[b], key)
        sign = "<" if verdict is not None and verdict.order == "<" else "≈"
        text += f" {sign} {BACKEND_NAMES[b]} ({fmt_us_sig(v[b][key]['median'], lang)})"
    return text

# the two causes the attribution splits a matmul into: in FP32 (math) and in the input dtype
MATMULS = ("matmul_fp32", "matmul")


def _kernel(results, name):
    row = ok(results, name)
    return row["kernel_sum_us"] if row and (row.get("kernel_sum_us") or {}).get("median") else None


def _auto_line(results, lang):
    """SDPA unpinned: the backend it ran, its kernel time, and whether a fused backend had
    less by the paired rule over the rounds; None where the run lacks them."""
    v = results["variants"]
    ran = (v.get("auto") or {}).get("backend_ran")
    ks = {n: _kernel(results, n) for n in FUSED if _kernel(results, n)}
    if not ok(results, "auto") or ran not in ks:
        return None
    best = min(ks, key=lambda n: ks[n]["median"])
    common = {"gpu": results["provenance"]["gpu_name"], "backend": BACKEND_NAMES[ran],
              "time": fmt_us(ks[ran]["median"], lang)}
    verdict = None if best == ran else by_rounds(v[best], v[ran])
    if verdict is None or verdict.order != "<":
        return t("finding.answer_auto_least", lang, **common)
    return t("finding.answer_auto_more", lang, best=BACKEND_NAMES[best], best_time=fmt_us(ks[best]["median"], lang),
             ratio=fmt_ratio(ks[ran]["median"] / ks[best]["median"], lang), **common)


def math_diffs(results):
    """(cause, math minus the hand-written in-place version, µs per forward), largest
    first, with the two matmul causes taken together as "matmul": math's FP32 matmuls
    replace the bf16 ones, so only their difference is an extra cost."""
    diffs = dict(cause_diffs(results))
    matmul = sum(diffs.pop(c, 0.0) for c in MATMULS)
    return sorted([("matmul", matmul), *diffs.items()], key=lambda cd: -cd[1])


def _cause(cause, lang):
    return t("finding.answer_cause_matmul", lang) if cause == "matmul" else keyed("cause.", cause, lang)


def _math_parts(results):
    v = results["variants"]
    if not (_kernel(results, "math") and _kernel(results, "naive_inplace")
            and "attribution" in v["math"] and "attribution" in v["naive_inplace"]):
        return None
    return _kernel(results, "math"), _kernel(results, "naive_inplace"), math_diffs(results)


@finding("answer-home")
def answer_home(results, ref, lang):
    lines = []
    auto = _auto_line(results, lang)
    if auto:
        lines.append(auto)
    parts = _math_parts(results)
    if parts:
        m, n, diffs = parts
        (c1, d1), (c2, d2) = diffs[:2]
        lines.append(t("finding.answer_home_math", lang, ratio=fmt_ratio(m["median"] / n["median"], lang),
                       math=fmt_us(m["median"], lang), naive=fmt_us(n["median"], lang),
                       first=_cause(c1, lang), first_us=fmt_us(d1, lang),
                       second=_cause(c2, lang), second_us=fmt_us(d2, lang)))
    small = [r for r in (results.get("overhead") or {}).get("rows", {}).get("small", {}).values()
             if r.get("status") == "ok" and median(r.get("kernel_sum_us"))]
    if small:
        lines.append(t("finding.answer_home_cpu", lang, hi=fmt_ratio(max(map(eager_over_kernel, small)), lang)))
    return lines


def _memcpy(results):
    """The out-of-place hand-written version's Memcpy DtoD per forward pass, µs, or None."""
    row = ok(results, "naive")
    copies = [k for k in (row or {}).get("kernels", []) if k["kind"] == "memcpy"]
    return sum(k["avg_us"] * k["per_forward"] for k in copies) if copies else None


@finding("answer-naive-vs-math")
def answer_naive_vs_math(results, ref, lang):
    parts = _math_parts(results)
    if not parts:
        return []
    m, n, diffs = parts
    d = dict(diffs)
    (c1, d1), (c2, d2) = diffs[:2]
    lines = [t("finding.answer_naive_ratio", lang, ratio=fmt_ratio(m["median"] / n["median"], lang),
               math=fmt_us(m["median"], lang), naive=fmt_us(n["median"], lang)),
             t("finding.answer_naive_causes", lang, first=_cause(c1, lang), first_us=fmt_us(d1, lang),
               second=_cause(c2, lang), second_us=fmt_us(d2, lang))]
    if "mask_construction" in d:
        build = results["variants"]["math"]["attribution"]["mask_construction"]["us_per_forward"]
        total = sum(e["us_per_forward"] for e in results["variants"]["math"]["attribution"].values())
        lines.append(t("finding.answer_naive_mask", lang, build=fmt_us(build, lang),
                       pct=fmt_pct(100 * build / total, lang)))
    copy = _memcpy(results)
    if copy:
        lines.append(t("finding.answer_naive_copy", lang, copy=fmt_us(copy, lang)))
    return lines


def _cudnn_new_shape(results):
    """cuDNN's first call with a new shape, over its fresh processes: (low, high) µs, or None."""
    r = ((results.get("first_calls") or {}).get("rows") or {}).get("cudnn")
    rounds = fresh_rounds(r) if r else []
    return us_range(rounds, "first_new_shape_ms") if rounds else None


@finding("answer-fused-backends")
def answer_fused(results, ref, lang):
    v = results["variants"]
    ours = [n for n in FUSED if _kernel(results, n)]
    if not ours:
        return []
    order = ranking(results, ours, "kernel_sum_us", lang)
    lines = [t("finding.answer_fused_rank", lang, gpu=results["provenance"]["gpu_name"], ranking=order)]
    ran = (v.get("auto") or {}).get("backend_ran")
    if ok(results, "auto") and ran:
        lines.append(t("finding.answer_fused_auto", lang, backend=BACKEND_NAMES[ran]))
    new_shape = _cudnn_new_shape(results)
    if new_shape:
        lines.append(t("finding.answer_fused_first", lang, range=fmt_us_range(new_shape, lang)))
    return lines


@finding("answer-occupancy")
def answer_occupancy(results, ref, lang):
    row = ok(results, "flash")
    k = next((k for k in (row or {}).get("kernels", []) if k["kind"] == "kernel"), None)
    if k is None or k.get("our_optin_pct") is None or k.get("kineto_occupancy_pct") is None:
        return []
    lines = [t("finding.answer_occ_flash", lang, kernel=k["short_name"], ours=fmt_pct(k["our_optin_pct"], lang),
               kineto=fmt_pct(k["kineto_occupancy_pct"], lang, 0))]
    zero = sorted({k["short_name"] for n in FUSED if ok(results, n) for k in results["variants"][n]["kernels"]
                   if k["kind"] == "kernel" and k.get("kineto_occupancy_pct") == 0 and k.get("our_optin_pct")})
    if zero:
        lines.append(t("finding.answer_occ_zero", lang, n=len(zero)))
    roof = (results.get("roof") or {}).get("tflops")
    flops = sizes(results["config"])["flops_causal"]  # per kernel time, not the profiled GPU span
    reached = [(n, flops / _kernel(results, n)["median"] / 1e6) for n in FUSED if _kernel(results, n)]
    if roof and reached:
        listed = ", ".join(f"{BACKEND_NAMES[n]} {unit(fmt_tflops(x, lang), 'TFLOP/s', lang)} "
                           f"({fmt_pct(100 * x / roof, lang, 0)})" for n, x in reached)
        lines.append(t("finding.answer_occ_roof", lang, roof=unit(fmt_tflops(roof, lang), "TFLOP/s", lang),
                       list=listed))
    return lines


def _small_graph(results):
    """At the small shape: (variant, eager µs, graph µs) of the pinned fused backend whose
    graph replay is fastest, medians of the blocks timed in pairs ("small"), or None."""
    group = pair_group(results, "small")
    if group is None:
        return None

    def blocks(name):
        return [x for rnd in group["rounds"] if "error" not in rnd
                for x in (rnd.get("blocks_us") or {}).get(name) or []]
    rows = {n: (blocks(n), blocks(f"{n}_graph")) for n in FUSED}
    rows = {n: (statistics.median(e), statistics.median(g)) for n, (e, g) in rows.items() if e and g}
    if not rows:
        return None
    g = min(rows, key=lambda n: rows[n][1])
    return g, *rows[g]


@finding("answer-recommendations")
def answer_recommendations(results, ref, lang):
    lines = []
    auto = _auto_line(results, lang)
    if auto:
        lines.append(auto)
    new_shape = _cudnn_new_shape(results)
    if new_shape:
        lines.append(t("finding.answer_rec_warm", lang, range=fmt_us_range(new_shape, lang)))
    graph = _small_graph(results)
    if graph:
        name, eager, replay = graph
        lines.append(t("finding.answer_rec_graph", lang, variant=label(name, lang), eager=fmt_us(eager, lang),
                       graph=fmt_us(replay, lang)))
    ran = (results["variants"].get("auto") or {}).get("backend_ran")
    if ran in FUSED and _kernel(results, ran) and _kernel(results, "naive_inplace"):
        lines.append(t("finding.answer_rec_by_hand", lang, backend=BACKEND_NAMES[ran],
                       fused=fmt_us(_kernel(results, ran)["median"], lang),
                       naive=fmt_us(_kernel(results, "naive_inplace")["median"], lang)))
    return lines


@finding("answer-scaling")
def answer_scaling(results, ref, lang):
    sweep = results.get("sweep")
    if not sweep:
        return []
    pts = [p for p in sweep["points"] if p["head_dim"] == sweep["head_dims"][0]]
    ooms = sorted(p["seq_len"] for p in pts if p["variant"] == "math" and p["status"] == "oom")
    fits = [n for n in FUSED if all(p["status"] == "ok" for p in pts if p["variant"] == n)
            and any(p["variant"] == n for p in pts)]
    lines = []
    if fits:
        lines.append(t("finding.answer_scaling_fits", lang, backends=", ".join(label(n, lang) for n in fits),
                       longest=fmt_num(max(sweep["seq_lens"]), lang, 0)))
    if ooms:
        lines.append(t("finding.answer_scaling_oom", lang,
                       at=fmt_num(ooms[0], lang, 0)))
    return lines


@finding("answer-gpu-waits")
def answer_gpu_waits(results, ref, lang):
    rows = (results.get("overhead") or {}).get("rows", {})
    lines = []
    for shape in ("seed", "small"):
        ok_rows = [r for r in rows.get(shape, {}).values()
                   if r.get("status") == "ok" and median(r.get("kernel_sum_us"))]
        if ok_rows:
            ratios = [eager_over_kernel(r) for r in ok_rows]
            key = "finding.answer_waits_gpu" if min(ratios) < KERNEL_PACED else "finding.answer_waits_cpu"
            shape_words = t("finding.answer_shape_seed" if shape == "seed" else "finding.answer_shape_small", lang)
            lines.append(t(key, lang, shape=shape_words,
                           lo=fmt_pct(100 * min(ratios), lang, 0), hi=fmt_pct(100 * max(ratios), lang, 0)))
    graph = _small_graph(results)
    if graph:
        name, eager, replay = graph
        lines.append(t("finding.answer_rec_graph", lang, variant=label(name, lang), eager=fmt_us(eager, lang),
                       graph=fmt_us(replay, lang)))
    return lines


@finding("answer-training")
def answer_training(results, ref, lang):
    backward = {n: r for n, r in ((results.get("backward") or {}).get("rows") or {}).items() if r["status"] == "ok"}
    fused = [n for n in FUSED if n in backward and _kernel(results, n) and median(backward[n].get("kernel_sum_us"))]
    if not fused:
        return []
    ratios = [median(backward[n]["kernel_sum_us"]) / median(results["variants"][n]["kernel_sum_us"]) for n in fused]
    lines = [t("finding.answer_train_ratio", lang, lo=fmt_ratio(min(ratios), lang), hi=fmt_ratio(max(ratios), lang))]
    mem = {n: r["peak_extra_mib"] for n, r in backward.items() if r.get("peak_extra_mib") is not None}
    if "math" in mem and any(mem.get(n) for n in fused):  # a fused backend of no extra memory: no ratio
        least = min((n for n in fused if mem.get(n)), key=mem.get)
        lines.append(t("finding.answer_train_memory", lang, ratio=fmt_ratio(mem["math"] / mem[least], lang),
                       backend=BACKEND_NAMES[least]))
    return lines


@finding("answer-shapes")
def answer_shapes(results, ref, lang):
    lines = []
    for family, key in (("decode", decode_key), ("prefill", lambda p: p["q_len"])):
        found = answer(cells_by(points(results, family), key), family)
        if found is not None:
            lines.append(t("finding.answer_shapes", lang, family=keyed("word.shapes_family_", family, lang),
                           good=found.good, n=found.n))
    return lines
