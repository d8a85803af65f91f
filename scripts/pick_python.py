"""Which Python scripts/site.sh and scripts/test.sh install into and run with.

    "$PYTHON" scripts/pick_python.py

prints one line, a plan for the Python that runs it:

    here                      it is inside a virtualenv or conda env: install into it, as is
    venv                      make (or reuse) the project's .venv with it
    venv-apt python3.11-venv  the same, after `apt-get install python3.11-venv`: Debian and
                              Ubuntu ship the system Python's venv module separately
    venv-none                 no venv module, and no Debian package that adds one

Outside an environment the scripts always use .venv: Debian 12's and Ubuntu 24.04's system
Python refuse `pip install` (PEP 668, externally managed), and any other Python is
left as it was. A Python older than 3.11 gets one line on stderr and exit status 1.

Written so that even an old Python can run it far enough to say so.
"""

from __future__ import print_function

import os
import sys

MIN_VERSION = (3, 11)


def in_environment(prefix, base_prefix, real_prefix=None, conda_meta=False):
    """Whether a Python with these sys attributes runs inside a virtualenv or conda env.

    venv and virtualenv >= 20 give prefix != base_prefix; old virtualenv sets real_prefix;
    a conda environment has a conda-meta folder in its prefix.
    """
    return prefix != base_prefix or real_prefix is not None or bool(conda_meta)


def venv_package(version, executable):
    """The Debian/Ubuntu package with the venv module of this Python, or None when the
    Python is not the system one (/usr/bin; not /usr/local/bin, pyenv, ...)."""
    if not executable.startswith("/usr/bin/"):
        return None
    return "python%d.%d-venv" % (version[0], version[1])


def check_version(version, executable):
    """ValueError for a Python older than MIN_VERSION."""
    if tuple(version[:2]) < MIN_VERSION:
        raise ValueError(
            "Python %s at %s is too old: the project needs %d.%d or newer "
            "(set PYTHON=/path/to/python3)"
            % (".".join(str(v) for v in version[:3]), executable, MIN_VERSION[0], MIN_VERSION[1])
        )


def plan(version, inside, has_venv, executable):
    """The line pick_python.py prints; ValueError for a Python older than MIN_VERSION."""
    check_version(version, executable)
    if inside:
        return "here"
    if has_venv:
        return "venv"
    package = venv_package(version, executable)
    return "venv-apt " + package if package else "venv-none"


def has_venv_module():
    import importlib.util

    # Debian keeps `venv` in the standard library but moves ensurepip (which puts pip into a
    # new venv) to pythonX.Y-venv; without it `python3 -m venv` fails half-way.
    return all(importlib.util.find_spec(name) is not None for name in ("venv", "ensurepip"))


def main():
    executable = os.path.realpath(sys.executable)
    try:
        check_version(tuple(sys.version_info), executable)
    except ValueError as exc:
        print("pick_python.py: %s" % exc, file=sys.stderr)
        return 1
    inside = in_environment(
        sys.prefix,
        getattr(sys, "base_prefix", sys.prefix),
        getattr(sys, "real_prefix", None),
        os.path.isdir(os.path.join(sys.prefix, "conda-meta")),
    )
    print(plan(tuple(sys.version_info), inside, has_venv_module(), executable))
    return 0


if __name__ == "__main__":
    sys.exit(main())
