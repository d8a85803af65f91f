"""The trace reader as a command of its own: what `pip install .` installs as `trace-doctor`,
also `python -m report.trace.explain_cli`; standard library only (no torch).

    trace-doctor TRACE [--format text|json] [--ask-torch]

Prints the diagnosis and the detail (text, the same as `build_tables.py --explain TRACE`)
or the JSON result (explain_result.py's schema); with --ask-torch, after the text, what this
machine's PyTorch says of the recorded inputs (explain_ask_torch.py). A file that is no trace,
or --ask-torch without torch: one line on stderr and exit status 2.
"""
from __future__ import annotations

import argparse
import sys

from . import explain_ask_torch
from .explain import TraceError, explain_file, explain_path, report
from .explain_safe import inert

PROG = "trace-doctor"
FORMATS = ("text", "json")


def parser(prog=PROG):
    p = argparse.ArgumentParser(prog=prog, description="Read a torch.profiler trace (.json or .json.gz): "
                                "what paces it, attention per backend and why, findings with remedies.")
    p.add_argument("trace", help="a trace that torch.profiler wrote")
    p.add_argument("--format", choices=FORMATS, default="text", help="text (default) or the JSON result")
    p.add_argument("--ask-torch", action="store_true", help=explain_ask_torch.HELP.removeprefix("with --explain: "))
    return p


def refuse_asking(form):
    """Why --ask-torch cannot run here (before the trace is read), or None."""
    if form == "json":
        return "--ask-torch prints text: leave --format json out"
    return explain_ask_torch.refusal()


def run(path, form, prog=PROG, ask_torch=False):
    """Print the reading of one trace; 0, or 2 with one line on stderr."""
    no = refuse_asking(form) if ask_torch else None
    if no:
        print(f"{prog}: error: {no}", file=sys.stderr)
        return 2
    try:
        if ask_torch:
            found = explain_path(path)
            out = report(found) + "\n" + report_asked(found)
        else:
            out = explain_file(path, form)
    except TraceError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 2
    sys.stdout.write(out)
    return 0


def report_asked(found):
    """--ask-torch's lines, the trace's text in them made inert."""
    return inert("\n".join(explain_ask_torch.ask(found))) + "\n"


def main(argv=None):
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    return run(args.trace, args.format, ask_torch=args.ask_torch)


if __name__ == "__main__":
    sys.exit(main())
