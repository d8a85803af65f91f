"""What NVIDIA's datasheets give for a GPU, beside what the run measured.

The roofs on the pages are measured in the same run (report/measure/roof.py: an 8192³ bf16
matmul, a device-to-device copy); a datasheet's figure is the vendor's peak. Keyed by the
name `torch.cuda.get_device_name()` reports (results.json: provenance.gpu_name). The
tensor figure is the dense one: NVIDIA's tables give BF16 with sparsity and mark it, so
the dense figure is half of it (the A100's table gives both).

A GPU not in the table gets no figure: the pages say so rather than guess.
"""
from __future__ import annotations

from typing import NamedTuple

from ..text.catalog import t
from ..text.format import fmt_num, fmt_pct, unit


class Datasheet(NamedTuple):
    product: str  # the product the figures are for, as the datasheet names it
    memory_tb_s: float  # memory bandwidth, TB/s (10^12 bytes per second)
    bf16_dense_tflops: float  # BF16 tensor-core TFLOP/s without sparsity
    url: str


H200 = "https://www.nvidia.com/en-us/data-center/h200/"
H100 = "https://www.nvidia.com/en-us/data-center/h100/"
A100 = "https://www.nvidia.com/en-us/data-center/a100/"
L4 = "https://www.nvidia.com/en-us/data-center/l4/"

DATASHEETS = {
    "NVIDIA H200": Datasheet("H200 SXM", 4.8, 989.5, H200),  # BF16 1,979 TFLOPS with sparsity
    "NVIDIA H200 NVL": Datasheet("H200 NVL", 4.8, 835.5, H200),  # 1,671 with sparsity
    "NVIDIA H100 80GB HBM3": Datasheet("H100 SXM", 3.35, 989.5, H100),  # 1,979 with sparsity
    "NVIDIA H100 PCIe": Datasheet("H100 PCIe", 2.0, 756.5, H100),  # 1,513 with sparsity
    "NVIDIA H100 NVL": Datasheet("H100 NVL", 3.9, 835.5, H100),  # 1,671 with sparsity
    "NVIDIA A100-SXM4-80GB": Datasheet("A100 80GB SXM", 2.039, 312.0, A100),
    "NVIDIA A100-SXM4-40GB": Datasheet("A100 40GB SXM", 1.555, 312.0, A100),
    "NVIDIA A100 80GB PCIe": Datasheet("A100 80GB PCIe", 1.935, 312.0, A100),
    "NVIDIA A100-PCIE-40GB": Datasheet("A100 40GB PCIe", 1.555, 312.0, A100),
    "NVIDIA L4": Datasheet("L4", 0.3, 121.0, L4),  # 242 with sparsity
}


def datasheet(gpu_name: str | None) -> Datasheet | None:
    """The datasheet's figures for the GPU of that name, or None where it is not in the table."""
    return DATASHEETS.get((gpu_name or "").strip())


def as_given(x, lang):
    """A datasheet's number with the decimals the datasheet gives it (4.8, 3.35, 312)."""
    text = repr(float(x))
    decimals = 0 if text.endswith(".0") else len(text.split(".")[1])
    return fmt_num(x, lang, decimals)


def bandwidth_text(sheet, lang):
    """"4.8 TB/s": the datasheet's memory bandwidth as the datasheet gives it."""
    return unit(as_given(sheet.memory_tb_s, lang), "TB/s", lang)


def tensor_text(sheet, lang):
    """"989.5 TFLOP/s": the datasheet's dense BF16 tensor-core figure."""
    return unit(as_given(sheet.bf16_dense_tflops, lang), "TFLOP/s", lang)


def memory_share(results, gb_per_s):
    """(the datasheet, the share of its memory bandwidth a measured GB/s is), or None
    where the run's GPU is not in the table."""
    sheet = datasheet(results["provenance"].get("gpu_name"))
    return (sheet, 100 * gb_per_s / (sheet.memory_tb_s * 1e3)) if sheet else None


def missing(results, lang):
    """The sentence for a GPU the table does not have."""
    return t("datasheet.missing", lang, gpu=results["provenance"].get("gpu_name") or "?")


def beside_copy(results, lang):
    """The datasheet's memory bandwidth beside the run's measured copy bandwidth, with the
    share the copy is of it; or the sentence that the GPU is not in the table."""
    found = memory_share(results, results["shapes"]["copy_roof"]["gb_per_s"])
    if found is None:
        return missing(results, lang)
    sheet, share = found
    return t("datasheet.memory", lang, tb_s=bandwidth_text(sheet, lang), product=sheet.product,
             url=sheet.url, share=fmt_pct(share, lang, 0))


def beside_matmul(results, lang):
    """The datasheet's dense BF16 tensor-core TFLOP/s beside the run's measured matmul roof,
    with the share the roof is of it; the missing sentence for a GPU not in the table; ""
    for a roof measured in another dtype (the datasheet's BF16 figure is not its peak)."""
    roof = results["roof"]
    if roof.get("dtype") != "bfloat16":
        return ""
    sheet = datasheet(results["provenance"].get("gpu_name"))
    if sheet is None:
        return missing(results, lang)
    return t("datasheet.tensor", lang, tflops=tensor_text(sheet, lang), product=sheet.product,
             url=sheet.url, share=fmt_pct(100 * roof["tflops"] / sheet.bf16_dense_tflops, lang, 0))
