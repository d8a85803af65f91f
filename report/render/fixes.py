"""Each refusal beside its own fix, derived from the collections of report/collect/fix_collector.py
(data/fixes/<gpu>/, loaded by output/fix_files.py): what ran (read off one call's kernels),
whether the result is right (its error against float64), and the fix's wall time per call
against the call as written, decided by the one paired rule (verdict.by_runs) with the host
as the unit: each host's collections are its processes.

Which collections are pooled: those of one protocol, one collecting code (identity) and one
set of versions (torch, CUDA, cuDNN, driver) on one GPU; where collections differ, the set
with the most hosts is kept and every other collection is named with its reason
(`pool`). Nothing here measures: a change to this file re-derives every collection."""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from ..text.catalog import t
from ..text.format import fmt_num, fmt_ratio_sig, fmt_sig
from ..trace.names import backend_of_kernels
from ..verdict import Verdict, by_runs
from .fix_names import ENTRIES, GROUPS, NOT_FIXES
from .keyed import keyed
from .markdown import code_safe, html_block_safe, markdown_safe

# a result counts as right within this relative error against float64 (‖out − ref‖ / ‖ref‖):
# bfloat16's rounding (its 8-bit mantissa) leaves 1e-3 to 1e-2 on these shapes
TOLERANCE = 0.02
ERROR_SHOWN = 1e-4  # an error below this is written as "below 0.0001" (float32's are about 6e-7)
VERSION_KEYS = ("torch", "cuda", "cudnn", "driver")


class Malformed(ValueError):
    """A collection that is not what --fixes writes: the path of the first bad field."""


def _finite(x, where):
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0:
        raise Malformed(f"{where} is {x!r}, not a finite number ≥ 0")
    return x


def _text(x, where, most=400):
    if not isinstance(x, str) or len(x) > most:
        raise Malformed(f"{where} is not a string of at most {most} characters")
    return x


def check(c):
    """c, checked for every field the table reads (Malformed names the first bad one)."""
    if not isinstance(c.get("protocol"), int) or isinstance(c.get("protocol"), bool):
        raise Malformed("protocol is not a whole number")
    ident, host = c.get("identity"), c.get("host")
    if not isinstance(ident, dict) or not isinstance(ident.get("sha256"), dict):
        raise Malformed("identity.sha256 is missing")
    for k, v in ident["sha256"].items():
        _text(k, "identity.sha256 key"), _text(v, f"identity.sha256[{k!r}]")
    if not isinstance(host, dict) or not isinstance(host.get("versions"), dict):
        raise Malformed("host.versions is missing")
    for k in ("host_id", "gpu_uuid_id", "boot_id", "gpu_name", "started"):
        if host.get(k) is not None:
            _text(host[k], f"host.{k}")
    for k in VERSION_KEYS:
        if host["versions"].get(k) is not None:
            _text(host["versions"][k], f"host.versions.{k}")
    groups = c.get("groups")
    if not isinstance(groups, dict):
        raise Malformed("groups is missing")
    for g, group in groups.items():
        _text(g, "a group's name", 80)
        if not isinstance(group, dict):
            raise Malformed(f"groups.{g} is not an object")
        if "refused" in group:
            _text(group["refused"], f"groups.{g}.refused")
            continue
        _text(group.get("reference"), f"groups.{g}.reference", 80)
        entries = group.get("entries")
        if not isinstance(entries, dict) or group["reference"] not in entries:
            raise Malformed(f"groups.{g}.entries lacks its reference")
        for n, e in entries.items():
            where = f"groups.{g}.entries.{n}"
            if not isinstance(e, dict):
                raise Malformed(f"{where} is not an object")
            if "refused" in e:
                _text(e["refused"], f"{where}.refused")
                continue
            if e.get("error") is not None:
                _finite(e["error"], f"{where}.error")
            _finite(e.get("first_call_ms"), f"{where}.first_call_ms")
            blocks = e.get("blocks_us", [])
            if not isinstance(blocks, list) or len(blocks) > 10_000:
                raise Malformed(f"{where}.blocks_us is not a list of at most 10,000 blocks")
            for i, b in enumerate(blocks):
                if _finite(b, f"{where}.blocks_us[{i}]") <= 0:
                    raise Malformed(f"{where}.blocks_us[{i}] is 0")
            for part in ("kernels", "runtime"):
                events = e.get(part, [])
                if not isinstance(events, list) or len(events) > 10_000:
                    raise Malformed(f"{where}.{part} is not a list of at most 10,000 events")
                for i, k in enumerate(events):
                    if not isinstance(k, list) or len(k) != 2:
                        raise Malformed(f"{where}.{part}[{i}] is not [name, µs]")
                    _text(k[0], f"{where}.{part}[{i}][0]", 2000), _finite(k[1], f"{where}.{part}[{i}][1]")
    return c


def _identity(c):
    h = c["host"]
    return (c["protocol"], tuple(sorted(c["identity"]["sha256"].items())), h.get("gpu_name"),
            tuple(h["versions"].get(k) for k in VERSION_KEYS))


def host_of(c):
    """The unit of replication: the physical GPU (its UUID's hash), else host name and boot."""
    h = c["host"]
    return h.get("gpu_uuid_id") or f"{h.get('host_id')}/{h.get('boot_id')}"


def _why_not(c, kept):
    """Why collection c is not pooled with `kept` (one of them): the first thing that differs."""
    a, b = _identity(c), _identity(kept)
    if a[0] != b[0]:
        return "protocol", f"{a[0]} (kept: {b[0]})"
    if a[2] != b[2]:
        return "gpu", f"{a[2]} (kept: {b[2]})"
    if a[3] != b[3]:
        diff = [f"{k} {x} (kept: {y})" for k, x, y in zip(VERSION_KEYS, a[3], b[3], strict=True) if x != y]
        return "versions", ", ".join(diff)
    return "code", ", ".join(sorted({f for f, h in a[1]} ^ {f for f, h in b[1]}
                                   | {f for (f, h) in a[1] if (f, h) not in b[1]}))


def pool(collections):
    """(kept [(name, collection)], left out [(name, what, detail)]): the set of one identity
    with the most hosts (then the most collections) is kept."""
    by_identity = {}
    for name, c in collections:
        by_identity.setdefault(_identity(c), []).append((name, c))
    if not by_identity:
        return [], []
    best = max(by_identity.values(), key=lambda cs: (len({host_of(c) for _, c in cs}), len(cs),
                                                     max(c["host"].get("started") or "" for _, c in cs)))
    out = [(name, *_why_not(c, best[0][1])) for name, c in collections if (name, c) not in best]
    return best, out


WAITING_CALLS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy")


def waits(runtime):
    """How many of one call's CUDA runtime calls make the CPU wait for the GPU: the
    synchronisations, and a cudaMemcpy that is not Async (it returns once the copy is done)."""
    return sum(1 for name, _ in runtime if name in WAITING_CALLS)


def ran(kernels):
    """What ran, read off one call's kernel names: a backend of SDPA, or FlexAttention's
    generated kernel (Triton's template kernels, triton_tem_*)."""
    names = [k[0] for k in kernels]
    if any("triton_tem" in n or "flex" in n.lower() for n in names):
        return "flex"
    return backend_of_kernels(names)


@dataclass(frozen=True)
class FixRow:
    group: str
    entry: str
    reference: bool
    ran: str | None
    error: float | None  # the largest over the pooled collections
    right: bool
    wall_us: float | None  # the median of the hosts' median blocks
    verdict: Verdict | None  # the entry against the reference, wall time per call
    first_call_ms: tuple[float, float] | None  # lowest, highest
    refused: str | None
    waits: int = 0  # runtime calls in one call that make the CPU wait for the GPU (waits())
    work: float = 1.0  # the entry's work over the reference's, where the collection says it differs


def _ratios(c, group, entry):
    g = c["groups"].get(group) or {}
    e, ref = (g.get("entries") or {}).get(entry, {}), (g.get("entries") or {}).get(g.get("reference"), {})
    a, b = ref.get("blocks_us") or [], e.get("blocks_us") or []
    return [y / x for x, y in zip(a, b, strict=False) if x > 0]


def _blocks(collections, group, entry):
    """Every block of `entry` in `group` over one host's collections (µs per call)."""
    return [b for c in collections for b in c["groups"][group]["entries"].get(entry, {}).get("blocks_us", [])]


def rows(kept):
    """[FixRow] in the page's order, from the pooled collections."""
    by_host = {}
    for _, c in kept:
        by_host.setdefault(host_of(c), []).append(c)
    out = []
    names = {g for _, c in kept for g in c["groups"]}
    for group in [g for g in GROUPS if g in names]:
        present = [c["groups"][group] for _, c in kept if "entries" in c["groups"].get(group, {})]
        if not present:
            continue
        reference = present[0]["reference"]
        entries = [e for e in ENTRIES if any(e in g["entries"] for g in present)]
        for entry in [reference] + [e for e in entries if e != reference]:
            seen = [g["entries"][entry] for g in present if entry in g["entries"]]
            ok = [e for e in seen if "refused" not in e]
            if not ok:
                out.append(FixRow(group, entry, entry == reference, None, None, False, None, None, None,
                                  seen[0].get("refused") if seen else None))
                continue
            errors = [e["error"] for e in ok if e.get("error") is not None]
            error = max(errors) if errors else None
            right = error is not None and error <= TOLERANCE
            per_host = [_blocks(cs, group, entry) for cs in by_host.values()]
            host_medians = [statistics.median(b) for b in per_host if b]
            wall = statistics.median(host_medians) if host_medians else None
            verdict = None
            if entry != reference:
                runs = [[_ratios(c, group, entry) for c in cs] for cs in by_host.values()]
                verdict = by_runs(runs)
            firsts = [e["first_call_ms"] for e in ok]
            out.append(FixRow(group, entry, entry == reference, ran(ok[0].get("kernels", [])), error, right,
                              wall, verdict, (min(firsts), max(firsts)), None,
                              max(waits(e.get("runtime", [])) for e in ok),
                              float(present[0].get("work", {}).get(entry, 1.0))))
    return out


def _error_words(error, lang):
    if error is None:
        return t("value.none", lang)
    if error < ERROR_SHOWN:
        return t("fixes.error_below", lang, limit=fmt_num(ERROR_SHOWN, lang, 4))
    return fmt_sig(error, lang)


def _outcome(v):
    """faster, slower, same or undecided: the fix against the call as written."""
    if v.interval is None or v.undecided:
        return "undecided"
    return "same" if v.same else ("faster" if v.order == ">" else "slower")


def _verdict_words(r, lang):
    v = r.verdict
    if v is None or v.ratio is None:
        return t("fixes.no_time", lang)
    if r.work < 1:  # a yardstick of less work (head dim 64 beside 512): no order, the time per unit of work
        return t("fixes.other_work", lang, ratio=fmt_ratio_sig(v.ratio, lang), work=fmt_ratio_sig(r.work, lang),
                 per_work=fmt_ratio_sig(v.ratio / r.work, lang))
    ratio = fmt_ratio_sig(v.ratio, lang)
    key = {"undecided": "fixes.undecided", "same": "fixes.same", "faster": "fixes.faster",
           "slower": "fixes.slower"}[_outcome(v)]
    lo, hi = v.interval if v.interval else (v.ratio, v.ratio)
    return t(key, lang, ratio=ratio, lo=fmt_ratio_sig(lo, lang), hi=fmt_ratio_sig(hi, lang),
             pct=fmt_num(v.noise * 100, lang, 0))


def _line(r, reference_right, lang):
    what = t("fixes.ran", lang, backend=keyed("fix_ran.", r.ran, lang)) if r.ran else ""
    name = keyed("fix_entry.", r.entry, lang)
    if r.refused:
        return t("fixes.refused_line", lang, name=name, why=f"`{code_safe(r.refused[:160])}`")
    error = _error_words(r.error, lang)
    if not r.right:
        return t("fixes.wrong_line", lang, name=name, ran=what, error=error)
    first = t("fixes.first_call", lang, lo=fmt_sig(r.first_call_ms[0], lang), hi=fmt_sig(r.first_call_ms[1], lang))
    if r.waits:
        first += "; " + t("fixes.waits", lang, n=fmt_num(r.waits, lang, 0))
    if r.reference:
        return t("fixes.reference_line", lang, name=name, ran=what, us=fmt_sig(r.wall_us, lang), error=error,
                 first=first)
    time_words = _verdict_words(r, lang) if reference_right else t("fixes.reference_wrong", lang)
    return t("fixes.entry_line", lang, name=name, ran=what, us=fmt_sig(r.wall_us, lang), verdict=time_words,
             error=error, first=first)


def fixes_table(collections, lang):
    """The Markdown of the fixes: per refusal its call as written and each fix beside it; or
    the line that says none is collected for this GPU."""
    if not collections:
        return t("fixes.none", lang)
    kept, left = pool(checked(collections))
    found = rows(kept)
    hosts = len({host_of(c) for _, c in kept})
    first = kept[0][1]["host"]
    counted = [r for r in found if not r.reference and r.entry not in NOT_FIXES and r.right and r.verdict is not None]
    tally = {k: sum(1 for r in counted if _outcome(r.verdict) == k) for k in ("faster", "slower", "same", "undecided")}
    answer = t("fixes.summary", lang, n=fmt_num(len(counted), lang, 0),
               **{k: fmt_num(v, lang, 0) for k, v in tally.items()})
    parts = [answer + (" " + t("fixes.one_host", lang) if hosts == 1 else ""), ""]
    # each part a closed block (the answer above is what shows): it reads on a phone, and a
    # page stays short until its reader opens what they came for
    intro = t("fixes.intro" if hosts > 1 else "fixes.intro_one_host", lang, hosts=fmt_num(hosts, lang, 0),
              collections=fmt_num(len(kept), lang, 0), gpu=markdown_safe(first.get("gpu_name")),
              torch=code_safe(first["versions"].get("torch")), cudnn=code_safe(first["versions"].get("cudnn")),
              tolerance=fmt_sig(TOLERANCE, lang))
    parts.append(_closed(t("fixes.how", lang), intro))
    for group in dict.fromkeys(r.group for r in found):
        these = [r for r in found if r.group == group]
        ref = next(r for r in these if r.reference)
        lines = "\n".join(f"- {_line(r, ref.right and not ref.refused, lang)}" for r in these)
        parts.append(_closed(_group_summary(group, these, lang), lines))
    if left:
        parts.append(t("fixes.left_out", lang, names=", ".join(f"`{code_safe(n)}` ({w}: {code_safe(d)})"
                                                                for n, w, d in left)))
    return "\n".join(parts).rstrip() + "\n"


def _closed(summary, body):
    """A closed block of Markdown (strings from a collection made safe for the HTML parser)."""
    return (f'<details class="sdpa-fixes" markdown>\n<summary markdown>{html_block_safe(summary)}</summary>\n\n'
            f'{html_block_safe(body)}\n\n</details>\n')


def _group_summary(group, these, lang):
    """The group's line: the refusal, and its fastest fix that gives a right result."""
    fixes = [r for r in these if not r.reference and r.entry not in NOT_FIXES and r.right and r.verdict is not None
             and r.verdict.ratio is not None]
    name = f"**{keyed('fix_group.', group, lang)}**"
    if not fixes:
        return t("fixes.group_no_fix", lang, group=name)
    best = min(fixes, key=lambda r: r.verdict.ratio)
    return t("fixes.group_best", lang, group=name, fix=keyed("fix_entry.", best.entry, lang),
             ratio=fmt_ratio_sig(best.verdict.ratio, lang), outcome=keyed("fixes.word_", _outcome(best.verdict), lang))


def checked(collections):
    """[(name, collection)], each checked (Malformed names the file and its first bad field)."""
    out = []
    for name, c in collections:
        try:
            out.append((name, check(c)))
        except Malformed as err:
            raise Malformed(f"{name}: {err}") from None
    return out


def pool_lines(collections):
    """One line per collection: pooled, or left out and why (for the render's output)."""
    if not collections:
        return []
    kept, left = pool(checked(collections))
    return ([f"fixes: pooled {n} (host {host_of(c)})" for n, c in kept]
            + [f"fixes: left out {n}: other {w}: {d}" for n, w, d in left])
