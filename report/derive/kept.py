"""A row's kept trace: the path a results.json names, checked before it is read (a file of
the run's own traces/ folder, named as the measurement names them), and its analysis,
once per file and process (a render and the tests load the same runs many times)."""
from __future__ import annotations

import copy
import re
import stat
from functools import lru_cache
from pathlib import Path

from ..trace.analyze import analyze_trace, read

# traces/<name>.json.gz (the seed's and the ask's), traces/profiles/<sha>.json.gz (the rest)
KEPT = re.compile(r"traces/(?:profiles/[0-9a-f]{20}|[A-Za-z0-9_.-]{1,120})\.json\.gz")
MAX_KEPT_BYTES = 8 * 2**20  # gzip'd; the largest kept trace (math_tf32 at the seed shape) is 0.14 MB
MAX_KEPT_CHARS = 64 * 2**20  # unpacked; the largest is 2.6 MB: a small file that unpacks to more is no profile


class KeptError(ValueError):
    """A row names a trace that is not one of the run's own, or that cannot be read."""


def path_of(folder, name):
    """The file a row's "trace" names, inside folder; KeptError if it is not one of ours."""
    if not isinstance(name, str) or not KEPT.fullmatch(name) or ".." in name:
        raise KeptError(f"names a trace {str(name)[:80]!r} that is not one of a run's kept traces")
    path = Path(folder) / name
    try:
        found = path.lstat()  # a link or a FIFO is never followed or opened: it could point anywhere, or hang
    except OSError:
        raise KeptError(f"names {name}, which is not there") from None
    if not stat.S_ISREG(found.st_mode):
        raise KeptError(f"names {name}, which is not a plain file (a link, a FIFO or a folder)")
    size = found.st_size
    if size > MAX_KEPT_BYTES:
        raise KeptError(f"names {name}, which is {size / 2**20:.0f} MB: not a kept profile")
    return path


@lru_cache(maxsize=4096)
def _analysis(path, stamp, range_name, cuda_time):  # stamp: the file's size and mtime
    try:
        return analyze_trace(read(path, max_chars=MAX_KEPT_CHARS), range_name, cuda_time=cuda_time)
    except (OSError, ValueError, EOFError) as err:
        raise KeptError(f"names {Path(path).name}, which cannot be read as its profile ({err})") from None


def analysis(folder, row, cuda_time="gpu_range"):
    """trace/analyze.py's figures of the row's kept trace and range (a copy: callers add to it)."""
    path = path_of(folder, row.get("trace"))
    if not isinstance(row.get("range"), str):
        raise KeptError(f"names {row.get('trace')} without the range it profiled")
    st = path.lstat()
    return copy.deepcopy(_analysis(str(path.resolve()), (st.st_size, st.st_mtime_ns), row["range"], cuda_time))
