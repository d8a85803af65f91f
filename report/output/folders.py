"""Staging folders, the swap of a finished folder into place, and the folders holding results."""
from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from ..results import UsageError


@contextmanager
def staged(parent, prefix, damaged=None):
    """A fresh folder under `parent` to build into; whatever of it the body did not move
    away is removed, on success or failure. With damaged=(what, consequence), an error
    that results of another version raise while rendering becomes one UsageError line."""
    staging = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    try:
        yield staging
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        if damaged is None:
            raise
        what, consequence = damaged
        raise UsageError(f"{what} is damaged or was written by another version of build_tables.py "
                         f"({type(err).__name__}: {err}); {consequence}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def replace_dir(staging, final):
    """Swap a fully written staging folder into place; the old one survives until then."""
    final = Path(final)
    old = final.with_name(final.name + ".old")
    if old.exists():
        shutil.rmtree(old)
    if final.exists():
        final.rename(old)
    Path(staging).rename(final)
    if old.exists():
        shutil.rmtree(old)


def result_folders(out):
    """Every folder of `out` with a results.json, by name."""
    return sorted(d for d in out.iterdir() if (d / "results.json").exists()) if out.exists() else []
