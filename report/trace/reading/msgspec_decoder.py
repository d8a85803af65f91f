"""The optional fast decoder of a batch of trace events, msgspec (pinned in requirements.txt):
stream uses it where it imports, and its pure-Python reader where it does not (the
browser's Pyodide, a machine without it).

    events(text)   the events of `text` (a batch: events separated by commas, no brackets)
                   as Structs of the fields the explanation reads; None where msgspec does
                   not read the text exactly as json would

msgspec decodes each event into a Struct and skips the other fields (shapes, strides,
External id) without building them: that is the time it saves. A key the event lacks is
None, or UNSET among the args (Kineto's args are kept only where present); their values
are any JSON (a CPU op's "grid" is Triton's text, ROCm's runtime calls name their
"stream" in hex). Where msgspec rejects the text (something other than an object where an
event or its args belongs, NaN, a number beyond a float, a lone surrogate), the caller
reads the batch in pure Python, which reads such JSON as json does.
"""
from __future__ import annotations

from typing import Any

from .events import GEMM_OPS, INPUT_ARGS, dims

try:
    import msgspec
except ImportError:  # Pyodide, or not installed: the pure-Python reader reads every batch
    msgspec = None

AVAILABLE = msgspec is not None
UNSET = msgspec.UNSET if AVAILABLE else object()

if AVAILABLE:
    class Args(msgspec.Struct):
        device: Any = UNSET
        stream: Any = UNSET
        grid: Any = UNSET
        block: Any = UNSET
        registers: Any = msgspec.field(default=UNSET, name="registers per thread")
        smem: Any = msgspec.field(default=UNSET, name="shared memory")
        occupancy: Any = msgspec.field(default=UNSET, name="est. achieved occupancy %")
        correlation: Any = None
        # an op's recorded inputs, left undecoded (Raw) but for INPUT_OPS' (inputs())
        dims: msgspec.Raw = msgspec.field(default=UNSET, name="Input Dims")
        types: msgspec.Raw = msgspec.field(default=UNSET, name="Input type")
        strides: msgspec.Raw = msgspec.field(default=UNSET, name="Input Strides")
        concrete: msgspec.Raw = msgspec.field(default=UNSET, name="Concrete Inputs")

    class Event(msgspec.Struct):
        ph: Any = None
        cat: Any = None
        name: Any = None
        pid: Any = None
        tid: Any = None
        ts: Any = None
        dur: Any = None
        args: Args | None = None

    _DECODER = msgspec.json.Decoder(list[Event])
    _FAILED = (msgspec.DecodeError, RecursionError, ValueError, UnicodeEncodeError)


def inputs(a, name=None):
    """The recorded inputs of an op of INPUT_OPS from its Args, as json reads them, or None
    (of a matmul, its Input Dims alone: events.inputs)."""
    if name in GEMM_OPS:
        return dims(msgspec.json.decode(a.dims)) if isinstance(a.dims, msgspec.Raw) else None
    kept = {}
    for key, raw in zip(INPUT_ARGS, (a.dims, a.types, a.strides, a.concrete), strict=True):
        if raw is not UNSET:
            kept[key] = msgspec.json.decode(raw) if isinstance(raw, msgspec.Raw) else raw
    return kept or None


def events(text):
    """The batch's events as Structs, or None (msgspec missing, or text it rejects)."""
    if not AVAILABLE:
        return None
    try:
        return _DECODER.decode(("[" + text + "]").encode("utf-8"))
    except _FAILED:
        return None
