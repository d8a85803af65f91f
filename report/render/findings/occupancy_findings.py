"""Findings of the occupancy page: flash's arithmetic, and every 0 % Kineto shows."""
import math

from ...text.catalog import t
from ...text.format import blocks_text, fmt_bytes, fmt_num, fmt_pct
from ...trace.kernel_occupancy import registers_per_block
from ...variants import FUSED
from ..markdown import limits_text
from .common import compute_kernel, ok
from .registry import finding

DEFAULT_SMEM_PER_BLOCK = 49152  # CUDA's default limit without opt-in, if provenance lacks it


@finding("findings-occupancy")
def occ_flash(results, ref, lang):
    v, prov = results["variants"], results["provenance"]
    measured = any(k.get("our_optin_pct") is not None for n in FUSED if ok(results, n)
                   for k in v[n]["kernels"])
    if not (ok(results, "flash") and measured):
        return []
    k = compute_kernel(v["flash"])
    threads = math.prod(k["block"])
    per_warp, per_block = registers_per_block(k["registers_per_thread"], threads)
    return [t("finding.occ_flash", lang, kernel=k["short_name"], threads=threads,
              regs=k["registers_per_thread"], product=fmt_num(threads * k["registers_per_thread"], lang, 0),
              per_warp=fmt_num(per_warp, lang, 0), per_block=fmt_num(per_block, lang, 0),
              regs_sm=fmt_num(prov.get("regs_per_sm", 65536), lang, 0), blocks=k["our_optin_blocks"],
              warps=threads // 32 * k["our_optin_blocks"], max_warps=prov.get("max_warps_per_sm", 64),
              pct=fmt_pct(k["our_optin_pct"], lang), kineto=fmt_pct(k["kineto_occupancy_pct"], lang, 0))]


@finding("findings-occupancy")
def occ_zero(results, ref, lang):
    v, prov = results["variants"], results["provenance"]
    zero = [k for n in FUSED if ok(results, n) for k in v[n]["kernels"]
            if k["kind"] == "kernel" and k.get("kineto_occupancy_pct") == 0 and k.get("our_optin_pct")]
    if not zero:
        return []
    k = zero[0]
    return [t("finding.occ_zero", lang, kernel=k["short_name"], smem=fmt_bytes(k["shared_memory"], lang),
              default=fmt_bytes(prov.get("smem_per_block", DEFAULT_SMEM_PER_BLOCK), lang),
              optin=fmt_bytes(prov.get("smem_per_block_optin"), lang), kineto=fmt_pct(0, lang, 0),
              blocks=blocks_text(k["our_optin_blocks"], lang), pct=fmt_pct(k["our_optin_pct"], lang),
              limited=limits_text(k["our_optin_limited_by"], lang))]


def _why_zero(k, prov, lang):
    if (k["shared_memory"] or 0) > prov.get("smem_per_block", DEFAULT_SMEM_PER_BLOCK):
        return t("finding.why_smem", lang, smem=fmt_bytes(k["shared_memory"], lang))
    return t("finding.why_grid", lang, grid=blocks_text(math.prod(k["grid"]), lang),
             sms=prov.get("sm_count"), pct=fmt_pct(k["our_kineto_rule_pct"], lang, 2))


@finding("findings-occupancy")
def occ_zero_all(results, ref, lang):
    v = results["variants"]
    zero = {k["short_name"]: k for n in v if ok(results, n) for k in v[n]["kernels"]
            if k["kind"] == "kernel" and k.get("kineto_occupancy_pct") == 0}
    if not zero:
        return []
    reasons = [f"`{name}`: {_why_zero(k, results['provenance'], lang)}" for name, k in sorted(zero.items())]
    return [t("finding.occ_zero_all", lang, kernels="; ".join(reasons))]


EX_LAUNCHES = ("cudaLaunchKernelExC", "cuLaunchKernelEx")
PLAIN_LAUNCHES = ("cudaLaunchKernel", "cuLaunchKernel")


@finding("findings-occupancy-launch")
def occ_launch_api(results, ref, lang):
    """Two kernels of the run that rule out the launch API as the cause of a 0 %."""
    default = results["provenance"].get("smem_per_block", DEFAULT_SMEM_PER_BLOCK)
    kernels = [k for n in results["variants"] if ok(results, n) for k in results["variants"][n]["kernels"]
               if k["kind"] == "kernel" and k.get("kineto_occupancy_pct") is not None]
    ex = next((k for k in kernels if k["launched_by"] in EX_LAUNCHES and k["kineto_occupancy_pct"] > 0), None)
    plain = next((k for k in kernels if k["launched_by"] in PLAIN_LAUNCHES and k["kineto_occupancy_pct"] == 0
                  and (k.get("shared_memory") or 0) > default), None)
    if not (ex and plain):
        return []
    return [t("finding.occ_launch_api", lang, ex_kernel=ex["short_name"], ex_api=ex["launched_by"],
              ex_pct=fmt_pct(ex["kineto_occupancy_pct"], lang, 0), plain_kernel=plain["short_name"],
              plain_api=plain["launched_by"], plain_pct=fmt_pct(0, lang, 0),
              smem=fmt_bytes(plain["shared_memory"], lang))]
