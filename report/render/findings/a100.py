"""Findings of the A100-vs-ours page (the A100 figures are Hugging Face's)."""
from ...text.catalog import t
from ...text.format import fmt_pct, fmt_ratio
from ...trace.stats import median
from ...variants import BACKEND_NAMES, FUSED
from ..markdown import label
from .registry import finding


def _ours_ok(v, n):
    return v.get(n, {}).get("status") == "ok" and v[n].get("cuda_time_us")


@finding("a100_speedup")
def a100_speedup(results, ref, lang):
    v, rv = results["variants"], ref["variants"]
    pairs = [n for n in rv if _ours_ok(v, n) and rv[n].get("cuda_time_us")]
    if not pairs:
        return []
    faster = t("word.faster", lang)
    return [t("finding.a100_speedup", lang, gpu=results["provenance"]["gpu_name"], list=", ".join(
        f"{label(n, lang)} {fmt_ratio(rv[n]['cuda_time_us'] / median(v[n]['cuda_time_us']), lang)} {faster}"
        for n in pairs))]


@finding("a100_winner")
def a100_winner(results, ref, lang):
    v, rv = results["variants"], ref["variants"]
    fused = [n for n in FUSED if _ours_ok(v, n)]
    if not (fused and v.get("auto", {}).get("backend_ran")):
        return []
    ours = min(fused, key=lambda n: median(v[n]["cuda_time_us"]))
    theirs = min((n for n in FUSED if rv.get(n, {}).get("cuda_time_us")),
                 key=lambda n: rv[n]["cuda_time_us"])
    return [t("finding.a100_winner", lang, ours=BACKEND_NAMES[ours], theirs=BACKEND_NAMES[theirs],
              gpu=results["provenance"]["gpu_name"], auto=BACKEND_NAMES.get(v["auto"]["backend_ran"]))]


@finding("a100_occupancy")
def a100_occupancy(results, ref, lang):
    v, rv = results["variants"], ref["variants"]
    occ = []
    for n in FUSED:
        k = next((k for k in v.get(n, {}).get("kernels", []) if k["kind"] == "kernel"), None)
        if k and rv.get(n, {}).get("est_occupancy_pct") is not None:
            occ.append(f"{BACKEND_NAMES[n]} {fmt_pct(rv[n]['est_occupancy_pct'], lang, 0)} / "
                       f"{fmt_pct(k['kineto_occupancy_pct'], lang, 0)}")
    if not occ:
        return []
    return [t("finding.a100_occupancy", lang, gpu=results["provenance"]["gpu_name"], list=", ".join(occ))]
