"""Which backend SDPA would take on a GPU this run did not run on: derived from a condition's
recorded per-backend answers (can_use_*_attention) and PyTorch's priority rule, not measured.

The rule, as read in pytorch/pytorch at commit 001f694 (SOURCE_COMMIT; the copy the search
tools hold, not the v2.11.0 tag: every derivation is shown only where the rule, applied
with this run's own order, gives the backend this run ran, which checks the reading
against the measured torch):

- `aten/src/ATen/Context.h`, `sdp_priority_order`: flash, efficient, math, cuDNN (DEFAULT).
- `aten/src/ATen/native/transformers/cuda/sdp_utils.cpp`, `priority_order`: cuDNN, flash,
  efficient, math (CUDNN_FIRST) where `check_prefer_cudnn_attention()` holds: the cuDNN
  loaded at run time newer than 9.15.0, compute capability 9.x or 10.x (with a CUDA below
  13, only x.0 and x.3; before pull request #180997, x.0 and x.3 whatever the CUDA: the
  same on sm90), and `TORCH_CUDNN_SDPA_DEPRIORITIZED` not set; the variable is a
  function-static and the order is set once per process (`priority_order_init_`).
- `select_sdp_backend`: the first backend in the order whose `can_use_*` passes; math
  passes wherever it is enabled, so a backend after math is never taken unpinned.
- Below sm80 flash (`check_flash_attention_hardware_support`) and cuDNN
  (`check_cudnn_hardware_support`) refuse, and `can_use_mem_efficient_attention` takes
  float16 and float32 only (`less_than_sm80_mem_efficient_dtypes`): no bfloat16.

Flash's and efficient's forward checks are the same on sm80 to sm89 as on sm90 (the limit
of `check_requires_grad_and_head_dim_gt192_constraints_on_sm86_89_or_120` holds only for
inputs that require grad, and the recorded ones do not), so this run's answers stand for
those GPUs. Below sm80 efficient's head-dimension alignment is looser in float32
(`minimum_gemm_alignment`: 1 rather than 4): a float32 condition efficient refused at a
head dimension that is not a multiple of 4 is left undecided there.
"""
from __future__ import annotations

from .ask_common import ASKED, section

SOURCE_COMMIT = "001f694"
DEFAULT = ("flash", "efficient", "math", "cudnn")
CUDNN_FIRST = ("cudnn", "flash", "efficient", "math")
BEFORE_SM80_DTYPES = ("float16", "float32")  # efficient's dtypes below sm80
# the GPU generations a derivation is made for: cuDNN first (sm90/sm100 with a new cuDNN),
# flash first (the default order: sm80 to sm89, sm120, or sm90/sm100 with the variable set
# or an older cuDNN), and before sm80 (efficient and math only)
GENERATIONS = ("cudnn_first", "flash_first", "before_sm80")


def _version(text) -> tuple[int, ...] | None:
    """A cuDNN version as results.json writes it ("9.19.0", or the integer 91900 / "91500")
    as (major, minor, patch); None where unreadable."""
    s = str(text or "").strip()
    if s.isdigit() and len(s) >= 4:
        n = int(s)
        return n // 10000, n // 100 % 100, n % 100
    try:
        parts = tuple(int(p) for p in s.split("."))
    except ValueError:
        return None
    return (parts + (0, 0))[:3] if parts else None


def _capability(text) -> tuple[int, int] | None:
    try:
        major, minor = (int(p) for p in str(text).split("."))
    except ValueError:
        return None
    return major, minor


def prefers_cudnn(versions) -> bool | None:
    """check_prefer_cudnn_attention() for the recorded versions, the variable unset; None
    where a version is missing."""
    cudnn, cc = _version(versions.get("cudnn")), _capability(versions.get("compute_capability"))
    cuda = _version(versions.get("cuda"))
    if cudnn is None or cc is None:
        return None
    arch = cc[0] in (9, 10) and (cuda is None or cuda[0] >= 13 or cc[1] in (0, 3))
    return cudnn > (9, 15, 0) and arch


def run_order(results) -> tuple[str, ...] | None:
    """The order this run's SDPA used, from its versions; None where they do not say."""
    found = prefers_cudnn((section(results) or {}).get("versions") or {})
    return None if found is None else CUDNN_FIRST if found else DEFAULT


def answers(c) -> dict[str, bool] | None:
    """{backend: accepted} for an unpinned plain SDPA call whose three backends all
    answered; None for any other condition (pinned, nn.MultiheadAttention, compiled, a
    check that raised, a skipped one)."""
    s = c.get("setting") or {}
    asked = c.get("can_use") or {}
    if s.get("api") != "sdpa" or s.get("pinned") is not None:
        return None
    if any(b not in asked or asked[b].get("ok") is None for b in ASKED):
        return None
    return {b: bool(asked[b]["ok"]) for b in ASKED}


def pick(order, accepted) -> str:
    """select_sdp_backend: the first backend of `order` that accepts; math always does."""
    return next(b for b in order if b == "math" or accepted.get(b))


def derive(c, generation) -> str | None:
    """The backend an unpinned SDPA call with c's inputs would take on `generation`, from
    c's recorded answers; None where they do not decide it."""
    accepted = answers(c)
    if accepted is None:
        return None
    if generation == "cudnn_first":
        return pick(CUDNN_FIRST, accepted)
    if generation == "flash_first":
        return pick(DEFAULT, accepted)
    s = c["setting"]
    if not accepted["efficient"] and s.get("dtype") == "float32" and (s.get("head_dim") or 0) % 4:
        return None  # below sm80 efficient's float32 alignment is looser: not decided by this run's answer
    efficient = accepted["efficient"] and s.get("dtype") in BEFORE_SM80_DTYPES
    return pick(("efficient", "math"), {"efficient": efficient})


def derivable(results, c) -> bool:
    """Whether c is an unpinned SDPA call whose recorded answers, put through this run's own
    order, give the backend it ran: where they do not (a nested jagged call, a
    `causal_lower_right` bias, which choose their kernels before or besides that order),
    nothing is derived for it."""
    order = run_order(results)
    accepted = answers(c)
    return order is not None and accepted is not None and c.get("ran") == pick(order, accepted)


def derived(results, c) -> dict[str, str | None] | None:
    """{generation: backend} for a derivable condition; None for any other."""
    if not derivable(results, c):
        return None
    return {g: derive(c, g) for g in GENERATIONS}


def shown_generations(results) -> tuple[str, ...]:
    """The generations a derivation is shown for: those whose order differs from this run's,
    from a run on sm80 or newer (an older GPU's flash and cuDNN refuse whatever the inputs,
    so its answers say nothing of the others). cuDNN first is not derived from a run where
    cuDNN did not come first: its checks differ on sm90 and sm100 (head dimensions up to
    256, check_cudnn_tensor_shapes)."""
    cc = _capability(((section(results) or {}).get("versions") or {}).get("compute_capability"))
    order = run_order(results)
    if cc is None or cc[0] < 8 or order is None:
        return ()
    return ("flash_first", "before_sm80") if order == CUDNN_FIRST else ("before_sm80",)
