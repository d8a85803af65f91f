"""The text of an explanation (model/result_types.py's Result) in the language asked for: what
`build_tables.py --explain` prints: the diagnosis on the first screen (first_screen), then
the detail of explain.py's dict (text_detail.py). Every sentence is a key of output/words_*.py
(output/said.py fills it); numbers as the language writes them, times in µs, never "-0.0".
A trace of PyTorch's ROCm build gets AMD's words where NVIDIA's differ (model/platform_words.py)."""
from __future__ import annotations

import textwrap
from functools import partial

from ..model.platform_words import WORDS
from ..shown.safe import shown
from . import said
from .text_detail import detail

WIDTH, SCREEN = 100, 25  # the first screen: at most SCREEN lines of at most WIDTH columns
MAX_COMM = 2  # communication streams named on the first screen; the rest are counted


def _wrap(text, indent=""):
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "  ",
                         break_on_hyphens=False) or [indent]


def _first_lines(lines, n):
    """At most n wrapped lines, the last ending in … where the text goes on (the whole of
    it is in the detail and the JSON): never a sentence cut off without a mark."""
    if len(lines) <= n:
        return lines
    return lines[:n - 1] + [lines[n - 1][:WIDTH - 2].rstrip() + " …"]


class _Screen:
    """The first screen as it is built: its wrapped lines, and the same sentences whole, in
    the same order, as parts (sections, each a heading and its lines: what the page's card
    renders, the JSON's "screen")."""

    def __init__(self):
        self.lines, self.parts = [], []

    def section(self, heading=None):
        self.parts.append({"heading": heading, "lines": []})
        if heading is not None:
            self.lines += _wrap(heading)

    def block(self, items):
        """Lines as (text, level, kind, indent, most wrapped lines or None): (wrapped, parts)."""
        wrapped, parts = [], []
        for text, level, kind, indent, most in items:
            lines = _wrap(text, indent)
            wrapped += _first_lines(lines, most) if most else lines
            parts.append({"text": text, "level": level, "kind": kind})
        return wrapped, parts

    def add(self, block):
        wrapped, parts = block
        self.lines += wrapped
        self.parts[-1]["lines"] += parts


def screen(result, lang="en"):
    """(the first screen's lines, its parts): at most SCREEN lines of at most WIDTH columns,
    and the sentences those lines hold, whole (a clipped one too), in the same order."""
    p, on = result.pace, result.detail["platform"]
    say = partial(said.say, lang=lang)
    out = _Screen()
    out.section(said.pace_head(p, lang))
    out.add(out.block([(said.pace(p, lang), 1, "pace", "  ", None)]))
    g = result.graphs
    if g is not None:
        v = dict(graphs=WORDS[on]["graphs"], replays=g.replays, activities=g.activities, gpu=g.gpu_us, share=g.share)
        out.add(out.block([(say("graphs.replay", **v) if g.per_range is None else
                            say("graphs.replay_per_range", per=g.per_range, other=g.other_launches_per_range, **v),
                            1, "graphs", "  ", None)]))
    for c in result.communication[:MAX_COMM]:
        out.add(out.block([(say("comm.line", collectives=WORDS[on]["collectives"], device=shown(c.device, 20),
                                stream=shown(c.stream, 20), comm=c.comm_us, share=c.share, overlap=c.overlap_share),
                            1, "communication", "  ", None)]))
    if len(result.communication) > MAX_COMM:  # the others counted: the detail's streams list them all
        out.add(out.block([(say("comm.more", n=len(result.communication) - MAX_COMM,
                                collectives=WORDS[on]["collectives"]), 1, "communication", "  ", None)]))
    att = [r for r in result.attention if r.direction != "call"]
    calls = [r for r in result.attention if r.direction == "call"]
    if att or calls or result.note:
        out.section(say("head.attention"))
    for r in att[:4]:
        what = ("chain" if r.backend == "hand_written" else
                "kernel" if r.direction in ("replayed", "compiled") else "call")
        row = say(f"att.row.{what}", backend=said.backend_name(r.backend, on, lang),
                  direction=say(f"direction.{r.direction}"), calls=r.calls, gpu=r.gpu_us, share=r.share)
        if r.fallback:
            row = say("att.fell_back", row=row)
        why = ("; ".join(say("att.cause", cause=say(f"prep.{c}"), us=u) for c, u in r.causes.items())
               or (say("att.copies", copies=r.copies) if r.copies else ""))
        out.add(out.block([(say("att.with_why", row=row, why=why) if why else row, 1, "backend", "  ", None)]))
    for r in calls[:2]:
        backend = said.backend_name(r.backend, on, lang) if r.backend else say("call.no_backend")
        out.add(out.block([(said.call_line(r.calls, backend, r.parsed, r.told, lang), 1, "call", "  ", 3)]))
        for w in said.warnings(r.told, lang)[:1] if r.told else ():  # a wrong result outranks speed: first screen
            out.add(out.block([(say("warning", warning=w), 2, "warning", "    ", 2)]))
    if result.note:
        out.add(out.block([(said.attention_note(result.note, lang), 1, "note", "  ", None)]))
    out.section(say("head.findings") if result.findings else None)
    given = 0
    for i, f in enumerate(result.findings, start=1):
        title, evidence, remedy, _ = said.finding(f, lang)
        block = out.block([(say("finding.head", i=i, title=title, time=f.time_us, share=f.share), 1, "finding", "  ",
                            None),
                           (say("finding.evidence", evidence=evidence), 2, "evidence", "     ", 2),
                           (say("finding.remedy", remedy=remedy), 2, "remedy", "     ", None)])
        if len(out.lines) + len(block[0]) > SCREEN - 1:
            break
        out.add(block)
        given += 1
    if not result.findings:
        out.add(out.block([(say("finding.none"), 0, "none", "", None)]))
    more = len(result.findings) - given
    out.add(out.block([(say("finding.more", n=more) if more else say("detail.follows"), 0, "more", "", None)]))
    return out.lines[:SCREEN], out.parts


def first_screen(result, lang="en"):
    """The diagnosis: at most SCREEN lines of at most WIDTH columns."""
    return screen(result, lang)[0]


def report(result, lang="en"):
    """The first screen, then the detail (explain.py's dict) as before."""
    return "\n".join(first_screen(result, lang)) + "\n\n" + detail(result.detail, lang)
