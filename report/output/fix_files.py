"""The collections of report/collect/fix_collector.py committed for a GPU (data/fixes/<gpu>/*.json.gz),
loaded for its table (render/fixes.py): each file's size, its unpacked size and its nesting
are capped before it is parsed, and one that fails is refused in one line naming it."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from ..limits import parse_json
from ..results import UsageError

# a collection of PROTOCOL 1 was about 10 kB packed; PROTOCOL 2 keeps one call's trace per entry
# (33 entries, a few to some tens of kB of JSON each), far inside both caps
MAX_PACKED = 4 * 2**20
MAX_TEXT = 32 * 2**20


def fix_collections(folder) -> list[tuple[str, dict]]:
    """[(file name, collection)] of every *.json.gz directly under folder, by name; [] where
    the folder is missing."""
    if folder is None or not Path(folder).is_dir():
        return []
    found = []
    for path in sorted(Path(folder).glob("*.json.gz")):
        if path.is_symlink() or not path.is_file():
            raise UsageError(f"{path} is not a regular file: a collection is a plain file")
        if path.stat().st_size > MAX_PACKED:
            raise UsageError(f"{path} is larger than {MAX_PACKED // 2**20} MB: not a collection of --fixes")
        try:
            with gzip.open(path, "rb") as f:
                raw = f.read(MAX_TEXT + 1)
            if len(raw) > MAX_TEXT:
                raise UsageError(f"{path} unpacks to more than {MAX_TEXT // 2**20} MB: not a collection of --fixes")
            data = parse_json(raw.decode("utf-8"), json.loads)
        except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError, ValueError) as err:
            raise UsageError(f"{path} cannot be read as a collection ({err})") from None
        if not isinstance(data, dict) or data.get("collector") != "fixes":
            raise UsageError(f"{path} is not a collection of build_tables.py --fixes")
        found.append((path.name, data))
    return found
