"""The floor of a call whose kernels run one after another (the hand-written version, SDPA
math). One kernel's work does not overlap another's, so the call's floor is the sum over
its kernels of each one's own largest floor: the matmul kernels' arithmetic or their
bytes, the softmax kernel's exponentials or its bytes, every other kernel's bytes. The
bytes are the DRAM bytes Nsight Compute counted per kernel (report/measure/ncu.py); which
kernel is which is read off the trace's causes of the kernels of the same name
(report/trace/causes.py)."""
from __future__ import annotations

from dataclasses import dataclass

from ..trace.names import short_kernel_name

MATMUL_CAUSES = frozenset({"matmul", "matmul_fp32"})
SOFTMAX_CAUSES = frozenset({"softmax"})


def _base(name):
    """A kernel's function name without namespace, template arguments or parameters: ncu
    and Kineto spell the rest differently."""
    return short_kernel_name(name).rsplit("::", 1)[-1]


def kernel_roles(row):
    """{base name: "matmul" | "softmax" | "other"} for the kernels of one variant's trace
    row: a name is a matmul (or the softmax) only where every kernel of that name is."""
    causes = {}
    for k in row.get("kernels") or []:
        if k.get("kind") == "kernel":
            causes.setdefault(_base(k["name"]), set()).add(k.get("cause"))
    return {name: "matmul" if c <= MATMUL_CAUSES else "softmax" if c <= SOFTMAX_CAUSES else "other"
            for name, c in causes.items()}


@dataclass(frozen=True)
class CallFloor:
    """One call's floor as the sum of its kernels' floors (µs): the matmul kernels'
    (`matmul_us`: their arithmetic at the matmul ceiling, `matmul_bytes_us`: their DRAM
    bytes, `matmul_bytes`, at the copy bandwidth; `matmul_binds`: "flops" or "bytes", the
    larger); the other kernels' (`rest_us`, over `rest_bytes` DRAM bytes in `rest_kernels`
    kernels; the softmax kernel at its exponentials where they take longer than its bytes:
    `exps_bind`); `total_us` their sum and `matmul_share` the matmuls' part of it (%)."""
    matmul_us: float
    matmul_bytes: float
    matmul_bytes_us: float
    matmul_binds: str
    rest_bytes: float
    rest_kernels: int
    rest_us: float
    exps_bind: bool
    total_us: float
    matmul_share: float


def call_floor(row, kernels, flops_us, exp_us, bandwidth) -> CallFloor | None:
    """CallFloor for one variant's trace row and its ncu kernels ({name: metrics}, with DRAM
    bytes) at the matmul floor `flops_us` and the exponentials' `exp_us` (None: not
    measured, so not counted) and `bandwidth` (bytes per µs); None where the matmul floor
    is not measured or ncu found no matmul kernel."""
    roles = kernel_roles(row)
    parts = [(roles.get(_base(name), "other"), m["dram_read_bytes"] + m["dram_write_bytes"])
             for name, m in kernels.items()]
    matmul_bytes = sum(b for role, b in parts if role == "matmul")
    if flops_us is None or not any(role == "matmul" for role, _ in parts):
        return None
    rest = [(role, b) for role, b in parts if role != "matmul"]
    rest_us, exps_bind = 0.0, False
    for role, b in rest:
        if role == "softmax" and exp_us is not None and exp_us > b / bandwidth:
            rest_us, exps_bind = rest_us + exp_us, True
        else:
            rest_us += b / bandwidth
    matmul_us = max(flops_us, matmul_bytes / bandwidth)
    total = matmul_us + rest_us
    return CallFloor(matmul_us, matmul_bytes, matmul_bytes / bandwidth,
                     "flops" if flops_us >= matmul_bytes / bandwidth else "bytes",
                     sum(b for _, b in rest), len(rest), rest_us, exps_bind, total, 100 * matmul_us / total)
