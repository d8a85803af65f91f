"""The names of what is measured: variants, backends, dtypes, languages."""

VARIANTS = ("naive", "naive_inplace", "math", "flash", "efficient", "cudnn", "auto")
# measured with --extra or --all: math with its reduced-precision switches, and compiled code
MATH_SWITCHES = ("math_bf16_reduction", "math_tf32")
EXTRA_VARIANTS = (*MATH_SWITCHES, "flex", "compiled_naive")
FUSED = ("flash", "efficient", "cudnn")
SDPA_VARIANTS = ("math", *MATH_SWITCHES, *FUSED, "auto")
BACKWARD_VARIANTS = ("naive", "math", "flash", "efficient", "cudnn", "auto")
DTYPES = ("bfloat16", "float16", "float32")
LANGS = ("nb", "en")
BACKEND_NAMES = {"math": "math", "flash": "flash", "efficient": "efficient", "cudnn": "cuDNN"}

SWEEP_SEQ_LENS = (256, 512, 1024, 2048, 4096, 8192, 16384)
SWEEP_HEAD_DIMS = (64, 128)
SMALL_SHAPE = {"batch": 1, "heads": 16, "seq_len": 256, "head_dim": 64}

# the files of snippets/ whose code a measurement runs (their hashes go into provenance)
SNIPPET_FILES = ("naive_attention.py", "sdpa_backends.py", "profile_attention.py", "occupancy.py",
                 "cuda_graphs.py", "training_step.py", "flex_attention.py")
