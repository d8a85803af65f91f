"""Bounds on what the build reads from a file it did not write (a contributed results.json,
a reader's trace): size before parsing, nesting depth after."""
from __future__ import annotations

MAX_DEPTH = 64  # a results.json nests about 8 deep, a torch.profiler trace about 5


def too_deep(value, limit=MAX_DEPTH):
    """True where lists and dicts nest deeper than `limit` (checked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def parse_json(text, loads):
    """loads(text), with JSON nested too deep for the parser (RecursionError) or for
    MAX_DEPTH raised as ValueError with one line."""
    try:
        data = loads(text)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    if too_deep(data):
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return data
