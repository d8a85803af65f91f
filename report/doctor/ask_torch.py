"""--ask-torch: the trace's recorded SDPA inputs replayed through PyTorch's own checks on the
reader's machine, torch.backends.cuda.can_use_{cudnn,flash,efficient}_attention(SDPAParams(
q, k, v, attn_mask, dropout_p, is_causal, enable_gqa), debug=True), with what each said.

    refusal()          one line where torch cannot be imported (the command exits 2 before
                       reading the trace), else None
    present()          whether torch can be found here (without importing it)
    same_gpu(result)   the compute capability where this machine's torch has a CUDA device of
                       the trace's and the trace recorded inputs to replay (then asking is the
                       default, default_line(cc) its first line), else None
    ask(result)        the lines to print after the reading: PyTorch's answers per group of
                       calls, or one line where this machine has no CUDA device (the reasons
                       above are then the recorded table's or the doctor's rule)

The only module of report/doctor/ that imports torch, and only when asked (tests/test_layers.py
names it): the doctor itself is standard library only. The tensors are empty ones of the
recorded shapes, strides and dtypes (their values do not enter the checks); requires_grad is
not recorded in a trace, so they are replayed without it. A trace is untrusted input: every
tensor a group's replay would make (q, k, v and the mask) is listed first, and its storage
counted off its shape and strides (its highest offset plus one element), before torch makes
any; a group whose tensors take more than MAX_BYTES together is not asked. Shapes and strides
out of c10's range are malformed when the inputs are read (model/sdpa_inputs.py), never
replayed. At most MAX_CALL_GROUPS groups are replayed, most calls first. What the checks say comes through
Python warnings and, as c10's "[W ...] Warning: ..." lines, through descriptor 2
(torch/csrc/Module.cpp's can_use_* have no Python warning handler): both are caught.
"""
from __future__ import annotations

import os
import re
import sys
import tempfile
import warnings
from contextlib import contextmanager

from .output.said import inputs
from .output.text_detail import MAX_CALL_GROUPS
from .shown.safe import shown

HELP = ("with --explain: replay the trace's recorded SDPA inputs through this machine's PyTorch "
        "(torch.backends.cuda.can_use_*_attention, debug=True) and print what it says; needs torch and a CUDA device, "
        "and is the default where this machine's CUDA GPU has the trace's compute capability")
BACKENDS = (("cudnn", "can_use_cudnn_attention"), ("flash", "can_use_flash_attention"),
            ("efficient", "can_use_efficient_attention"))
# the dtypes this replay makes, with their element size (torch's element_size()), known before torch is asked
DTYPES = {"bfloat16": 2, "float16": 2, "float32": 4, "float64": 8, "bool": 1}
MAX_BYTES = 2 << 30  # the most one group's empty tensors may take on the GPU, all of them together
_C10 = re.compile(r"^\[W[^\]]*\]\s*(?:Warning:\s*)?(.*?)(?:\s*\(function [^)]*\))?\s*$")
_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?\s*$")


def _torch():
    import torch  # only here: --ask-torch on the reader's machine

    return torch


def refusal():
    try:
        _torch()
    except ImportError as err:
        return f"--ask-torch needs PyTorch, which cannot be imported here ({err}); leave --ask-torch out"
    return None


@contextmanager
def _heard():
    """A list that, after the block, holds the warnings raised in it: Python's and c10's lines
    on descriptor 2."""
    said, raw = [], b""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as tmp, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        os.dup2(tmp.fileno(), 2)
        try:
            yield said
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            raw = tmp.read()
            lines = [m.group(1) for m in map(_C10.match, raw.decode("utf-8", "replace").splitlines()) if m]
            words = [_TRIGGERED.sub("", str(w.message)).strip() for w in caught] + lines
            said.extend(dict.fromkeys(w for w in words if w))


def _bytes(shape, strides, size):
    """The bytes a strided tensor's storage spans: its highest offset plus one element (none
    where a dim is 0). Strides are never negative here (model/sdpa_inputs.py)."""
    if 0 in shape:
        return 0
    return (1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))) * size


def _tensors(x):
    """[(shape, strides, dtype)] of every tensor the replay of x makes (q, k, v, the mask), or
    a string saying why it makes none."""
    if x.malformed:
        return "its recorded inputs are malformed"
    for what, dtype in (("the query's dtype", x.dtype), ("the mask's dtype", x.mask_dtype)):
        if dtype is not None and dtype not in DTYPES:
            return f"{what} {shown(dtype, 40)} is not one this replay makes"
    strides = x.strides or tuple(_contiguous(s) for s in (x.query, x.key, x.value))
    made = [(s, st, x.dtype) for s, st in zip((x.query, x.key, x.value), strides, strict=True)]
    if x.mask is not None:
        made.append((x.mask, x.mask_strides or _contiguous(x.mask), x.mask_dtype))
    need = sum(_bytes(s, st, DTYPES[dtype]) for s, st, dtype in made)
    if need > MAX_BYTES:
        return f"its tensors would take {need / 2**30:.3g} GiB, over the {MAX_BYTES / 2**30:g} GiB this replay makes"
    return made


def _answers(torch, x):
    """{backend: (ok, [words])} for one group's inputs, or a string saying why it was not asked."""
    made = _tensors(x)  # the cap holds before torch makes anything
    if isinstance(made, str):
        return made
    q, k, v, *mask = (torch.empty_strided(s, st, dtype=getattr(torch, dtype), device="cuda")
                      for s, st, dtype in made)
    args = (q, k, v, mask[0] if mask else None, float(x.dropout or 0.0), bool(x.is_causal))
    try:
        params = torch.backends.cuda.SDPAParams(*args, bool(x.enable_gqa))
    except TypeError:  # before torch 2.5 it took no enable_gqa
        if x.enable_gqa:
            raise
        params = torch.backends.cuda.SDPAParams(*args)
    out = {}
    for backend, name in BACKENDS:
        with _heard() as said:
            ok = bool(getattr(torch.backends.cuda, name)(params, True))
        out[backend] = (ok, said)
    return out


def _contiguous(shape):
    """A contiguous tensor's strides, each at most 2**64: a larger one means more elements than
    the cap lets through anyway, and 100,000 dims multiplied out would take minutes."""
    out, n = [], 1
    for d in reversed(shape):
        out.append(n)
        n = min(n * d, 2**64)
    return tuple(reversed(out))


def ask(result):
    """The lines --ask-torch prints after the reading."""
    torch = _torch()
    groups = [g for g in result["attention"]["calls"] if g["shapes"] and g["parsed"] is not None]
    if not groups:
        return ["--ask-torch: the trace records no SDPA inputs to replay (record it with record_shapes=True)"]
    if not torch.cuda.is_available():
        return [f"--ask-torch: PyTorch {torch.__version__} here has no CUDA device, and its checks read the GPU's: "
                "the reasons above are the recorded table's (or the doctor's rule where it says so)"]
    lines = [f"Asked PyTorch {torch.__version__} on {torch.cuda.get_device_name()} (this machine), replaying "
             "each group's recorded shapes, strides and dtypes without requires_grad (a trace does not record it):"]
    for g in groups[:MAX_CALL_GROUPS]:
        try:
            answers = _answers(torch, g["parsed"])
        except (RuntimeError, TypeError, ValueError) as err:
            answers = f"PyTorch refused the replay: {str(err).splitlines()[0] if str(err) else type(err).__name__}"
        lines.append(f"  {g['calls']:,} {'call' if g['calls'] == 1 else 'calls'} that ran {g['backend']} "
                     f"({inputs(g['parsed'])}):")
        if isinstance(answers, str):
            lines.append(f"    not asked: {answers}")
            continue
        for backend, (ok, said) in answers.items():
            lines.append(f"    {backend}: " + ("yes" if ok else "no" + (f": {' '.join(said)}" if said else "")))
    if len(groups) > MAX_CALL_GROUPS:
        lines.append(f"  … and {len(groups) - MAX_CALL_GROUPS:,} more groups of calls, not asked")
    return lines


DEFAULT_LINE = ("--ask-torch is on by default here: PyTorch {version} on this machine has a CUDA GPU of the "
                "trace's compute capability ({cc}), and its answers for the recorded inputs follow the reading")


def default_line(cc):
    """The first line where asking is the default (same_gpu gave cc)."""
    return DEFAULT_LINE.format(version=_torch().__version__, cc=f"{cc[0]}.{cc[1]}")


def present():
    """Whether torch can be found here; nothing is imported (the doctor runs without it)."""
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def same_gpu(result):
    """The trace's compute capability where this machine's torch has a CUDA device of it (the
    checks read the GPU: only its generation's answers are the trace's) and the trace recorded
    SDPA inputs to replay; None otherwise. torch is imported only for such a trace."""
    caps = {lim.compute_capability for lim in result["limits"].values()}
    if result["platform"] != "cuda" or len(caps) != 1 or not any(
            g["shapes"] and g["parsed"] is not None for g in result["attention"]["calls"]):
        return None
    try:
        torch = _torch()
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    cc = tuple(torch.cuda.get_device_capability())
    return cc if cc == tuple(next(iter(caps))) else None
