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


def first_screen(result, lang="en"):
    """The diagnosis: at most SCREEN lines of at most WIDTH columns."""
    p, on = result.pace, result.detail["platform"]
    say = partial(said.say, lang=lang)
    lines = _wrap(said.pace_head(p, lang))
    lines += _wrap(said.pace(p, lang), "  ")
    g = result.graphs
    if g is not None:
        v = dict(graphs=WORDS[on]["graphs"], replays=g.replays, activities=g.activities, gpu=g.gpu_us, share=g.share)
        lines += _wrap(say("graphs.replay", **v) if g.per_range is None else
                       say("graphs.replay_per_range", per=g.per_range, other=g.other_launches_per_range, **v), "  ")
    for c in result.communication[:MAX_COMM]:
        lines += _wrap(say("comm.line", collectives=WORDS[on]["collectives"], device=shown(c.device, 20),
                           stream=shown(c.stream, 20), comm=c.comm_us, share=c.share, overlap=c.overlap_share), "  ")
    if len(result.communication) > MAX_COMM:  # the others counted: the detail's streams list them all
        lines += _wrap(say("comm.more", n=len(result.communication) - MAX_COMM,
                           collectives=WORDS[on]["collectives"]), "  ")
    att = [r for r in result.attention if r.direction != "call"]
    calls = [r for r in result.attention if r.direction == "call"]
    if att or calls or result.note:
        lines.append(say("head.attention"))
    for r in att[:4]:
        what = ("chain" if r.backend == "hand_written" else
                "kernel" if r.direction in ("replayed", "compiled") else "call")
        row = say(f"att.row.{what}", backend=said.backend_name(r.backend, on, lang),
                  direction=say(f"direction.{r.direction}"), calls=r.calls, gpu=r.gpu_us, share=r.share)
        if r.fallback:
            row = say("att.fell_back", row=row)
        why = ("; ".join(say("att.cause", cause=say(f"prep.{c}"), us=u) for c, u in r.causes.items())
               or (say("att.copies", copies=r.copies) if r.copies else ""))
        lines += _wrap(say("att.with_why", row=row, why=why) if why else row, "  ")
    for r in calls[:2]:
        backend = said.backend_name(r.backend, on, lang) if r.backend else say("call.no_backend")
        lines += _first_lines(_wrap(said.call_line(r.calls, backend, r.parsed, r.told, lang), "  "), 3)
        for w in said.warnings(r.told, lang)[:1] if r.told else ():  # a wrong result outranks speed: first screen
            lines += _first_lines(_wrap(say("warning", warning=w), "    "), 2)
    if result.note:
        lines += _wrap(said.attention_note(result.note, lang), "  ")
    if result.findings:
        lines.append(say("head.findings"))
    given = 0
    for i, f in enumerate(result.findings, start=1):
        title, evidence, remedy, _ = said.finding(f, lang)
        block = (_wrap(say("finding.head", i=i, title=title, time=f.time_us, share=f.share), "  ")
                 + _first_lines(_wrap(say("finding.evidence", evidence=evidence), "     "), 2)
                 + _wrap(say("finding.remedy", remedy=remedy), "     "))
        if len(lines) + len(block) > SCREEN - 1:
            break
        lines += block
        given += 1
    if not result.findings:
        lines.append(say("finding.none"))
    more = len(result.findings) - given
    lines.append(say("finding.more", n=more) if more else say("detail.follows"))
    return lines[:SCREEN]


def report(result, lang="en"):
    """The first screen, then the detail (explain.py's dict) as before."""
    return "\n".join(first_screen(result, lang)) + "\n\n" + detail(result.detail, lang)
