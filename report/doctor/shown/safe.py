"""Text from a trace is text: what the trace reader prints of a trace (names of ops, ranges,
kernels and devices, stream ids, the file's name in an error) can neither act on a terminal
nor run on for pages. A trace is untrusted input: people share them.

    shown(value, width=NAME_WIDTH)  str(value) made inert and clipped to `width` characters
                                    (the last one "…"): for one name or id in a line
    inert(text)                     the same without clipping, line breaks kept: for a whole
                                    report or error line, after its names went through shown()

Made inert: each character that a terminal or a text view acts on instead of showing is
written out as Python writes it in a string literal (`\\x1b`, `\\u202e`, `\\ud800`): the C0
controls (escape sequences, OSC titles and hyperlinks begin with ESC; a carriage return
overwrites the line), DEL, the C1 controls (U+009B is a one-byte CSI), the bidirectional
marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F, U+202A to U+202E,
U+2066 to U+2069: "Trojan Source", CVE-2021-42574), the line and paragraph separators
(U+2028, U+2029), the byte order mark (U+FEFF) and lone surrogates (U+D800 to U+DFFF: no
encoding can write them, so printing one raised UnicodeEncodeError). Other text, any
language's letters among it, is left as it is. Standard library only: this runs in the
browser too.
"""
from __future__ import annotations

NAME_WIDTH = 500  # a name or id in a line of the report: the longest in the corpus (ROCm GEMMs, Triton) are about 400
LINE_WIDTH = 2000  # an error line as a whole (its file name at most NAME_WIDTH of it)

_CODES = ([*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
           *range(0x2066, 0x206A), 0x2028, 0x2029, 0xFEFF, *range(0xD800, 0xE000)])
_ESCAPES = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _CODES}
_IN_LINES = {c: e for c, e in _ESCAPES.items() if c != 0x0A}  # inert(): the text's own line breaks stay


def inert(text):
    """text with every character that acts instead of showing written out; "\\n" kept."""
    return text.translate(_IN_LINES)


def shown(value, width=NAME_WIDTH):
    """str(value) inert, "\\n" written out too, and at most `width` characters: a longer one
    ends in "…" after whole characters (an escape is never cut)."""
    text = value if type(value) is str else str(value)
    head = text[:width + 1].translate(_ESCAPES)  # a million characters cost no more than width
    if len(head) <= width:
        return head
    out, used = [], 0
    for ch in text[:width]:
        piece = _ESCAPES.get(ord(ch), ch)
        if used + len(piece) > width - 1:
            break
        out.append(piece)
        used += len(piece)
    return "".join(out) + "…"


def error_line(path, message):
    """An error about the file at `path`: "PATH: message", the path shown (clipped to
    NAME_WIDTH), the whole line inert and at most LINE_WIDTH characters."""
    return shown(f"{shown(path)}: {message}", LINE_WIDTH)
