#!/usr/bin/env python3
"""Run Python with these arguments as a child that ends when its parent does.

    python3 scripts/child.py -m mkdocs build --strict --site-dir DIR

scripts/common.sh starts the site's build this way: where the shell that started it is
killed outright (kill -9, which no trap sees), Linux sends the build SIGTERM
(prctl PR_SET_PDEATHSIG), so no orphaned build keeps writing into a folder the next run
removes. Elsewhere the arguments run as they are. Standard library only.
"""

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def main():
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        except (OSError, AttributeError):
            pass
        if os.getppid() != parent:  # the parent died before prctl took hold
            sys.exit(143)
    os.execv(sys.executable, [sys.executable, *sys.argv[1:]])


if __name__ == "__main__":
    main()
