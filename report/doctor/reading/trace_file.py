"""Opening a trace file for --explain: the file checked, read (gzip by its magic bytes,
capped at MAX_TRACE_BYTES of JSON) either whole into a dict (load_trace) or as a stream into
a compact Trace by the one reader of the format (read_trace: report/trace/reading/stream.py);
every refusal a TraceError of one line. Standard library only: it runs in the browser too."""
from __future__ import annotations

import contextlib
import gc
import gzip
import json
import stat
import zlib
from pathlib import Path

from ...limits import parse_json
from ...trace.reading.stream import LONG_NUMBER, MAX_EVENTS, ReadError, long_number
from ...trace.reading.stream import read_trace as _read_stream
from ..shown.safe import error_line

MAX_TRACE_BYTES = 2 * 2**30  # of JSON: a trace of a few profiled steps is tens of MB
CHUNK = 2**20


OUT_OF_MEMORY = "more than this machine's free memory holds of a trace; record fewer steps"


class TraceError(ValueError):
    """The file is not a torch.profiler trace with GPU activity; the message is one line."""


def _a_file(path):
    """path as a Path; TraceError with one line where it is missing or not a file."""
    path = Path(path)
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise TraceError(error_line(path, "no such file")) from None
    except OSError as err:  # a name too long, a folder it may not enter
        raise TraceError(error_line(path, f"cannot be read ({err.strerror or err})")) from None
    if not stat.S_ISREG(mode):
        raise TraceError(error_line(path, "not a file"))
    return path


def load_trace(path):
    """The trace in a .json or .json.gz file that torch.profiler wrote (gzip is read by its
    magic bytes, not the file's name); TraceError with one line if it is none."""
    path = _a_file(path)
    try:
        with path.open("rb") as f:
            gzipped = f.read(2) == b"\x1f\x8b"
        raw = _read_capped(path, gzipped)
    except OSError as err:
        raise TraceError(error_line(path, f"cannot be read ({err.strerror or err})")) from None
    try:
        trace = parse_json(raw.decode("utf-8-sig"), json.loads)  # a byte order mark is no fault
    except UnicodeDecodeError:
        raise TraceError(error_line(path, "not JSON (not UTF-8 text)")) from None
    except json.JSONDecodeError as err:
        raise TraceError(error_line(path, f"not JSON ({err.msg.removesuffix(' at')} at line {err.lineno}, "
                                          f"column {err.colno})")) from None
    except ValueError as err:  # too deep, or a number of thousands of digits
        if long_number(err):
            raise TraceError(error_line(path, LONG_NUMBER)) from None
        raise TraceError(error_line(path, f"JSON {err}, so not a trace written by torch.profiler")) from None
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise TraceError(error_line(path, "JSON without a traceEvents list, so not a trace "
                                          "written by torch.profiler"))
    return trace


def _read_capped(path, gzipped):
    """The file's bytes, gunzipped in chunks; TraceError beyond MAX_TRACE_BYTES."""
    opener = gzip.open if gzipped else open
    chunks, size = [], 0
    try:
        with opener(path, "rb") as f:
            while chunk := f.read(CHUNK):
                size += len(chunk)
                if size > MAX_TRACE_BYTES:
                    raise TraceError(error_line(path, f"more than {MAX_TRACE_BYTES // 2**20:,} MB of JSON"
                                                      f"{' once unpacked' if gzipped else ''}: too large for a "
                                                      "trace of a few steps; record fewer steps"))
                chunks.append(chunk)
    except (EOFError, zlib.error, gzip.BadGzipFile) as err:
        raise TraceError(error_line(path, f"not a readable gzip file ({err})")) from None
    return b"".join(chunks)


@contextlib.contextmanager
def collector_paused():
    """Python's cyclic garbage collector off for a while: reading and explaining a large
    trace makes about a million small objects that hold no cycles, and the collector ran
    through all of them again and again (a quarter of the time on the 200 MB benchmark)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def read_trace(path):
    """The file read as a stream into a compact Trace; TraceError with one line if it is no
    trace (the same messages as load_trace)."""
    path = _a_file(path)
    try:
        with collector_paused():
            return _read_stream(path, MAX_TRACE_BYTES, MAX_EVENTS)
    except ReadError as err:
        raise TraceError(error_line(path, str(err))) from None
    except MemoryError:  # below every cap, but more than this machine (or the browser) holds
        raise TraceError(error_line(path, OUT_OF_MEMORY)) from None
    except OSError as err:
        raise TraceError(error_line(path, f"cannot be read ({err.strerror or err})")) from None
