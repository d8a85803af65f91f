"""What PyTorch says while it decides: Python warnings and the C++ warnings of c10.

SDPA's own call runs under torch's Python warning handler (HANDLE_TH_ERRORS), so a
TORCH_WARN of sdp_utils.cpp arrives as a Python UserWarning. torch.backends.cuda.can_use_*
(params, debug=True) are plain pybind11 lambdas (torch/csrc/Module.cpp:
"_can_use_flash_attention" and its siblings around sdp::can_use_flash_attention, not
wrapped in torch::wrap_pybind_function as "init_num_threads" is), so their TORCH_WARNs go
to c10's base handler (c10/util/Exception.cpp: WarningHandler::process), which logs
"[W... sdp_utils.cpp:N] Warning: MESSAGE (function NAME)" to file descriptor 2. heard()
catches both: Python warnings, and c10's lines written to descriptor 2 meanwhile.
(Read in pytorch/pytorch at commits 00029b2 and 035290b, not at the measured 70d99e9; on the
CPU build those lambdas return false and say nothing.)
"""
from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import tempfile
import warnings
from contextlib import contextmanager

from .guard import first_line

MAX_MESSAGE = 2000  # characters of one message kept
MAX_MESSAGES = 20  # messages kept per call
_TRIGGERED = re.compile(r"\s*\(Triggered internally at [^)]*\)\.?\s*$")
_C10_LINE = re.compile(r"^\[W[^\]]*\]\s*(?:Warning:\s*)?(.*?)(?:\s*\(function [^)]*\))?\s*$")


def clean(message):
    """A warning's words, without the build's source location that PyTorch appends
    ("(Triggered internally at /pytorch/aten/...:N.)"), clipped to MAX_MESSAGE."""
    return _TRIGGERED.sub("", str(message)).strip()[:MAX_MESSAGE]


def c10_messages(text):
    """The messages of c10's warning lines in `text`, one per "[W...]" line; other lines
    (another library's output) are ignored."""
    found = (_C10_LINE.match(line) for line in text.splitlines())
    return [clean(m.group(1)) for m in found if m and m.group(1).strip()]


@contextmanager
def _descriptor_2(into):
    """Descriptor 2 redirected into the list `into` (its text) for the block."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            into.append(tmp.read().decode("utf-8", "replace"))


class _Kept(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        try:
            self.messages.append(record.getMessage())
        except Exception:  # a record whose arguments do not format: its template
            self.messages.append(str(record.msg))


@contextmanager
def heard(descriptor=True):
    """Yields a list that, after the block, holds every warning raised in it: Python
    warnings (all of them, repeated ones too), warnings logged by torch's Python loggers
    (nested tensors' SDPA says why a backend was not used through logging:
    torch/nested/_internal/sdpa.py, _select_sdp_backend) and, with descriptor, c10's lines
    on descriptor 2; in that order, each once. (SDPA's own call warns through Python; a
    compiled call's first run starts worker processes, which must not inherit a
    redirected descriptor 2: descriptor=False there.)"""
    said, raw, kept = [], [], _Kept()
    logger = logging.getLogger("torch")
    redirect = _descriptor_2(raw) if descriptor else contextlib.nullcontext()
    logger.addHandler(kept)
    try:
        with warnings.catch_warnings(record=True) as caught, redirect:
            warnings.simplefilter("always")
            yield said
    finally:
        logger.removeHandler(kept)
        messages = ([clean(w.message) for w in caught] + [clean(m) for m in kept.messages]
                    + c10_messages("".join(raw)))
        said.extend(list(dict.fromkeys(m for m in messages if m))[:MAX_MESSAGES])


def sdpa_params(torch, q, k, v, mask, dropout, is_causal, enable_gqa):
    """torch.backends.cuda.SDPAParams (torch._C._SDPAParams); its constructor took six
    arguments before enable_gqa (torch 2.5) and takes seven since."""
    make = torch.backends.cuda.SDPAParams
    try:
        return make(q, k, v, mask, dropout, is_causal, enable_gqa)
    except TypeError:
        if enable_gqa:
            raise
        return make(q, k, v, mask, dropout, is_causal)


CAN_USE = {"flash": "can_use_flash_attention", "efficient": "can_use_efficient_attention",
           "cudnn": "can_use_cudnn_attention"}


def can_use(torch, params):
    """{backend: {"ok", "reasons"}} from torch.backends.cuda.can_use_*(params, debug=True),
    with what each said; a backend this torch lacks a function for answers False with why,
    one whose check raises answers False with the error's first line as "error"."""
    out = {}
    for backend, fn_name in CAN_USE.items():
        fn = getattr(torch.backends.cuda, fn_name, None)
        if fn is None:
            out[backend] = {"ok": False, "reasons": [f"torch.backends.cuda.{fn_name} does not exist"]}
            continue
        error = None
        with heard() as said:
            try:
                ok = bool(fn(params, debug=True))
            except Exception as err:  # a check that raises on these inputs: no answer, its error
                ok, error = False, first_line(err)[:MAX_MESSAGE]
        out[backend] = {"ok": ok, "reasons": said} | ({"error": error} if error else {})
    return out
