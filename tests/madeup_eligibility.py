"""A made-up results["eligibility"] section (measure's "ask PyTorch why" phase) for tests of
its page: a few conditions built from a few figures, in the format of
/work/wt/tasks/h37m.md. Made-up data for tests only: it is never rendered into
docs/generated. A library for the tests (tests import it; it imports no test module).

    from madeup_eligibility import eligibility, condition
    r = site_run(); r["eligibility"] = eligibility()
"""
from __future__ import annotations

import copy

# the reasons as PyTorch words them (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp and
# sdp_utils_cpp.h); the figures in them are made up
MEM_HEADER = "Memory efficient kernel not used because:"
FLASH_HEADER = "Flash attention kernel not used because:"
NO_KERNEL = "No available kernel. Aborting execution."
MASK = "Flash Attention does not support non-null attn_mask."
DTYPE = ("Expected query, key and value to all be of dtype: {Half, BFloat16}. Got Query dtype: float, "
         "Key dtype: float, and Value dtype: float instead.")
HEADS = ("For dense input, both fused kernels require query, key and value to have the same num_heads. "
         "Query.sizes(): [8, 16, 1024, 64], Key sizes(): [8, 4, 1024, 64], Value sizes(): [8, 4, 1024, 64] "
         "instead. To broadcast dense inputs, try using unsqueeze and expand_to before passing them into the kernel.")
CAUSAL = ("Flash attention does not support the is_causal flag when seqlen_q != seqlen_k. Got seqlen_q: 1 "
          "seqlen_k: 1024. If you would like to use causal attention with non-square masks, please see CausalAttnMask.")
HEAD_DIM = ("Flash attention requires q,k,v to have the same last dimension and to be less than or equal to 256. "
            "Got Query.size(-1): 512, Key.size(-1): 512, Value.size(-1): 512 instead.")
CUDNN_HEAD_DIM = "head_dim should be no more than 256"

SETTING = {"dtype": "bfloat16", "head_dim": 64, "kv_heads": 16, "mask": "none", "is_causal": False,
           "layout": "contiguous", "dropout": 0.0, "enable_gqa": False, "api": "sdpa", "pinned": None}


def yes():
    return {"ok": True, "reasons": []}


def no(*reasons):
    return {"ok": False, "reasons": list(reasons)}


ASKED_ALL = object()  # can_use: every backend said yes


def condition(cid, ran, us, fix=None, shape="seed", can_use=ASKED_ALL, error=None, call_warnings=(), check=None,
              spread=0.02, **setting):
    """One condition: what ran and its kernel time (µs, its steps `spread` either side), the
    rest at the baseline's setting but `setting`."""
    steps = [us * (1 - spread), us, us * (1 + spread)] if us else None
    return {"id": cid, "shape": shape, "fix": fix, "setting": {**SETTING, **setting},
            "can_use": {b: yes() for b in ("flash", "efficient", "cudnn")} if can_use is ASKED_ALL else can_use,
            "ran": ran, "kernels": [f"{ran}_made_up_kernel"] if ran else [], "call_warnings": list(call_warnings),
            "error": error, "kernel_time_us": {"median": us, "steps": steps} if us else None,
            "trace": f"traces/ask-{cid}.json.gz" if ran else None, "check": check}


def _conditions():
    return [
        condition("baseline", "cudnn", 100.0),
        condition("baseline_pinned_flash", "flash", 120.0, pinned="flash"),
        condition("baseline_pinned_efficient", "efficient", 150.0, pinned="efficient"),
        condition("baseline_pinned_cudnn", "cudnn", 100.0, pinned="cudnn"),
        condition("causal", "cudnn", 60.0, is_causal=True),
        condition("causal_mask", "efficient", 180.0, fix="causal", mask="causal_materialised",
                  can_use={"flash": no(MASK), "efficient": yes(), "cudnn": yes()}),
        condition("float32", "math", 900.0, fix="baseline", dtype="float32",
                  can_use={"flash": no(DTYPE), "efficient": yes(), "cudnn": no(DTYPE)}),
        condition("float32_gqa", "math", 1100.0, fix="gqa", dtype="float32", kv_heads=4, enable_gqa=True,
                  can_use={"flash": no(DTYPE), "efficient": no(HEADS), "cudnn": no(DTYPE)}),
        condition("gqa", "flash", 110.0, kv_heads=4, enable_gqa=True),
        condition("head_dim_512", "math", 2400.0, head_dim=512,
                  can_use={"flash": no(HEAD_DIM), "efficient": yes(), "cudnn": no(CUDNN_HEAD_DIM)}),
        condition("pinned_flash_float32", None, None, fix="baseline_pinned_flash", dtype="float32",
                  pinned="flash", can_use={"flash": no(DTYPE), "efficient": yes(), "cudnn": no(DTYPE)},
                  error=NO_KERNEL, call_warnings=(MEM_HEADER, FLASH_HEADER, DTYPE)),
        condition("mha_need_weights", "math", 800.0, fix="mha_no_weights", api="mha_need_weights", can_use=None),
        condition("mha_no_weights", "cudnn", 130.0, api="mha_no_weights", can_use=None),
        condition("decode_baseline", "flash", 20.0, shape="decode"),
        condition("decode_causal", "efficient", 31.0, shape="decode", fix="decode_baseline", is_causal=True,
                  can_use={"flash": no(CAUSAL), "efficient": yes(), "cudnn": yes()},
                  check={"max_abs_diff_vs_first_value": 0.0, "max_abs_diff_vs_not_causal": 0.42}),
        condition("decode_causal_lower_right", "flash", 20.0, shape="decode", mask="causal_lower_right",
                  check={"max_abs_diff_vs_first_value": 0.39, "max_abs_diff_vs_not_causal": 0.0}),
    ]


def skipped_condition(cid, **setting):
    """A condition the phase had no time left for: its setting and why, nothing else."""
    return {"id": cid, "shape": "seed", "fix": None, "setting": {**SETTING, **setting},
            "error": "not measured: the phase's 90 s were spent"}


def eligibility(conditions=None):
    """The section, with `conditions` (else the made-up ones above)."""
    found = {
        "versions": {"torch": "2.11.0+cu130", "cuda": "13.0", "cudnn": "91500", "compute_capability": "9.0",
                     "gpu_name": "NVIDIA H200", "flash_built": True, "cudnn_sdpa_enabled": True},
        "device": "cuda", "steps": 5, "budget_s": 90, "seconds": 41.0,
        "shapes": {"seed": {"batch": 8, "heads": 16, "seq_q": 1024, "seq_k": 1024, "head_dim": 64},
                   "decode": {"batch": 8, "heads": 16, "seq_q": 1, "seq_k": 1024, "head_dim": 64}},
        "conditions": _conditions() if conditions is None else conditions,
    }
    for c in found["conditions"]:
        if "can_use" in c and c["can_use"] is None:
            c["can_use_error"] = "nn.MultiheadAttention builds its own inputs: no SDPAParams to ask"
    return copy.deepcopy(found)
