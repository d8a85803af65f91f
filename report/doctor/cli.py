"""The trace reader's one entry: what `pip install .` installs as `trace-doctor`, also
`python -m report.doctor.cli` in a clone (`python -m sdpa_trace_doctor.doctor.cli` where pip installed
it: one package of the project's own name, pyproject.toml), and what `build_tables.py --explain TRACE` runs
(run(), with its own name in the error line); standard library only (no torch).

    trace-doctor TRACE [--format text|json] [--svg PATH] [--ask-torch] [--lang en|nb]

Prints the diagnosis and the detail (text, in --lang's language: English by default, or
Norwegian Bokmål as the site's Norwegian pages write it) or the JSON result
(model/result_types.py's schema, the same in every language),
and with --svg also draws the trace's median profiled step into PATH, a new file; with
--ask-torch, after the text, what this machine's PyTorch says of the recorded inputs
(ask_torch.py). A file that is no trace, or --ask-torch without torch: one line on
stderr and exit status 2; so is a stdout that can take nothing (closed, /dev/full: one_line.py's
with_stdout). The output is written on any stdout: where
its encoding lacks µ or … (PYTHONIOENCODING=ascii, an old console) they are written \\xb5,
never a traceback.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..one_line import Parser, with_stdout
from . import ask_torch
from .explain import TraceError, read_path, report, written
from .output.said import LANGS
from .shown.safe import error_line, inert

PROG = "trace-doctor"
FORMATS = ("text", "json")
FORMAT_HELP = "text (default) or the JSON result (report/doctor/model/result_types.py)"
SVG_HELP = ("also draw the trace's median profiled step (or its first window of GPU activities) "
            "as an SVG timeline into PATH, a new file")


def new_svg(text):
    """--svg's PATH: a new file in a folder that exists (a drawing never replaces a file)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty: name a new file, e.g. step.svg")
    if not text.isprintable():
        raise argparse.ArgumentTypeError(f"{text!r} holds a line break or a control character")
    path = Path(text)
    if path.exists():
        raise argparse.ArgumentTypeError(f"{text} exists: give a new file (the drawing replaces nothing)")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: no folder {path.parent} to write it in")
    return path


ASK_TORCH_HELP = ask_torch.HELP.removeprefix("with --explain: ")
LANG_HELP = ("the language of the text and the drawing: en (default) or nb (Norwegian Bokmål); "
             "the JSON result is the same in each")
# the reading's options, once: trace-doctor's and build_tables.py --explain's (add_options)
OPTIONS = (
    (("--format",), {"choices": FORMATS, "default": "text", "help": FORMAT_HELP}),
    (("--svg",), {"metavar": "PATH", "type": new_svg, "help": SVG_HELP}),
    (("--ask-torch",), {"action": "store_true", "help": ASK_TORCH_HELP}),
    (("--lang",), {"choices": LANGS, "default": "en", "help": LANG_HELP}),
)
OPTION_DESTS = frozenset(flags[0].removeprefix("--").replace("-", "_") for flags, _ in OPTIONS)


def add_options(p, help_prefix=""):
    """The reading's options (OPTIONS) on parser p, each help text after help_prefix."""
    for flags, kwargs in OPTIONS:
        p.add_argument(*flags, **{**kwargs, "help": help_prefix + kwargs["help"]})
    return p


def parser(prog=PROG):
    p = Parser(prog=prog, description="Read a torch.profiler trace (.json or .json.gz): "
                                "what paces it, attention per backend and why, findings with remedies.")
    p.add_argument("trace", help="a trace that torch.profiler wrote")
    return add_options(p)


def refuse_asking(form):
    """Why --ask-torch cannot run here (before the trace is read), or None."""
    if form == "json":
        return "--ask-torch prints text: leave --format json out"
    return ask_torch.refusal()


def torch_here():
    """Whether torch is on this machine (nothing imported): then asking it may be the default."""
    return ask_torch.present()


def asked_and_read(found, lang, asked):
    """The reading with what this machine's PyTorch says (asked: --ask-torch given): its one line
    first where it could not ask (no CUDA device, no recorded inputs); not asked for, only where
    this machine's GPU is of the trace's compute capability, after a first line saying that
    asking is the default here; else the reading alone. The trace's text made inert."""
    cc = None if asked else ask_torch.same_gpu(found)
    if not asked and cc is None:
        return report(found, lang)
    lines = ask_torch.ask(found)
    if len(lines) == 1:
        return inert(lines[0]) + "\n\n" + report(found, lang)
    head = ask_torch.default_line(cc) + "\n\n" if cc else ""
    return head + report(found, lang) + "\n" + inert("\n".join(lines)) + "\n"


def run(path, form="text", svg=None, prog=PROG, ask_torch=False, lang="en"):
    """Print the reading of one trace in `lang` (and with svg, write its timeline there; with
    ask_torch, what this machine's PyTorch says of its recorded inputs); 0, or 2 with one line
    on stderr."""
    no = refuse_asking(form) if ask_torch else None
    if no:  # before the trace is read
        return _refuse(prog, no)
    try:
        # asking is the default where torch and a CUDA GPU of the trace's compute capability are here
        default = not ask_torch and form == "text" and torch_here()
        found, trace, timeline = read_path(path)  # the file read and parsed once: --svg draws from it too
        if ask_torch or default:
            out = asked_and_read(found, lang, ask_torch)
        else:
            out = written(found, form, lang)  # the trace's text made inert (shown/safe.py)
        if svg is not None:
            from .output.svg import draw_read

            drawn = draw_read([(path, trace, timeline)], lang)[0]
            with open(svg, "x", encoding="utf-8") as f:  # "x": never over a file made meanwhile
                f.write(drawn)
    except TraceError as err:  # one line that names the file
        return _refuse(prog, str(err))
    except OSError as err:
        return _refuse(prog, error_line(svg, f"cannot be written ({err.strerror or err})"))
    if hasattr(sys.stdout, "reconfigure"):  # a terminal that cannot write µ or … gets \xb5, never a traceback
        sys.stdout.reconfigure(errors="backslashreplace")
    sys.stdout.write(out)
    return 0


def _refuse(prog, line):
    print(f"{prog}: error: {line}", file=sys.stderr)
    return 2


def run_parsed(path, args, prog=PROG):
    """run() with the options add_options() parsed into args: the one place that passes them on."""
    return run(path, args.format, args.svg, prog=prog, ask_torch=args.ask_torch, lang=args.lang)


def main(argv=None):
    """trace-doctor's exit status; a stdout that can take nothing: one line, 2 (with_stdout)."""
    return with_stdout(PROG, _main, sys.argv[1:] if argv is None else argv)


def _main(argv):
    args = parser().parse_args(argv)
    return run_parsed(args.trace, args)


if __name__ == "__main__":
    sys.exit(main())
