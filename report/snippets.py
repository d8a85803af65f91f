"""Import a file of snippets/ by its plain name, the way the snippets import each other.

Readers run the snippets as scripts (``python snippets/naive_attention.py``), so they
import their siblings as top-level modules (``from naive_attention import make_inputs``).
``load`` registers each file under that same name, so a snippet that the build imports
finds its siblings, and nothing needs snippets/ on ``sys.path``.
"""
from __future__ import annotations

import importlib.util
import sys

from .paths import SNIPPETS


def load(name):
    """The module of snippets/<name>.py, imported once per process."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, SNIPPETS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
