"""Findings of the training page: forward + backward against forward, kernels, memory."""
from ...text.catalog import t
from ...text.format import fmt_bytes, fmt_ratio
from ...verdict import median
from ..kernel_names import in_name_order
from ..markdown import label
from .registry import finding


def _rows(results):
    backward = results.get("backward")
    return {n: r for n, r in backward["rows"].items() if r["status"] == "ok"} if backward else {}


@finding("findings-training")
def train_ratio(results, ref, lang):
    rows = _rows(results)
    fwd = {n: median(results["variants"][n].get("cuda_time_us")) for n in rows
           if results["variants"].get(n, {}).get("status") == "ok"}
    ratios = [f"{label(n, lang)} {fmt_ratio(median(r['cuda_time_us']) / fwd[n], lang)}"
              for n, r in rows.items() if fwd.get(n) and r.get("cuda_time_us")]
    return [t("finding.train_ratio", lang, list=", ".join(ratios))] if ratios else []


@finding("findings-training")
def train_kernels(results, ref, lang):
    rows = _rows(results)
    lines = []
    for n in ("flash", "cudnn"):
        bwd = [k for k in rows.get(n, {}).get("kernels", [])
               if k["kind"] == "kernel" and "backward" in (k.get("aten_op") or "")]
        if bwd:
            lines.append(t("finding.train_kernels", lang, variant=label(n, lang), n=len(bwd),
                           kernels=", ".join(f"`{k['short_name']}`" for k in in_name_order(bwd))))
    return lines


@finding("findings-training")
def train_memory(results, ref, lang):
    mems = [f"{label(n, lang)} {fmt_bytes(r['peak_extra_mib'] * 2**20, lang)}"
            for n, r in _rows(results).items() if r.get("peak_extra_mib") is not None]
    return [t("finding.train_memory", lang, list=", ".join(mems))] if mems else []
