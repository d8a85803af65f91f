"""Each refusal beside its own fix, derived from the collections of report/collect/fix_collector.py
(data/fixes/<gpu>/, loaded by output/fix_files.py): what ran (read off the kernels of one call's
trace, which the collection keeps raw and report/trace/reading/ reads here),
whether the result is right (its error against float64), and the fix's wall time per call
against the call as written, decided by the one paired rule (verdict.by_runs) with the host
as the unit: each host's collections are its processes.

Which collections are pooled: those of the collecting code as it is now (its identity,
results.collect_hashes, which the caller passes as `code`: report/collect/ holds PROTOCOL) and
of one set of versions (torch, CUDA, cuDNN, driver) on one GPU; where those differ, the set
with the most hosts is kept and every other collection is named with its reason
(`pool`). Nothing here measures: a change to this file re-derives every collection."""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from ..text.catalog import t
from ..text.format import fmt_num, fmt_ratio_sig, fmt_sig
from ..trace.names import GPU_CATS, LAUNCH_CATS, backend_of_kernels
from ..trace.reading.stream import from_dict
from ..verdict import Verdict, by_runs
from .fix_names import ENTRIES, GROUPS, NOT_FIXES
from .keyed import keyed
from .markdown import code_safe, html_block_safe, markdown_safe

# a result counts as right within this relative error against float64 (‖out − ref‖ / ‖ref‖):
# bfloat16's rounding (its 8-bit mantissa) leaves 1e-3 to 1e-2 on these shapes
TOLERANCE = 0.02
ERROR_SHOWN = 1e-4  # an error below this is written as "below 0.0001" (float32's are about 6e-7)
VERSION_KEYS = ("torch", "cuda", "cudnn", "driver")
MAX_CALL_EVENTS = 20_000  # events one call's trace may keep (a compiled FlexAttention call: a few hundred)


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
    if c.get("call_range") is not None:
        _text(c["call_range"], "call_range", 200)
    if c.get("inductor_cache_files") is not None:
        _finite(c["inductor_cache_files"], "inductor_cache_files")
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
            if "trace" in e:
                one_call(e, c.get("call_range"), where)
    return c


def one_call(e, call_range, where="entry"):
    """(kernels, runtime) of an entry's one profiled call, each [(name, µs)] in the trace's
    order, read from the trace the collection keeps (e["trace"], the profiler's export) by the
    one reader of the format: every GPU activity (kernel, copy, set), as the profiler recorded
    them while the call ran, and the CUDA runtime and driver calls made inside the range
    `call_range` (the collector's record_function around the call, not its synchronisation
    after it); ([], []) for an entry without a trace. Malformed names a trace it cannot read."""
    if "trace" not in e:
        return [], []
    try:
        trace = from_dict(e["trace"])
    except ValueError as err:
        raise Malformed(f"{where}.trace is no profiler trace ({err})") from None
    if len(trace.events) > MAX_CALL_EVENTS:
        raise Malformed(f"{where}.trace holds more than {MAX_CALL_EVENTS:,} events: not one call's")
    ranges = [(r.ts, r.end, r.tid) for r in trace.events if r.cat == "user_annotation" and r.name == call_range]
    kernels = [(k.name, round(k.dur, 3)) for k in trace.events if k.cat in GPU_CATS]
    runtime = [(k.name, round(k.dur, 3)) for k in trace.events if k.cat in LAUNCH_CATS
               and any(a <= k.ts <= b and k.tid == tid for a, b, tid in ranges)]
    return kernels, runtime


def _identity(c):
    h = c["host"]
    return (c["protocol"], tuple(sorted(c["identity"]["sha256"].items())), h.get("gpu_name"),
            tuple(h["versions"].get(k) for k in VERSION_KEYS))


def host_of(c):
    """The unit of replication: the physical GPU (its UUID's hash), else host name and boot."""
    h = c["host"]
    return h.get("gpu_uuid_id") or f"{h.get('host_id')}/{h.get('boot_id')}"


def _other_files(a, b):
    """The files whose hashes differ between two identities' sha256 ({path: hash})."""
    return ", ".join(sorted(set(a) ^ set(b) | {f for f in a if f in b and a[f] != b[f]}))


def _why_not(c, kept, code):
    """Why collection c is not pooled with `kept` (one of them, or None where no collection is of
    the current code): the first thing that differs."""
    if c["identity"]["sha256"] != code:
        if kept is not None and c["protocol"] != kept["protocol"]:
            return "protocol", f"{c['protocol']} (kept: {kept['protocol']})"
        return "code", _other_files(c["identity"]["sha256"], code)
    a, b = _identity(c), _identity(kept)
    if a[0] != b[0]:
        return "protocol", f"{a[0]} (kept: {b[0]})"
    if a[2] != b[2]:
        return "gpu", f"{a[2]} (kept: {b[2]})"
    if a[3] != b[3]:
        diff = [f"{k} {x} (kept: {y})" for k, x, y in zip(VERSION_KEYS, a[3], b[3], strict=True) if x != y]
        return "versions", ", ".join(diff)
    return "code", _other_files(dict(a[1]), dict(b[1]))


def pool(collections, code):
    """(kept [(name, collection)], left out [(name, what, detail)]): of the collections made by
    the collecting code `code` ({path: sha256}, results.collect_hashes), the set of one identity
    with the most hosts (then the most collections) is kept; none where none is of that code."""
    by_identity = {}
    for name, c in collections:
        if c["identity"]["sha256"] == code:
            by_identity.setdefault(_identity(c), []).append((name, c))
    best = max(by_identity.values(), key=lambda cs: (len({host_of(c) for _, c in cs}), len(cs),
                                                     max(c["host"].get("started") or "" for _, c in cs)),
               default=[])
    out = [(name, *_why_not(c, best[0][1] if best else None, code)) for name, c in collections
           if (name, c) not in best]
    return best, out


WAITING_CALLS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy")


def waits(runtime):
    """How many of one call's CUDA runtime calls make the CPU wait for the GPU: the
    synchronisations, and a cudaMemcpy that is not Async (it returns once the copy is done)."""
    return sum(1 for name, _ in runtime if name in WAITING_CALLS)


def ran(kernels):
    """What ran, read off one call's kernel names: a backend of SDPA, or FlexAttention's
    generated kernel (Triton's template kernels, triton_tem_*)."""
    names = [name for name, _ in kernels]
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
    # a torch.compile'd entry (ran "flex"): its first call, compile included, as its own figure
    compile: FirstCall | None = None


@dataclass(frozen=True)
class FirstCall:
    """A compiled entry's first call in the collecting process: the median over hosts of each
    host's median (ms), how many hosts, and in how many of the collections Inductor's on-disk
    cache already held files when the collection started (of how many that say)."""
    ms: float
    hosts: int
    warm: int
    told: int


def _first_call(by_host, group, entry):
    """FirstCall of `entry` over the hosts' collections (the host as the unit)."""
    per_host = [[e["first_call_ms"] for c in cs for e in [c["groups"][group]["entries"].get(entry, {})]
                 if "first_call_ms" in e] for cs in by_host.values()]
    medians = [statistics.median(f) for f in per_host if f]
    told = [c.get("inductor_cache_files") for cs in by_host.values() for c in cs
            if c.get("inductor_cache_files") is not None]
    return FirstCall(statistics.median(medians), len(medians), sum(1 for n in told if n > 0), len(told))


def _ratios(c, group, entry):
    g = c["groups"].get(group) or {}
    e, ref = (g.get("entries") or {}).get(entry, {}), (g.get("entries") or {}).get(g.get("reference"), {})
    a, b = ref.get("blocks_us") or [], e.get("blocks_us") or []
    return [y / x for x, y in zip(a, b, strict=False) if x > 0]


def _blocks(collections, group, entry):
    """Every block of `entry` in `group` over one host's collections (µs per call)."""
    return [b for c in collections for b in c["groups"][group]["entries"].get(entry, {}).get("blocks_us", [])]


def rows(kept):
    """[FixRow] in the page's order, from the pooled collections (of one identity: one call_range)."""
    by_host = {}
    for _, c in kept:
        by_host.setdefault(host_of(c), []).append(c)
    out = []
    call_range = kept[0][1].get("call_range") if kept else None
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
            calls = [one_call(e, call_range) for e in ok]
            what = ran(calls[0][0]) if "trace" in ok[0] else None
            out.append(FixRow(group, entry, entry == reference, what, error, right,
                              wall, verdict, (min(firsts), max(firsts)), None,
                              max(waits(runtime) for _, runtime in calls),
                              float(present[0].get("work", {}).get(entry, 1.0)),
                              _first_call(by_host, group, entry) if what == "flex" else None))
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


def _line(r, reference, lang):
    """An entry's line; reference: the call as written's state (_reference_state)."""
    what = t("fixes.ran", lang, backend=keyed("fix_ran.", r.ran, lang)) if r.ran else ""
    name = keyed("fix_entry.", r.entry, lang)
    if r.refused:
        return t("fixes.refused_line", lang, name=name, why=f"`{code_safe(r.refused[:160])}`")
    error = _error_words(r.error, lang)
    if not r.right:
        return t("fixes.wrong_line", lang, name=name, ran=what, error=error)
    first = t("fixes.first_call", lang, lo=fmt_sig(r.first_call_ms[0], lang), hi=fmt_sig(r.first_call_ms[1], lang))
    if r.compile:  # a compiled entry: its first call as its own figure, the compile in it
        first = _compile_words(r.compile, lang)
    if r.waits:
        first += "; " + t("fixes.waits", lang, n=fmt_num(r.waits, lang, 0))
    if r.reference:
        return t("fixes.reference_line", lang, name=name, ran=what, us=fmt_sig(r.wall_us, lang), error=error,
                 first=first)
    if reference == "right":
        time_words = _verdict_words(r, lang)
    elif reference == "refused":
        time_words = t("fixes.reference_refused", lang)
    else:
        time_words = t("fixes.reference_wrong", lang)
    return t("fixes.entry_line", lang, name=name, ran=what, us=fmt_sig(r.wall_us, lang), verdict=time_words,
             error=error, first=first)


def _compile_words(f, lang):
    """A compiled entry's first call (FirstCall), and what Inductor's cache held before it."""
    words = t("fixes.compile", lang, ms=fmt_sig(f.ms, lang), hosts=fmt_num(f.hosts, lang, 0))
    if f.told:
        words += "; " + t("fixes.compile_cache", lang, warm=fmt_num(f.warm, lang, 0), told=fmt_num(f.told, lang, 0))
    return words


def _reference_state(ref):
    """"right", "refused" (the call as written does not run) or "wrong"."""
    return "refused" if ref.refused else ("right" if ref.right else "wrong")


def _left_line(left, lang):
    """The collections left out, each with what differs (pool)."""
    names = ", ".join(f"`{code_safe(n)}` ({keyed('fix_why.', w, lang)}: {code_safe(d)})" for n, w, d in left)
    return t("fixes.left_out", lang, names=names)


def fixes_table(collections, lang, code):
    """The Markdown of the fixes: per refusal its call as written and each fix beside it; or
    the line that says none is collected for this GPU, or none by the collecting code `code`
    (results.collect_hashes) yet, naming those left out."""
    if not collections:
        return t("fixes.none", lang)
    kept, left = pool(checked(collections), code)
    if not kept:
        return t("fixes.none_current", lang) + "\n\n" + _left_line(left, lang) + "\n"
    found = rows(kept)
    hosts = len({host_of(c) for _, c in kept})
    first = kept[0][1]["host"]
    counted = [r for r in found if not r.reference and r.entry not in NOT_FIXES and r.right and r.verdict is not None
               and r.verdict.ratio is not None]
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
        lines = "\n".join(f"- {_line(r, _reference_state(ref), lang)}" for r in these)
        parts.append(_closed(_group_summary(group, these, lang), lines))
    if left:
        parts.append(_left_line(left, lang))
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
    ref = next(r for r in these if r.reference)
    runs = [r for r in these if not r.reference and r.entry not in NOT_FIXES and r.right]
    if ref.refused and runs:  # nothing to time a fix against: which one runs, and right
        return t("fixes.group_refused", lang, group=name, fix=keyed("fix_entry.", runs[0].entry, lang))
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


def pool_lines(collections, code):
    """One line per collection: pooled, or left out and why (for the render's output)."""
    if not collections:
        return []
    kept, left = pool(checked(collections), code)
    return ([f"fixes: pooled {n} (host {host_of(c)})" for n, c in kept]
            + [f"fixes: left out {n}: other {w}: {d}" for n, w, d in left])
