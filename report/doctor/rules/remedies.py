"""The remedies `--explain` names: one rule each, with its source and its evidence; a rule
gives a Finding only where its evidence is in the trace.

    RULES          the rules in order, each rule(facts) -> Finding | None
    findings(f)    every rule's finding on Facts f, largest time at stake first

Facts (rules/diagnose.py) hold what the rules read: the pace of the steps, the attention
summary and its calls' inputs, the kernels, the optimizer's launches, the host's reads, the
GPU's idle gaps in the steps that wait for the host (host_gaps: those no sync, host read or
profiler step opened).
The thresholds are this tool's conventions, stated beside each rule.
"""
from __future__ import annotations

from ..model.result_types import Finding
from ..shown.numbers import sig_us as _us
from . import mha
from .facts import ExposedComm, GemmAlignment, PaceOnly
from .why import FIXES
from .wording import said

LAUNCH_BOUND_KERNEL_US = 20.0  # a median kernel shorter than this: short kernels (the tests' made-up steps)
LAUNCH_BOUND_DELAY_US = 50.0  # a median launch delay under this: the launches do not queue ahead of the GPU
# the median of the GPU's idle gaps that wait for the host: at most this, each is the host path
# of an op or two (Python, dispatch, the launch), and short kernels cannot cover it; longer,
# the host does other work between launches. The corpus's launch-bound traces (transformers'
# models, tests/fixtures/corpus) have medians of 14 to 35 µs; HTA's a100_nccl, whose wait is
# a DDP step's host work between launches (gaps before DtoD copies of up to 16 ms), 106 µs.
HOST_GAP_US = 50.0
ALIGN_SHARE = 0.05  # a GEMM kernel with a narrow alignment over this share of GPU time
ALIGNED = ("align1", "align2")  # CUTLASS kernel names carry their operands' alignment in elements
OPTIMIZER_LAUNCHES = 100  # per optimizer step: launches of a per-parameter loop
COMM_SHARE = 0.1  # communication over this share of a device's GPU busy time
COMM_OVERLAP = 0.5  # ... and compute beside it for less than this share of it: exposed
# the findings that answer each pace the first screen names; where none is found, PaceOnly says why
ANSWERS = {"host": ("launch_bound", "host_work", "optimizer_foreach", "host_sync", "communication"),
           "sync": ("host_sync",), "waiting": ("communication",),
           "gpu": ("hand_written_attention", "math_fallback", "efficient_not_flash", "gemm_alignment", "bool_mask",
                   "head_dim", "bias_in_training", "communication")}


def _median_gap(f):
    gaps = sorted(g[0] for g in f.host_gaps)
    return gaps[(len(gaps) - 1) // 2] if gaps else None


def _launch_bound(f):
    p = f.pace
    gap = _median_gap(f)
    if (p.verdict != "CPU-bound" or p.paced_by != "host" or p.median_kernel_us is None
            or p.launch_delay_us is None or p.launch_delay_us >= LAUNCH_BOUND_DELAY_US
            or gap is None or gap > HOST_GAP_US):
        return None
    decode = f.decode_calls
    g = f.graphs
    if g is not None and g.per_range:  # graphs replay already: never prescribe them again
        remedy = (f"CUDA graphs replay here already ({g.per_range:,.0f} per range): the waits are for the "
                  f"{g.other_launches_per_range or 0:,.0f} launches per range outside them; capture those "
                  "too (a graph break in torch.compile leaves them out), or launch fewer")
    else:
        remedy = ("capture the step in a CUDA graph: torch.compile(model, mode=\"reduce-overhead\"), "
                  "or torch.cuda.graphs")
    if decode and not (g is not None and g.per_range):
        remedy += ("; for generate(), a static KV cache (cache_implementation=\"static\") so the decode "
                   "step has fixed shapes to capture")
    host = f.host_wait_us or 0.0
    evidence = (f"{p.launches_per_range:,.0f} launches per range, median kernel {_us(p.median_kernel_us)}, "
                f"median wait for the host between two {_us(gap)}, "
                f"GPU busy {100 * (p.busy_share or 0):.0f}%, launch delay {_us(p.launch_delay_us)}"
                + (f", {decode:,} SDPA calls with one query (decoding)" if decode else ""))
    return Finding("launch_bound", "The host's launches set the pace: many short kernels", host * f.ranges,
                   0.0, evidence, remedy, "CUDA Graphs (PyTorch docs: torch.cuda.graphs, torch.compile modes)")


def _host_work(f):
    """CPU-bound with the GPU's waits for the host longer than an op's host path: the host
    does other work between launches, which shorter kernels or fewer launches would not save."""
    p = f.pace
    gap = _median_gap(f)
    if p.verdict != "CPU-bound" or p.paced_by != "host" or gap is None or gap <= HOST_GAP_US:
        return None
    longest = max(f.host_gaps, key=lambda g: g[0])
    after = longest[1]
    where = (f"before {after.launch.name} in {after.op}" if after.launch is not None and after.op
             else f"before {after.e.name}")
    long_us = sum(g[0] for g in f.host_gaps if g[0] > HOST_GAP_US)
    return Finding("host_work", "The host's own work between launches sets the pace", long_us, 0.0,
                   f"{len(f.host_gaps):,} waits for the host, median {_us(gap)} (over {_us(HOST_GAP_US)}: more "
                   f"than launching an op takes); the longest {_us(longest[0])}, {where}",
                   "see what the host runs before the longest waits (with_stack=True records its Python frames) "
                   "and move it out of the step, or overlap it with GPU work",
                   "HTA's idle-time breakdown (host wait)")


def _optimizer_loop(f):
    o = f.optimizer
    if not o or o["foreach"] or o["launches"] < OPTIMIZER_LAUNCHES:
        return None
    return Finding("optimizer_foreach", f"The optimizer loops over parameters ({o['name']})", o["gpu_span_us"], 0.0,
                   f"{o['launches']:,.0f} launches per optimizer step and no aten::_foreach_ or _fused_ op in it",
                   "pass foreach=True (or fused=True) to the optimizer: one launch per group of tensors",
                   "torch.optim's foreach and fused implementations (torch/optim/adamw.py)")


def _hand_written(f):
    hand = f.attention.get("hand_written")
    if not hand:
        return None
    copies = (f"; {hand['masked_fill_copies']:,} out-of-place masked_fill copies of the scores"
              if hand["masked_fill_copies"] else "")
    mha = hand.get("mha_need_weights")  # rules/mha.py: nn.MultiheadAttention's need_weights=True path
    return Finding("mha_need_weights" if mha else "hand_written_attention",
                   "nn.MultiheadAttention computes its weights (need_weights=True): bmm, softmax, bmm" if mha
                   else "Attention is written by hand (matmul, softmax, matmul)",
                   hand["gpu_us"], hand["share"],
                   f"{hand['chains']:,} {'chain' if hand['chains'] == 1 else 'chains'} outside SDPA{copies}"
                   + (f"; {mha:,} followed by the output projection (linear): "
                      "F.multi_head_attention_forward's need_weights path" if mha else ""),
                   (FIXES["need_weights_false"] if hand.get("mha_need_weights") else
                    "call torch.nn.functional.scaled_dot_product_attention: one fused kernel")
                   + ("; where a copy must stay, masked_fill_ in place under no_grad" if copies else ""),
                   "the seed's recommendations: fused attention, no out-of-place masked_fill")


def _prep(f, cause_word):
    prep = next((r for r in f.attention.get("backends", ()) if r["backend"] == "preparation"), None)
    if not prep:
        return 0.0
    return sum(us for cause, us in prep["causes"].items() if cause_word in cause)


def _bool_mask(f):
    groups = [g for g in f.calls if g["parsed"] and g["parsed"].mask_dtype == "bool" and not g["parsed"].is_causal]
    if not groups:
        return None
    square = [g for g in groups if g["parsed"].mask and len(g["parsed"].mask) >= 2
              and g["parsed"].mask[-1] == g["parsed"].mask[-2] and all(d == 1 for d in g["parsed"].mask[:-2])]
    padding = [g for g in groups if g["parsed"].mask and len(g["parsed"].mask) >= 3 and g["parsed"].mask[0] > 1]
    calls = sum(g["calls"] for g in groups)
    time = _prep(f, "bool mask")
    # the trace records the mask's shape, not its pattern: each remedy says which pattern it fits
    window = ("a sliding window or another pattern: FlexAttention's block mask (create_block_mask) "
              "skips the masked blocks")
    if square:
        remedy = ("if the mask is the causal triangle, pass is_causal=True and no mask: flash runs and the "
                  f"mask is never converted; {window}")
    elif padding:
        remedy = ("if it pads sequences, nested jagged tensors (torch.nested.nested_tensor(..., "
                  f"layout=torch.jagged)) run flash without padding or a mask; {window}")
    else:
        remedy = window
    shape = groups[0]["parsed"].mask
    return Finding("bool_mask", "SDPA gets a bool mask it must convert, and flash cannot run", time,
                   time / f.activity_us if f.activity_us else 0.0,
                   f"{calls:,} calls with a bool mask [{', '.join(map(str, shape))}], is_causal=False; "
                   f"converting it takes {_us(time)}", remedy,
                   "sdp_utils.cpp: check_for_attn_mask; attention.cpp: convert_boolean_attn_mask")


def _head_dim(f):
    odd = [g for g in f.calls if g["parsed"] and g["parsed"].head_dim and g["parsed"].head_dim % 8]
    if not odd:
        return None
    time = _prep(f, "head dim")
    hd = odd[0]["parsed"].head_dim
    return Finding("head_dim", f"Head dim {hd} is not a multiple of 8", time,
                   time / f.activity_us if f.activity_us else 0.0,
                   f"{sum(g['calls'] for g in odd):,} calls; padding it to {hd + (-hd) % 8} takes {_us(time)}",
                   f"choose a head dim that is a multiple of 8 ({hd - hd % 8} or {hd + (-hd) % 8})",
                   "attention.cpp: pad_last_dim; sdp_utils.cpp: check_head_dim_size_mem_efficient")


def _fallback(f):
    rows = [r for r in f.attention.get("backends", ()) if r["backend"] == "math"]
    if not rows:
        return None
    why = next((g for g in f.calls if g["backend"] == "math" and g["why"]), None)
    time = sum(r["gpu_us"] for r in rows)
    return Finding("math_fallback", "SDPA ran the unfused math backend", time,
                   sum(r["share"] for r in rows),
                   why["why"] if why else "aten::_scaled_dot_product_attention_math ran; the trace records no "
                   "inputs (record_shapes=True) to say why",
                   (why["remedy"] if why and why["remedy"] else
                    "check with torch.nn.attention.sdpa_kernel(SDPBackend.FLASH_ATTENTION): it raises and says why"),
                   "sdp_utils.cpp: select_sdp_backend; the seed's math-pinned finding")


def _slow_backend(f):
    groups = [g for g in f.calls if g["backend"] == "efficient" and g["remedy"]]
    if not groups or (f.attention.get("bias_backward") and all("check_for_attn_mask" in g["why"] for g in groups)):
        return None  # a mask in training: _bias_in_training's finding, on the same time, says more
    rows = [r for r in f.attention.get("backends", ()) if r["backend"] == "efficient"]
    time = sum(r["gpu_us"] for r in rows)
    return Finding("efficient_not_flash", "SDPA ran the efficient backend, not flash", time,
                   sum(r["share"] for r in rows), groups[0]["why"], groups[0]["remedy"],
                   "sdp_utils.cpp: can_use_flash_attention")


def _narrow_gemm(f):
    """A GEMM kernel whose name says narrow alignment: the sizes its op recorded say which is
    not a multiple of 8 (none: no finding, the kernel chose its alignment for another reason,
    a float32 SIMT kernel's align1); without recorded shapes, the name alone, said so."""
    rows = f.narrow  # the kernel rows whose names carry ALIGNED
    time = sum(k["total_us"] for k in rows)
    if not rows or not f.activity_us or time / f.activity_us < ALIGN_SHARE:
        return None
    for k in rows:
        op, dims = f.gemm_inputs.get(k["name"], (None, ()))
        unaligned = tuple(sorted({n for d in dims for n in d[-2:] if n % 8}))
        if not dims or unaligned:
            return GemmAlignment(k["short_name"], tuple(a for a in ALIGNED if a in k["name"]), op,
                                 tuple(tuple(d) for d in dims), unaligned), time, time / f.activity_us
    return None


def _communication(f):
    """A stream's communication that compute does not hide, where it is a large share of the
    device's GPU time (COMM_SHARE) and overlaps compute for under COMM_OVERLAP of it."""
    rows = [c for c in f.communication if c.share >= COMM_SHARE and c.overlap_share < COMM_OVERLAP]
    if not rows:
        return None
    c = max(rows, key=lambda c: c.comm_us * (1 - c.overlap_share))
    exposed = c.comm_us * (1 - c.overlap_share)
    return (ExposedComm(c.device, c.stream, c.comm_us, c.share, c.overlap_share, f.collectives,
                        f.fsdp, f.ddp), exposed, c.share * (1 - c.overlap_share))


def _host_sync(f):
    if not f.openers:
        return None
    by, per = max(f.openers.items(), key=lambda kv: kv[1])
    if f.host_wait_us and per < 0.1 * f.host_wait_us:
        return None  # a small part of the host wait: it is not where the time goes
    return Finding("host_sync", f"The host waits for the GPU in the loop ({by})", per * f.ranges, 0.0,
                   f"the GPU's largest idle gaps follow {by}: {_us(per)} per range",
                   f"move {by} out of the loop, or read it every N steps", "CUDA streams: host reads synchronize")


def _bias_in_training(f):
    n = f.attention.get("bias_backward")
    if not n:
        return None
    rows = [r for r in f.attention.get("backends", ()) if r["backend"] == "efficient"]
    time = sum(r["gpu_us"] for r in rows)
    return Finding("bias_in_training", "A mask or bias goes through SDPA's backward: flash cannot run it", time,
                   sum(r["share"] for r in rows),
                   f"{n:,} efficient-attention backward calls with an attn_bias input",
                   "a learned bias as FlexAttention's score_mod (torch.nn.attention.flex_attention), or no mask "
                   "with is_causal=True where the bias is causal", "sdp_utils.cpp: check_for_attn_mask")


RULES = (_launch_bound, _host_work, _optimizer_loop, _hand_written, _bool_mask, _head_dim, _fallback, _slow_backend,
         _host_sync, _bias_in_training, mha.finding)
# the rules that return (typed fact, time at stake, share), worded by rules/wording.py
FACT_RULES = (("gemm_alignment", _narrow_gemm), ("communication", _communication))


def _pace_only(f):
    """The pace's own finding where no other answers it: what to change, or why nothing applies."""
    p = f.pace
    top = max(f.kernels, key=lambda k: k["total_us"], default=None)
    fact = PaceOnly(p.paced_by, top["short_name"] if top else None,
                    top["total_us"] / f.activity_us if top and f.activity_us else None,
                    f.graphs is not None, _median_gap(f), f.other_idle_share)
    wait = ((f.host_wait_us or 0.0) * f.ranges if p.paced_by in ("host", "sync") else
            top["total_us"] if top and p.paced_by == "gpu" else 0.0)
    title, evidence, remedy, source = said(fact)
    # the GPU's: the longest kernel, its share of GPU activity time (as the kernel rows give it)
    share = (fact.top_share or 0.0) if p.paced_by == "gpu" else 0.0
    return Finding("pace", title, wait, share, evidence, remedy, source, fact=fact)


def findings(facts):
    found = [x for rule in RULES if (x := rule(facts)) is not None]
    for name, rule in FACT_RULES:
        got = rule(facts)
        if got is not None:
            fact, time, share = got
            title, evidence, remedy, source = said(fact)
            found.append(Finding(name, title, time, share, evidence, remedy, source, fact=fact))
    answers = ANSWERS.get(facts.pace.paced_by)
    if answers is not None and not any(x.rule in answers for x in found):
        found.append(_pace_only(facts))
    return sorted(found, key=lambda x: -x.time_us)
