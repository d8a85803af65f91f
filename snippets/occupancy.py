"""Occupancy from a kernel's launch resources, the way CUDA's occupancy calculator counts it.

Run on its own: ``python snippets/occupancy.py`` works out the A100 figures from the
Hugging Face study, and this machine's GPU if it has one.
"""

# --8<-- [start:limits]
from dataclasses import dataclass

# Per compute capability: facts the CUDA runtime does not report as device properties,
# as CUDA 13.0's occupancy calculator (cuda_occupancy.h) has them. Keys are (major, minor).
MAX_BLOCKS_PER_SM = {(7, 0): 32, (7, 5): 16, (8, 0): 32, (8, 6): 16, (8, 7): 16,
                     (8, 9): 24, (9, 0): 32, (10, 0): 32, (10, 1): 24, (10, 3): 32,
                     (11, 0): 24, (12, 0): 24, (12, 1): 24}
_UP_TO_100 = (0, 8, 16, 32, 64, 100)
_UP_TO_228 = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)
SMEM_CARVEOUTS_KB = {  # shared-memory sizes an SM can be configured to
    (7, 0): (0, 8, 16, 32, 64, 96),
    (7, 5): (32, 64),
    (8, 0): (0, 8, 16, 32, 64, 100, 132, 164),
    (8, 6): _UP_TO_100,
    (8, 7): (0, 8, 16, 32, 64, 100, 132, 164),
    (8, 9): _UP_TO_100,
    (9, 0): _UP_TO_228,
    (10, 0): _UP_TO_228, (10, 1): _UP_TO_228, (10, 3): _UP_TO_228, (11, 0): _UP_TO_228,
    (12, 0): _UP_TO_100, (12, 1): _UP_TO_100,
}
REG_ALLOC_UNIT = 256  # registers are handed to a warp in chunks of 256


def smem_alloc_unit(compute_capability):
    """Shared memory is handed to a block in chunks of 128 bytes (256 before Ampere)."""
    return 256 if compute_capability[0] <= 7 else 128


SUB_PARTITIONS = 4  # an SM's register file is split over 4 schedulers


@dataclass(frozen=True)
class GpuLimits:
    """What one SM offers. Read it from the device; never type it in."""

    name: str
    compute_capability: tuple
    sm_count: int
    max_threads_per_sm: int
    regs_per_sm: int
    regs_per_block: int
    smem_per_sm: int  # bytes usable by blocks on one SM
    smem_per_block: int  # default per-block limit (48 KiB)
    smem_per_block_optin: int  # what a kernel may opt in to
    warp_size: int = 32

    @property
    def max_blocks_per_sm(self):
        return MAX_BLOCKS_PER_SM.get(tuple(self.compute_capability), 32)

    @property
    def reserved_smem_per_block(self):  # the driver keeps 1 KiB per block since Ampere
        return 1024 if self.compute_capability[0] >= 8 else 0

    @classmethod
    def from_torch(cls, device=0):
        import torch

        p = torch.cuda.get_device_properties(device)
        return cls(name=p.name, compute_capability=(p.major, p.minor),
                   sm_count=p.multi_processor_count,
                   max_threads_per_sm=p.max_threads_per_multi_processor,
                   regs_per_sm=p.regs_per_multiprocessor,
                   regs_per_block=p.regs_per_multiprocessor,  # equal on sm70 and newer
                   smem_per_sm=p.shared_memory_per_multiprocessor,
                   smem_per_block=p.shared_memory_per_block,
                   smem_per_block_optin=p.shared_memory_per_block_optin,
                   warp_size=p.warp_size)

    @classmethod
    def from_trace(cls, props):
        """From a Kineto trace's "deviceProperties" entry."""
        return cls(name=props["name"],
                   compute_capability=(props["computeMajor"], props["computeMinor"]),
                   sm_count=props["numSms"],
                   max_threads_per_sm=props["maxThreadsPerMultiprocessor"],
                   regs_per_sm=props["regsPerMultiprocessor"],
                   regs_per_block=props["regsPerBlock"],
                   smem_per_sm=props["sharedMemPerMultiprocessor"],
                   smem_per_block=props["sharedMemPerBlock"],
                   smem_per_block_optin=props["sharedMemPerBlockOptin"],
                   warp_size=props["warpSize"])
# --8<-- [end:limits]


# --8<-- [start:occupancy]
def _round_up(x, unit):
    return -(-x // unit) * unit


def blocks_per_sm(gpu, regs_per_thread, threads_per_block, smem_per_block,
                  opted_in=True):
    """How many blocks of this kernel fit on one SM at once, and what limits it.

    opted_in=False applies the default 48 KiB per-block shared-memory limit, as
    Kineto's "est. achieved occupancy %" does; kernels that asked for more (most
    attention kernels) then count as not fitting at all.
    """
    warps_per_block = -(-threads_per_block // gpu.warp_size)
    limits = {"blocks": gpu.max_blocks_per_sm,
              "warps": gpu.max_threads_per_sm // gpu.warp_size // warps_per_block}

    regs_per_warp = _round_up(regs_per_thread * gpu.warp_size, REG_ALLOC_UNIT)
    if regs_per_warp == 0:
        limits["registers"] = limits["blocks"]
    elif regs_per_warp * _round_up(warps_per_block, SUB_PARTITIONS) > gpu.regs_per_block:
        limits["registers"] = 0
    else:
        warps_per_partition = gpu.regs_per_sm // SUB_PARTITIONS // regs_per_warp
        limits["registers"] = warps_per_partition * SUB_PARTITIONS // warps_per_block

    smem = _round_up(smem_per_block + gpu.reserved_smem_per_block, smem_alloc_unit(gpu.compute_capability))
    per_block_cap = gpu.smem_per_block_optin if opted_in else gpu.smem_per_block
    if smem > per_block_cap + gpu.reserved_smem_per_block:
        limits["shared memory"] = 0
    elif smem == 0:
        limits["shared memory"] = limits["blocks"]
    else:
        carveout = max(gpu.smem_per_sm, smem)
        sizes = SMEM_CARVEOUTS_KB.get(tuple(gpu.compute_capability))
        if sizes:  # the SM is configured to the next size up
            carveout = min((s * 1024 for s in sizes if s * 1024 >= carveout), default=carveout)
        limits["shared memory"] = carveout // smem

    blocks = min(limits.values())
    limited_by = [k for k, v in limits.items() if v == blocks]
    return blocks, limited_by


def occupancy(gpu, regs_per_thread, threads_per_block, smem_per_block,
              grid_blocks=None, opted_in=True):
    """Resident warps over the SM's maximum, in percent.

    With grid_blocks, an SM holds no more blocks than the grid gives it on average,
    which is how Kineto's "est. achieved occupancy %" is computed.
    """
    blocks, limited_by = blocks_per_sm(gpu, regs_per_thread, threads_per_block,
                                       smem_per_block, opted_in)
    if grid_blocks is not None and grid_blocks / gpu.sm_count < blocks:
        blocks, limited_by = grid_blocks / gpu.sm_count, ["grid"]
    percent = 100.0 * blocks * threads_per_block / gpu.max_threads_per_sm
    return percent, blocks, limited_by
# --8<-- [end:occupancy]


if __name__ == "__main__":
    # --8<-- [start:a100]
    from occupancy import GpuLimits, occupancy

    # The A100 of the Hugging Face study, from its published limits (not measured here).
    a100 = GpuLimits(name="A100-SXM4-80GB", compute_capability=(8, 0), sm_count=108,
                     max_threads_per_sm=2048, regs_per_sm=65536, regs_per_block=65536,
                     smem_per_sm=167936, smem_per_block=49152, smem_per_block_optin=166912)

    for kernel, regs, threads in [("flash_fwd_kernel", 255, 128), ("cuDNN", 240, 256)]:
        percent, blocks, limited_by = occupancy(a100, regs, threads, smem_per_block=0)
        print(f"{kernel}: {threads} threads x {regs} registers -> {blocks} blocks per SM, "
              f"{percent:.1f} % occupancy (limited by {', '.join(limited_by)})")
    # --8<-- [end:a100]

    import torch

    if torch.cuda.is_available():
        gpu = GpuLimits.from_torch()
        print(f"this GPU, {gpu.name}: {gpu.sm_count} SMs, "
              f"{gpu.max_threads_per_sm // gpu.warp_size} warps and "
              f"{gpu.regs_per_sm} registers per SM")
