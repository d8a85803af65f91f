"""The names of what is measured: variants, backends, dtypes, shapes."""

VARIANTS = ("naive", "naive_inplace", "math", "flash", "efficient", "cudnn", "auto")
# measured with --extra or --all: math with its reduced-precision switches, and compiled code
MATH_SWITCHES = ("math_bf16_reduction", "math_tf32")
EXTRA_VARIANTS = (*MATH_SWITCHES, "flex", "compiled_naive")
FUSED = ("flash", "efficient", "cudnn")
SDPA_VARIANTS = ("math", *MATH_SWITCHES, *FUSED, "auto")
BACKWARD_VARIANTS = ("naive", "math", "flash", "efficient", "cudnn", "auto")
DTYPES = ("bfloat16", "float16", "float32")

SWEEP_SEQ_LENS = (256, 512, 1024, 2048, 4096, 8192, 16384)
SWEEP_HEAD_DIMS = (64, 128)
SMALL_SHAPE = {"batch": 1, "heads": 16, "seq_len": 256, "head_dim": 64}

# the files of snippets/ whose code a measurement runs (their hashes go into provenance)
SNIPPET_FILES = ("naive_attention.py", "sdpa_backends.py", "profile_attention.py", "occupancy.py",
                 "cuda_graphs.py", "training_step.py", "flex_attention.py", "shapes.py")

# --shapes: today's attention shapes (decode, prefill, grouped-query, sliding window).
# Every SDPA point is measured unpinned ("auto") and pinned to each backend; "repeat_kv"
# is auto after copying K/V per query head by hand; flex_* are compiled FlexAttention.
SHAPE_FAMILIES = ("decode", "prefill", "gqa_decode", "gqa_prefill", "sliding")
SHAPE_BACKENDS = ("auto", "math", "flash", "efficient", "cudnn")
SHAPE_VARIANTS = (*SHAPE_BACKENDS, "repeat_kv", "flex_sliding", "flex_causal")
SHAPES_MEMORY_SHARE = 0.25  # skip a point whose K and V would take more of the device's memory
SHAPES_GPU = {  # head_dim 128, in the run's dtype (bf16 by default)
    "heads": 32, "head_dim": 128,
    # (query length, batch): one token at batch 1 and at a serving batch; four (speculative) at batch 1
    "decode_runs": ((1, 1), (1, 32), (4, 1)), "decode_kv_lens": (1024, 8192, 32768, 131072),
    "prefill_lens": (8192, 32768),
    "gqa_kv_heads": (8, 1), "gqa_decode": {"batch": 32, "kv_len": 8192}, "gqa_prefill_len": 8192,
    "sliding": {"seq_len": 32768, "window": 4096},
    "copy_mib": 4096,
}
SHAPES_CPU = {  # the same families, small enough for a CPU in seconds
    "heads": 4, "head_dim": 32,
    "decode_runs": ((1, 1), (1, 2), (4, 1)), "decode_kv_lens": (64, 256),
    "prefill_lens": (128,),
    "gqa_kv_heads": (2, 1), "gqa_decode": {"batch": 2, "kv_len": 128}, "gqa_prefill_len": 128,
    "sliding": {"seq_len": 128, "window": 32},
    "copy_mib": 64,
}


def causal_flops(cfg):
    """The FLOPs of one causal attention call of shape cfg (batch, heads, seq_len, head_dim)."""
    b, h, s, d = cfg["batch"], cfg["heads"], cfg["seq_len"], cfg["head_dim"]
    return 4 * b * h * d * s * (s + 1) / 2  # two matmuls over the causal triangle
