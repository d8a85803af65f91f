"""What a kernel's name says about it, read off the name itself: which library it comes
from, the architecture it was compiled for, Hopper's warpgroup instructions, its tile.

One function, decode() (report/doctor/model/short_names.py, where the page's in-browser reader
finds it too), for any GPU's names: nothing there is a list typed for one GPU. The page
"The fused backends" shows it for the kernels of the run the site is built for.
"""
from __future__ import annotations

from ..doctor.model.short_names import brief, brief_names, decode
from ..text.catalog import t
from .markdown import label, markdown_safe

__all__ = ["brief", "brief_names", "decode", "describe", "kernel_cell", "kernel_names"]


def in_name_order(kernels):
    """Kernel rows in the order a list of their names is written: by short name, then full
    name. results.json keeps a variant's kernels by total time, an order two kernels of about
    the same time swap between runs; a list whose order is not a finding must not move with
    it. (The rows keep no launch order to list them by.)"""
    return sorted(kernels, key=lambda k: (k["short_name"].casefold(), k["name"]))


# the catalog's sentence for each origin (None: the name shows no library)
ORIGIN_TEXT = {
    "flash": "kernel_name.origin_flash",
    "cutlass_fmha": "kernel_name.origin_cutlass_fmha",
    "cudnn": "kernel_name.origin_cudnn",
    "triton": "kernel_name.origin_triton",
    "cublas": "kernel_name.origin_cublas",
    "aten": "kernel_name.origin_aten",
    None: "kernel_name.origin_unknown",
}
def describe(name, gpu_cc, lang):
    """One sentence on a kernel name in the page's language; gpu_cc is the compute
    capability of the GPU it ran on ("9.0"), or None."""
    d = decode(name)
    parts = [t(ORIGIN_TEXT[d["origin"]], lang)]
    if d["arch"]:
        same = gpu_cc is None or d["compute_capability"] == gpu_cc
        parts.append(t("kernel_name.arch_same" if same else "kernel_name.arch_other", lang,
                       arch=d["arch"], cc=d["compute_capability"], gpu_cc=gpu_cc or ""))
    if d["wgmma"]:
        parts.append(t("kernel_name.wgmma", lang))
    if d["tile"] and d["warps"]:
        parts.append(t("kernel_name.traits", lang, tile=d["tile"].replace("x", " × "),
                       warps=d["warps"], head_dim=d["head_dim"]))
    elif d["tile"]:
        parts.append(t("kernel_name.tile", lang, tile=d["tile"].replace("x", " × ")))
    text = "; ".join(parts) + "."
    return text[0].upper() + text[1:]


def kernel_names(results, lang, names):
    """A definition list: each compute kernel the variants `names` ran at the seed's shape,
    once, with what its name says and which variants ran it; the "not measured" line
    where none ran."""
    gpu_cc = results["provenance"].get("compute_capability")
    kernels = {}  # full name -> (short name, the variants that ran it)
    for variant in names:
        row = results["variants"].get(variant)
        if not row or row.get("status") != "ok":
            continue
        for k in row["kernels"]:
            if k["kind"] == "kernel":
                kernels.setdefault(k["name"], (k["short_name"], []))[1].append(label(variant, lang))
    items = [f"`{short}`\n:   {describe(name, gpu_cc, lang)} "
             f"{t('kernel_name.ran_by', lang, variants=', '.join(variants))}"
             for name, (short, variants) in kernels.items()]
    return "\n\n".join(items) if items else t("finding.missing", lang)


# --- a long generated name, shown short in a table: report/doctor/model/short_names.py --------


def _attribute(text):
    """Text for an HTML attribute on a Markdown page: every character but letters, digits
    and spaces as a character reference, so neither HTML nor Markdown (a link, emphasis, an
    escape) can act on any of it; the browser shows the text as it is."""
    return "".join(c if c.isalnum() and c.isascii() or c == " " else f"&#{ord(c)};" for c in text)


def kernel_cell(name, lang, briefs, bold=False):
    """A table cell for a kernel name: the name as code (bold for a copy or a fill), or, for
    a long generated name, its short name in a collapsed block whose summary carries the
    full name as a tooltip and which opens, by click, tap or keyboard, on the full name."""
    code = f"`{name}`"
    if bold:
        code = f"**{code}**"
    short = briefs.get(name)
    if not short:
        return code
    full = _attribute(t("kernel_name.full", lang, name=name))
    return (f'<details class="sdpa-kernel"><summary title="{full}">{markdown_safe(short)}</summary>'
            f"{code}</details>")
