"""The shape of results.json's "eligibility" section, as types (measure/ask.py writes it,
render/findings/ask_*.py and doctor/rules/asked.json read it); schema.py's rules apply."""
from typing import Required, TypedDict

from .schema_types import Number, Spread, Time


class CanUseAnswer(TypedDict, total=False):
    """measure/ask_capture.py: can_use, one torch.backends.cuda.can_use_*(params, debug=True)."""
    ok: Required[bool]
    reasons: Required[list[str]]  # its warnings, word for word (PyTorch's source location cut)
    error: str  # the check raised instead of answering: its first line


class AskSetting(TypedDict, total=False):
    """measure/ask_conditions.py: setting, what one condition changes."""
    dtype: str
    head_dim: int
    kv_heads: int
    mask: str
    is_causal: bool
    layout: str
    dropout: Number
    enable_gqa: bool
    api: str
    pinned: str | None


class StepTimes(TypedDict, total=False):
    """measure/ask.py: the kernel time per profiled step, and their median."""
    median: Required[Time]
    steps: Required[list[Spread]]


class AskCondition(TypedDict, total=False):
    """measure/ask.py: measure_condition, one condition of the eligibility grid."""
    id: Required[str]
    shape: Required[str]  # "seed" or "decode"
    fix: str | None  # the id of the condition that applies its remedy
    setting: AskSetting
    can_use: dict[str, CanUseAnswer] | None
    can_use_error: str  # why there are no answers (no SDPAParams from the caller's tensors)
    ran: str | None  # trace/names.py: backend_of_kernels, "other" for Inductor's kernels alone
    kernels: list[str]
    call_warnings: list[str]
    error: str | None
    kernel_time_us: StepTimes | None
    trace: str | None  # "traces/ask-<id>.json.gz"
    check: dict[str, Number] | None  # the decode shape's causal alignment
    check_error: str
    profile_error: str


class AskVersions(TypedDict, total=False):
    torch: str
    cuda: str | None
    cudnn: str | None
    compute_capability: str | None
    gpu_name: str | None
    flash_built: bool | None
    cudnn_sdpa_enabled: bool | None


class Eligibility(TypedDict, total=False):
    """measure/ask.py: measure_eligibility, issue 37's "Ask PyTorch why"; a phase that
    failed as a whole holds only "error"."""
    device: str
    versions: AskVersions
    shapes: dict[str, dict[str, int]]
    steps: int
    budget_s: Time
    seconds: Number
    conditions: list[AskCondition]
    error: str
