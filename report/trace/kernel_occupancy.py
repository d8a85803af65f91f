"""Our own occupancy for each kernel of an analysed trace (the calculator is a snippet)."""
import math

from .. import snippets


def limits_from_trace(device_properties):
    """The GPU's limits as the trace recorded them (Kineto's deviceProperties)."""
    return snippets.load("occupancy").GpuLimits.from_trace(device_properties)


def add_occupancy(kernels, limits):
    """Our own occupancy for each kernel: Kineto's rule, and with the kernel's opt-in."""
    occupancy = snippets.load("occupancy").occupancy
    for k in kernels:
        if k["kind"] != "kernel" or not k.get("block") or k.get("registers_per_thread") is None:
            continue
        threads = math.prod(k["block"])
        grid = math.prod(k["grid"]) if k.get("grid") else None
        smem = k.get("shared_memory") or 0
        pct, blocks, why = occupancy(limits, k["registers_per_thread"], threads, smem,
                                     grid_blocks=grid, opted_in=False)
        k["our_kineto_rule_pct"] = pct
        pct, blocks, why = occupancy(limits, k["registers_per_thread"], threads, smem,
                                     opted_in=True)
        k["our_optin_pct"], k["our_optin_blocks"], k["our_optin_limited_by"] = pct, blocks, why
    return kernels


def registers_per_block(regs_per_thread, threads, warp_size=32):
    """(registers a warp is given, registers a block is given): allocation rounds each
    warp's share up to the calculator's allocation unit (256 registers)."""
    unit = snippets.load("occupancy").REG_ALLOC_UNIT
    per_warp = -(-regs_per_thread * warp_size // unit) * unit
    return per_warp, per_warp * -(-threads // warp_size)
