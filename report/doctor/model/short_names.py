"""What a kernel's name says about it, read off the name itself, for any GPU's names (nothing
here is a list typed for one GPU): standard library only, so that the page's in-browser
reader names kernels as the tables and figures do.

    decode(name)        its library, the architecture it was compiled for, Hopper's
                        warpgroup instructions, precision, tile
    brief(name)         a short name for a long generated one ("cuDNN sdpa fprop sm90 wgmma
                        64x128x64"), the same in both languages
    brief_names(names)  the short names of one table or figure, none shown twice
"""
from __future__ import annotations

import re

from ...trace.names import short_kernel_name

# the library, by the first pattern that matches the full name (lower case)
ORIGINS = (
    ("flash", re.compile(r"pytorch_flash::|flash_fwd|flash_bwd")),
    ("cutlass_fmha", re.compile(r"fmha_cutlass")),
    ("cudnn", re.compile(r"^cudnn|cudnn_generated|_sdpa_sm\d")),
    ("triton", re.compile(r"^triton_")),
    ("cublas", re.compile(r"nvjet|xmma_gemm|cublas|gemm")),
    ("aten", re.compile(r"at::native::")),
)
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


BRIEF_OVER = 48  # characters: a longer name without a namespace is shown decoded in tables
# the library in the short name, by decode()'s origin (None: the name shows no library)
LIBRARY = {"flash": "FlashAttention", "cutlass_fmha": "CUTLASS FMHA", "cudnn": "cuDNN", "triton": "Triton",
           "cublas": "cuBLAS", "aten": "ATen", None: None}
# words of a name that say what the kernel does, kept in the short name in the name's order
_WHAT = ("sdpa", "xmma", "gemm", "gemv", "fprop", "bprop", "dgrad", "wgrad", "fwd", "bwd", "softmax")
_DIRECTION = {"cutlassf": "fwd", "cutlassb": "bwd"}  # xFormers' fmha_cutlassF/B: forward, backward
_MATH = ("wgmma", "wmma", "hmma", "imma")  # the matrix instructions
_LAYOUT = re.compile(r"[nt]{2}")  # a GEMM's operand layout: tn, nn, nt, tt


def brief(name):
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
    return " ".join(([library] if library else []) + parts)


def brief_names(names):
    """{name: its short name, or None to show it in full} for the kernel names of one
    table: two names that would read the same are both shown in full."""
    short = {n: brief(n) for n in dict.fromkeys(names)}
    taken = [b for b in short.values() if b]
    return {n: (b if b and taken.count(b) == 1 else None) for n, b in short.items()}
