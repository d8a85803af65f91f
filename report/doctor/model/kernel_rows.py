"""GPU activities as rows, one per name and launch configuration, with occupancy and its
reason.

    devices(meta)        deviceProperties by id as the calculator's GpuLimits (CUDA's full
                         schema, or ROCm's reduced one), None where unusable
    kernel_rows(acts)    one row per (name, grid, block, registers, shared memory), longest
                         total first, with the ATen ops that launched it counted
    add_occupancy(rows, limits, platform)  theoretical occupancy per SM (warps), Kineto's
                         estimate by its own rule, the waves, and why the two differ (on an AMD
                         GPU, per CU: platform_words.unit)

Kineto's "est. achieved occupancy %" takes at most the grid's blocks per SM (a grid smaller
than the SM count leaves SMs empty) and applies the default 48 KiB shared-memory limit per
block, so a kernel that opted in to more counts as 0 %. The theoretical figure counts the
warps that fit on one SM with the kernel's own opt-in, as Nsight Compute does.
"""
from __future__ import annotations

import math
from collections import Counter

from ... import snippets
from ...trace.names import KINDS, short_kernel_name
from ...trace.reading.events import hashable as _hashable
from .platform_words import unit

SMALL_GRID = 1.0  # a grid with fewer blocks than this many per SM leaves SMs idle


# launch resources and device properties are C ints in CUDA and HIP (a grid's x is at most
# 2**31 - 1): a larger value is malformed, not a number to print 61 digits of; so is a float
# (32.0, 1e400 read as inf, NaN), a bool or a text
MAX_COUNT = 2**31 - 1
RESOURCES = ("grid", "block", "registers_per_thread", "shared_memory")


def _count(value, least=1):
    return isinstance(value, int) and not isinstance(value, bool) and least <= value <= MAX_COUNT


def _dims(value):
    return isinstance(value, list) and 1 <= len(value) <= 3 and all(_count(v) for v in value)


def _limits(props):
    """GpuLimits from one deviceProperties entry: CUDA's schema, or ROCm's (Kineto writes
    maxSharedMemoryPerMultiProcessor and no per-SM registers or opt-in there)."""
    GpuLimits = snippets.load("occupancy").GpuLimits
    if "regsPerMultiprocessor" in props:
        return GpuLimits.from_trace(props), "cuda"
    smem_sm = props.get("maxSharedMemoryPerMultiProcessor", props["sharedMemPerBlock"])
    return GpuLimits(name=props["name"], compute_capability=(props["computeMajor"], props["computeMinor"]),
                     sm_count=props["numSms"], max_threads_per_sm=props["maxThreadsPerMultiprocessor"],
                     regs_per_sm=props["regsPerBlock"], regs_per_block=props["regsPerBlock"],
                     smem_per_sm=smem_sm, smem_per_block=props["sharedMemPerBlock"],
                     smem_per_block_optin=props["sharedMemPerBlock"],
                     warp_size=props.get("warpSize", 64)), "rocm"


def devices(meta):
    """{device id: (GpuLimits or None, schema)} for every deviceProperties entry."""
    found = {}
    listed = meta.get("deviceProperties")
    for props in listed if isinstance(listed, list) else []:
        if not isinstance(props, dict):
            continue
        try:
            limits, schema = _limits(props)
        except (KeyError, TypeError):
            found[_hashable(props.get("id", 0))] = (None, None)
            continue
        numbers = [limits.sm_count, limits.max_threads_per_sm, limits.regs_per_sm, limits.regs_per_block,
                   limits.smem_per_sm, limits.smem_per_block, limits.smem_per_block_optin, limits.warp_size]
        usable = (isinstance(limits.name, str) and all(map(_count, numbers))
                  and all(_count(c, 0) for c in limits.compute_capability))
        found[_hashable(props.get("id", 0))] = (limits, schema) if usable else (None, None)
    return found


def _row(rows, a):
    """The row of a's name and launch configuration in rows, made where it is the first."""
    e, args = a.e, a.e.args
    grid, block = args.get("grid"), args.get("block")
    key = (e.name, tuple(grid) if type(grid) is list else grid, tuple(block) if type(block) is list else block,
           args.get("registers per thread"), args.get("shared memory"))
    try:
        row = rows.get(key)
    except TypeError:  # a value of another type than Kineto's: its text
        key = (e.name,) + tuple(tuple(map(_hashable, v)) if isinstance(v, list) else _hashable(v)
                                for v in (grid, block, args.get("registers per thread"),
                                          args.get("shared memory")))
        row = rows.get(key)
    if row is None:
        row = rows[key] = {
            "name": e.name, "short_name": short_kernel_name(e.name), "kind": KINDS[e.cat],
            "work": a.kind, "device": args.get("device"), "calls": 0, "total_us": 0.0,
            "registers_per_thread": args.get("registers per thread"),
            "shared_memory": args.get("shared memory"), "block": args.get("block"),
            "grid": args.get("grid"), "kineto": Counter(), "ops": Counter(),
            "launch_calls": Counter()}
        valid = {"grid": _dims(row["grid"] or [1]), "block": _dims(row["block"]),
                 "registers_per_thread": _count(row["registers_per_thread"]),
                 "shared_memory": _count(row["shared_memory"], 0)}
        for k in RESOURCES:  # a malformed one is none: never a value to print or write as JSON
            if not valid[k]:
                row[k] = None
        if not all(valid.values()):
            row["block"] = None  # launch resources missing or malformed: no calculation
    return row


def _percent(value):
    """Kineto's occupancy estimate where it is a finite percentage, else None."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 100
    return value if ok else None  # NaN fails the comparison


def kernel_rows(acts):
    """One row per GPU activity name and launch configuration, longest total first."""
    rows, seen = {}, {}  # seen: (category, name, args) -> row; equal launch resources share one args dict
    for a in acts:
        e, args = a.e, a.e.args
        row = seen.get((e.cat, e.name, id(args)))
        if row is None:
            row = seen[(e.cat, e.name, id(args))] = _row(rows, a)
        row["calls"] += 1
        row["total_us"] += e.dur
        occ = _percent(args.get("est. achieved occupancy %"))
        if occ is not None:
            row["kineto"][occ] += 1
        row["ops"][a.op or "(no ATen op)"] += 1
        if a.launch is not None:
            row["launch_calls"][a.launch.name] += 1
    out = sorted(rows.values(), key=lambda k: (-k["total_us"], k["name"], str(k["grid"])))
    configs = Counter(k["name"] for k in out)
    for k in out:
        k["avg_us"] = k["total_us"] / k["calls"]
        k["configs_of_name"] = configs[k["name"]]
        k["kineto_occupancy_pct"] = k["kineto"].most_common(1)[0][0] if k["kineto"] else None
        k["aten_op"] = k["ops"].most_common(1)[0][0] if k["ops"] else None
        k["launched_by"] = k["launch_calls"].most_common(1)[0][0] if k["launch_calls"] else None
    return out


def add_occupancy(rows, limits, platform="cuda"):
    """Theoretical occupancy (warps per SM, the kernel's opt-in), Kineto's rule, waves, and
    the reasons the figures differ, for each kernel row with launch resources. The reasons
    name what numSms counts (unit: SMs, CUs); on ROCm, where Kineto makes no estimate, none
    names Kineto's rule."""
    blocks_per_sm = snippets.load("occupancy").blocks_per_sm
    one, many = unit(platform, limits.compute_capability)
    for k in rows:
        if k["kind"] != "kernel" or not k.get("block"):
            continue
        threads = math.prod(k["block"])
        warps = -(-threads // limits.warp_size)
        grid = math.prod(k["grid"]) if k.get("grid") else 1
        smem = k.get("shared_memory") or 0
        fit, limited_by = blocks_per_sm(limits, k["registers_per_thread"], threads, smem, opted_in=True)
        fit_default, _ = blocks_per_sm(limits, k["registers_per_thread"], threads, smem, opted_in=False)
        max_warps = limits.max_threads_per_sm // limits.warp_size
        k["theoretical_pct"] = 100.0 * fit * warps / max_warps
        k["blocks_per_sm"], k["limited_by"], k["unit"] = fit, limited_by, one
        k["kineto_rule_pct"] = 100.0 * min(fit_default, grid / limits.sm_count) * warps / max_warps
        reasons = []  # (case, figures): output/said.py words each as occ.CASE
        if grid < limits.sm_count * SMALL_GRID:
            reasons.append(("small_grid", {"grid": grid, "sms": limits.sm_count, "unit": many,
                                           "idle": limits.sm_count - grid}))
        if smem > limits.smem_per_block and platform != "rocm":
            reasons.append(("smem_over", {"smem_kib": smem / 1024, "limit_kib": limits.smem_per_block / 1024}))
        if fit:
            waves = grid / (fit * limits.sm_count)
            k["waves"] = waves
            if 1 < waves < 8 and waves % 1 < 0.5:
                reasons.append(("waves", {"waves": waves, "fill": waves % 1}))
        k["small_grid"] = grid < limits.sm_count * SMALL_GRID
        k["reasons"] = reasons
    return rows
