"""What a kernel's name says about it, read off the name itself: which library it comes
from, the architecture it was compiled for, Hopper's warpgroup instructions, its tile.

One function, decode(), for any GPU's names: nothing here is a list typed for one GPU.
The page "The fused backends" shows it for the kernels of the run the site is built for.
"""
from __future__ import annotations

import re

from ..text.catalog import t
from ..trace.names import short_kernel_name
from .markdown import label, markdown_safe


def in_name_order(kernels):
    """Kernel rows in the order a list of their names is written: by short name, then full
    name. results.json keeps a variant's kernels by total time, an order two kernels of about
    the same time swap between runs; a list whose order is not a finding must not move with
    it. (The rows keep no launch order to list them by.)"""
    return sorted(kernels, key=lambda k: (k["short_name"].casefold(), k["name"]))


# the library, by the first pattern that matches the full name (lower case)
ORIGINS = (
    ("flash", re.compile(r"pytorch_flash::|flash_fwd|flash_bwd")),
    ("cutlass_fmha", re.compile(r"fmha_cutlass")),
    ("cudnn", re.compile(r"^cudnn|cudnn_generated|_sdpa_sm\d")),
    ("triton", re.compile(r"^triton_")),
    ("cublas", re.compile(r"nvjet|xmma_gemm|cublas|gemm")),
    ("aten", re.compile(r"at::native::")),
)
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
_ARCH = re.compile(r"(?:^|[_:<\s])sm_?(\d{2,3})a?(?=$|[_>,\s])", re.IGNORECASE)
_ARCH_TEMPLATE = re.compile(r"cutlass::arch::Sm(\d{2,3})\b")
_TILE = re.compile(r"(?<![\dx])(\d{2,3}x\d{2,3}(?:x\d{1,3})?)(?![\dx])")
_FLASH_TRAITS = re.compile(r"Flash_fwd_kernel_traits<(\d+),\s*(\d+),\s*(\d+),\s*(\d+)")
_DTYPES = {"bf16": "bf16", "bfloat16": "bf16", "f16": "fp16", "fp16": "fp16", "half": "fp16",
           "f32": "fp32", "tf32": "tf32"}


def decode(name):
    """A kernel name -> {origin, arch, compute_capability, wgmma, dtype, tile, warps,
    head_dim}; a part the name does not show is None (wgmma: False)."""
    low = name.lower()
    origin = next((key for key, pattern in ORIGINS if pattern.search(low)), None)
    arch = _ARCH.search(name) or _ARCH_TEMPLATE.search(name)
    sm = arch.group(1) if arch else None
    tokens = re.split(r"[_\s<>,:]+", low)
    dtype = next((_DTYPES[tok] for tok in tokens if tok in _DTYPES), None)
    traits = _FLASH_TRAITS.search(name)
    if traits:
        head_dim, block_m, block_n, warps = (int(g) for g in traits.groups())
        tile, warps = f"{block_m}x{block_n}", warps
    else:
        head_dim, warps = None, None
        match = _TILE.search(short_kernel_name(name).split("knob_")[-1])
        tile = match.group(1) if match else None
    return {
        "origin": origin,
        "arch": f"sm_{sm}" if sm else None,
        "compute_capability": f"{int(sm) // 10}.{int(sm) % 10}" if sm else None,
        "wgmma": "wgmma" in tokens,
        "dtype": dtype,
        "tile": tile,
        "warps": warps,
        "head_dim": head_dim,
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


# --- a long generated name, shown short in a table ----------------------------------------

BRIEF_OVER = 48  # characters: a longer name without a namespace is shown decoded in tables
# the library in the short name, by decode()'s origin (None: the name shows no library)
LIBRARY = {
    "flash": "kernel_name.lib_flash",
    "cutlass_fmha": "kernel_name.lib_cutlass_fmha",
    "cudnn": "kernel_name.lib_cudnn",
    "triton": "kernel_name.lib_triton",
    "cublas": "kernel_name.lib_cublas",
    "aten": "kernel_name.lib_aten",
    None: None,
}
# words of a name that say what the kernel does, kept in the short name in the name's order
_WHAT = ("sdpa", "xmma", "gemm", "gemv", "fprop", "bprop", "dgrad", "wgrad", "fwd", "bwd", "softmax")
_DIRECTION = {"cutlassf": "fwd", "cutlassb": "bwd"}  # xFormers' fmha_cutlassF/B: forward, backward
_MATH = ("wgmma", "wmma", "hmma", "imma")  # the matrix instructions
_LAYOUT = re.compile(r"[nt]{2}")  # a GEMM's operand layout: tn, nn, nt, tt


def brief(name, lang):
    """A short name for a long generated kernel name, decoded from the name alone: its
    library, the words that say what it does, architecture, matrix instructions,
    precision where that is TF32, the GEMM layout and the tile ("cuDNN sdpa fprop sm90
    wgmma 64x128x64"); None where the name is short enough, reads as it is
    (namespace::function), or shows too little to decode."""
    if len(name) <= BRIEF_OVER or "::" in name:
        return None
    d = decode(name)
    tokens = [tok for tok in re.split(r"[_\s<>,:]+", name.lower()) if tok]
    parts = [w for w in dict.fromkeys(tokens) if w in _WHAT]
    parts += [_DIRECTION[w] for w in dict.fromkeys(tokens) if w in _DIRECTION]
    if d["arch"]:
        parts.append(d["arch"].replace("_", ""))
    parts += [w for w in dict.fromkeys(tokens) if w in _MATH]
    if any("tf32" in tok for tok in tokens):
        parts.append("tf32")
    if "gemm" in tokens:
        parts += [tok for tok in tokens if _LAYOUT.fullmatch(tok)][:1]
    if d["tile"]:
        parts.append(d["tile"])
    if len(parts) < 2:
        return None
    library = LIBRARY[d["origin"]]
    return " ".join(([t(library, lang)] if library else []) + parts)


def brief_names(names, lang):
    """{name: its short name, or None to show it in full} for the kernel names of one
    table: two names that would read the same are both shown in full."""
    short = {n: brief(n, lang) for n in dict.fromkeys(names)}
    taken = [b for b in short.values() if b]
    return {n: (b if b and taken.count(b) == 1 else None) for n, b in short.items()}


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
