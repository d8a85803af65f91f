"""The trace reader as a command of its own: what `pip install .` installs as `trace-doctor`,
also `python -m report.trace.explain_cli`; standard library only (no torch).

    trace-doctor TRACE [--format text|json]

Prints the diagnosis and the detail (text, the same as `build_tables.py --explain TRACE`)
or the JSON result (explain_result.py's schema). A file that is no trace: one line on
stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import sys

from .explain import TraceError, explain_file

PROG = "trace-doctor"
FORMATS = ("text", "json")


def parser(prog=PROG):
    p = argparse.ArgumentParser(prog=prog, description="Read a torch.profiler trace (.json or .json.gz): "
                                "what paces it, attention per backend and why, findings with remedies.")
    p.add_argument("trace", help="a trace that torch.profiler wrote")
    p.add_argument("--format", choices=FORMATS, default="text", help="text (default) or the JSON result")
    return p


def run(path, form, prog=PROG):
    """Print the reading of one trace; 0, or 2 with one line on stderr."""
    try:
        out = explain_file(path, form)
    except TraceError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    sys.stdout.write(out)
    return 0


def main(argv=None):
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    return run(args.trace, args.format)


if __name__ == "__main__":
    sys.exit(main())
