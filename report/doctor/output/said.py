"""The rules' facts in words: every sentence is a key of one catalog per language
(words_en.py, words_nb.py); this module picks the key each fact's case calls for and fills
it, numbers written as the language writes them (shown/numbers.py). Standard library only.

    LANGS                   the languages: en (the default), nb
    say(key, lang, **v)     one sentence of the catalog, filled
    finding(f, lang)        (title, evidence, remedy, source) of a Finding's fact
    call_why(told, lang)    why a group of SDPA calls ran its backend (rules/call_why.CallWhy)
    fix(key, lang)          what to change, by rules/why.py's fix key
    warnings(told, lang)    the group's correctness warnings, one line each
    inputs(x, lang)         a group's recorded inputs (model/sdpa_inputs.Inputs) in a few words
    call_line(...)          a group of calls: how many ran which backend, on what inputs, why
    range_why(why, lang)    a range's verdict's reason (explain.py's (case, figures))
    pace(p, lang)           the first screen's pace line's evidence
    attention_note(k, lang) the first screen's note on attention, by its key
"""
from __future__ import annotations

from ..model.result_types import QUEUE_US, WHOLE_TRACE
from ..rules import facts as F
from ..shown.numbers import count, local, pct, sig_us, us
from ..shown.safe import shown
from . import words_en, words_nb

CATALOGS = {"en": words_en.SENTENCES, "nb": words_nb.SENTENCES}
LANGS = tuple(CATALOGS)


def _plural(value, arg, lang):
    one, _, many = arg.partition("|")
    return f"{count(value, lang)} {one if value == 1 else many}"


# a list (a shape, strides) of more items is written as its first four, how many more and its
# last three: a made-up shape of 100,000 dims printed 1.2 MB
MAX_LISTED = 8


def _list(value, arg, lang):
    value = tuple(value)
    if len(value) > MAX_LISTED:
        value = (*value[:4], say("list.more", lang, n=len(value) - 7), *value[-3:])
    return ", ".join(map(str, value))


def _word(value, arg, lang):
    one, _, many = arg.partition("|")
    return one if value == 1 else many


# a placeholder's spec: name -> function(value, argument, lang) -> text
SPECS = {
    "us": lambda v, a, lang: sig_us(v, lang),
    "us1": lambda v, a, lang: us(v, lang),
    "pct0": lambda v, a, lang: pct(100 * v, 0, lang),
    "pct1": lambda v, a, lang: pct(100 * v, 1, lang),
    "percent0": lambda v, a, lang: pct(v, 0, lang),  # a value already in percent
    "percent1": lambda v, a, lang: pct(v, 1, lang),
    "count": lambda v, a, lang: count(v, lang),
    "plural": _plural,
    "word": _word,
    "list": _list,
    "join": lambda v, a, lang: a.join(map(str, v)),
    "dims": lambda v, a, lang: "×".join(map(str, v or [1])),
}
WIDTHS = ("us", "us1", "pct0", "pct1", "percent0", "percent1")  # the specs whose argument is a width


class _Value:
    """A placeholder's value in `lang`: str.format hands it its spec (SPECS, or Python's own)."""
    __slots__ = ("value", "lang")

    def __init__(self, value, lang):
        self.value, self.lang = value, lang

    def __format__(self, spec):
        value, lang = self.value, self.lang
        name, _, arg = spec.partition(":")
        if name in SPECS:
            text = SPECS[name](value, "" if name in WIDTHS else arg, lang)
            return format(text, arg) if name in WIDTHS and arg else text
        text = format(value, spec)
        return local(text, lang) if spec and isinstance(value, (int, float)) else text


def say(key, lang="en", **values):
    return CATALOGS[lang][key].format_map({k: _Value(v, lang) for k, v in values.items()})


def fix(key, lang="en"):
    return say(f"fix.{key}", lang)


def verdict(name, lang="en"):
    return say(f"verdict.{name}", lang)


def backend_name(backend, platform, lang="en"):
    """A backend's name in the text; "efficient" as the platform's build has it."""
    if backend == "efficient":
        return say(f"backend.efficient.{platform}", lang)
    key = f"backend.{backend}"
    return say(key, lang) if key in CATALOGS[lang] else backend


# ------------------------------------------------------------------ why a group of calls ran its backend

def _reason(r, lang):
    v = r.values
    if r.key == "not_first":
        return say("reason.not_first." + ("one" if len(v["free"]) == 1 else "many"), lang, ran=v["ran"],
                   free=v["free"], order=v["order"], assumed=say(f"order.{v['assumed']}", lang))
    return say(f"reason.{r.case}", lang, **v)


def _line(r, lang):
    line = say("why.line", lang, backends="/".join(r.backends), check=r.check, evidence=_reason(r, lang))
    if "table" in r.values:  # the recorded condition that fails the same check (rules/call_why.py)
        cid, no, yes = r.values["table"]
        line += "; " + say("why.evidence_yes" if yes else "why.evidence_no", lang, condition=cid, no=no, yes=yes)
    return line


def call_why(told, lang="en"):
    """Why the group ran its backend: PyTorch's recorded answer first where the table has it,
    else the checks the inputs fail, else why none needed to."""
    speed, asked = told.speed, told.asked
    if asked:
        pinned = [r for r in speed if r.key == "pinned"]  # said first: it is why this backend ran
        parts = [_reason(pinned[0], lang) if pinned else
                 say("why.asked", lang, by=asked["by"], ran=asked["ran"], condition=asked["condition"])]
        said = "; ".join(f"{b}: {' '.join(words).rstrip('.') or say('why.said_no', lang)}"
                         for b, words in asked["said"].items())
        if said:
            parts.append(say("why.it_said", lang, said=said))
        if asked["fix"] and asked["fix"]["ran"]:
            parts.append(say("why.fixed", lang, condition=asked["fix"]["condition"], ran=asked["fix"]["ran"]))
        if told.shown:
            parts.append(say("why.trace_shows", lang, lines="; ".join(_line(r, lang) for r in told.shown)))
        return "; ".join(parts)
    if speed:
        lines = "; ".join(_line(r, lang) for r in speed)
        if told.table:
            return say("why.rule_no_match", lang, lines=lines)
        if told.other_gpus:
            if told.cc is None:
                return say("why.rule_no_gpu", lang, lines=lines)
            return say("why.rule_other_gpu", lang, lines=lines, cc=f"{told.cc[0]}.{told.cc[1]}", theirs=told.other_gpus)
        return say("why.rule_no_table", lang, lines=lines)
    if told.ran == told.first and len(told.firsts) < 2:
        return say("why.first", lang, ran=told.ran)
    return say("why.first_either" if told.ran in told.firsts else "why.no_check", lang, ran=told.ran)


def remedy(told, lang="en"):
    """What to change for the group: its first fix, or None."""
    fixes = told.fixes
    return fix(fixes[0], lang) if fixes else None


def warnings(told, lang="en"):
    return [say("why.warning", lang, evidence=_reason(r, lang), fix=fix(r.fix, lang)) for r in told.warnings]


def call_line(calls, backend, x, told, lang="en"):
    """A group of calls with equal inputs: the backend it ran (its name as the caller has it),
    its inputs, and why (told: a CallWhy, or None where the trace cannot say)."""
    v = dict(calls=calls, backend=backend, inputs=inputs(x, lang))
    return say("call.ran_why", lang, why=call_why(told, lang), **v) if told else say("call.ran", lang, **v)


MAX_DTYPE = 40  # a dtype's name from the trace, clipped


def inputs(x, lang="en"):
    if x.malformed:
        what, which = x.malformed
        return say(f"inputs.malformed.{what}", lang, which=which)
    flags = [f"is_causal={x.is_causal}"] if x.is_causal is not None else []
    if x.dropout:
        flags.append(say("inputs.dropout", lang, p=x.dropout))
    if x.enable_gqa:
        flags.append("enable_gqa=True")
    v = dict(dtype=shown(x.dtype, MAX_DTYPE), q=x.query, k=x.key)
    head = (say("inputs.mask", lang, mask_dtype=shown(x.mask_dtype, MAX_DTYPE), mask=x.mask, **v)
            if x.mask is not None else say("inputs.no_mask", lang, **v))
    return head + (f", {', '.join(flags)}" if flags else "")


# ------------------------------------------------------------------ the pace and a range's verdict

def range_why(why, lang="en"):
    case, v = why
    names = {"busy_share": "busy", "host_share": "host", "delay_us": "delay", "other_share": "other",
             "overhead_us": "overhead"}
    return say(f"why.{case}", lang, **{names.get(k, k): x for k, x in v.items()})


def queued(p):
    """Whether the launches queue ahead of the GPU: the range rule's median launch delay of
    QUEUE_US or more (model/result_types.py), the one test the head and the evidence share."""
    return p.paced_by == "gpu" and p.launch_delay_us is not None and p.launch_delay_us >= QUEUE_US


def pace_head(p, lang="en"):
    """The first screen's first line: what paces the scope, and the verdict. Paced by the GPU
    with no queue (a short launch delay): the GPU is busy, not behind the host."""
    if not p.scope:
        return say("pace.head.no_scope", lang)
    key = "gpu_busy" if p.paced_by == "gpu" and not queued(p) else p.paced_by
    scope = say("range.whole_trace", lang) if p.scope == WHOLE_TRACE else p.scope
    return say(f"pace.head.{key}", lang, verdict=verdict(p.verdict, lang), scope=scope)


def pace(p, lang="en"):
    """The pace line's evidence: its figures, "; "-joined."""
    if p.case == "no_range":
        return say("pace.no_range", lang)
    if p.case == "cpu_only":
        return say("why.cpu_only", lang)
    launches = p.launches_per_range
    parts = [say("pace.busy", lang, share=p.busy_share), say("pace.host_wait", lang, share=p.host_wait_share),
             say("pace.launches", lang, n=launches) if p.activities_per_range == launches else
             say("pace.launches_activities", lang, n=launches, activities=p.activities_per_range)]
    kernel, delay = p.median_kernel_us, p.launch_delay_us
    if kernel is not None:
        parts.append(say("pace.kernel", lang, us=kernel))
    if delay is not None:
        parts.append(say("pace.delay", lang, us=delay))
        if queued(p) and kernel:
            # HTA reports the queue length per stream; here its estimate: the delay over the median kernel,
            # at least the one kernel a launch that waits is queued behind
            parts.append(say("pace.queued", lang, n=max(1.0, delay / kernel)))
    if p.profiler_us:
        parts.append(say("pace.profiler", lang, us=p.profiler_us))
    if p.with_stack:
        parts.append(say("pace.with_stack", lang))
    return "; ".join(parts)


def attention_note(key, lang="en"):
    return say(f"note.{key}", lang) if key else None


# ------------------------------------------------------------------ the findings

def _launch_bound(f, lang):
    v = dict(launches=f.launches_per_range, kernel=f.median_kernel_us, gap=f.median_gap_us, busy=f.busy_share,
             delay=f.launch_delay_us, decode=f.decode_calls)
    if f.graphs_per_range is not None:
        key = "launch_bound.remedy_replayed_copies" if f.copies_outside else "launch_bound.remedy_replayed"
        remedy = say(key, lang, per=f.graphs_per_range, other=f.other_launches_per_range)
    else:
        remedy = say("launch_bound.remedy_decode" if f.decode_calls else "launch_bound.remedy", lang)
    return (say("launch_bound.title", lang),
            say("launch_bound.evidence_decode" if f.decode_calls else "launch_bound.evidence", lang, **v),
            remedy, say("launch_bound.source", lang))


def _host_work(f, lang):
    v = dict(waits=f.waits, gap=f.median_gap_us, over=f.over_us, longest=f.longest_us)
    evidence = (say("host_work.evidence_op", lang, launch=f.launch, op=f.op, **v) if f.op else
                say("host_work.evidence", lang, kernel=f.kernel, **v))
    return (say("host_work.title", lang), evidence, say("host_work.remedy", lang), say("host_work.source", lang))


def _optimizer(f, lang):
    return (say("optimizer.title", lang, name=f.name), say("optimizer.evidence", lang, launches=f.launches),
            say("optimizer.remedy", lang), say("optimizer.source", lang))


def _hand(f, lang):
    key = "hand.evidence" + ("_copies" if f.copies else "") + ("_mha" if f.need_weights else "")
    remedy = fix("need_weights_false", lang) if f.need_weights else say("hand.remedy", lang)
    if f.copies:
        remedy = say("hand.copy_stays", lang, remedy=remedy)
    return (say("hand.title_mha" if f.need_weights else "hand.title", lang),
            say(key, lang, chains=f.chains, copies=f.copies, mha=f.need_weights), remedy, say("hand.source", lang))


def _native(f, lang):
    return (say("native_weights.title", lang), say("native_weights.evidence", lang, calls=f.calls),
            fix("need_weights_false", lang), say("native_weights.source", lang))


def _fast_path(f, lang):
    return (say("fast_path.title_layer" if f.encoder_layer else "fast_path.title", lang),
            say("fast_path.evidence", lang, calls=f.calls, layer=f.encoder_layer), say("fast_path.remedy", lang),
            say("fast_path.source", lang))


def _bool_mask(f, lang):
    window = say("bool_mask.remedy_other", lang)
    remedy = window if f.pattern == "other" else say(f"bool_mask.remedy_{f.pattern}", lang, window=window)
    return (say("bool_mask.title", lang), say("bool_mask.evidence", lang, calls=f.calls, mask=f.mask, time=f.time_us),
            remedy, say("bool_mask.source", lang))


def _head_dim(f, lang):
    hd = f.head_dim
    up, down = hd + (-hd) % 8, hd - hd % 8
    return (say("head_dim.title", lang, head_dim=hd),
            say("head_dim.evidence", lang, calls=f.calls, up=up, time=f.time_us),
            say("head_dim.remedy", lang, down=down, up=up) if down else
            say("head_dim.remedy_up", lang, head_dim=hd, up=up), say("head_dim.source", lang))


def _math(f, lang):
    told = f.why
    return (say("math.title", lang),
            call_why(told, lang) if told else say("math.evidence_unrecorded", lang),
            (told and remedy(told, lang)) or say("math.remedy_check", lang), say("math.source", lang))


def _slow(f, lang):
    return say("slow.title", lang), call_why(f.why, lang), remedy(f.why, lang), say("slow.source", lang)


def _host_sync(f, lang):
    return (say("host_sync.title", lang, by=f.by), say("host_sync.evidence", lang, by=f.by, per=f.per_range_us),
            say("host_sync.remedy", lang, by=f.by), say("host_sync.source", lang))


def _step_sync(f, lang):
    return (say("step_sync.title", lang, by=f.by), say("step_sync.evidence", lang, by=f.by, wait=f.wait_us,
                                                          gap=f.gap_us),
            say("step_sync.remedy", lang, by=f.by), say("step_sync.source", lang))


def _bias(f, lang):
    return (say("bias.title", lang), say("bias.evidence", lang, calls=f.calls), say("bias.remedy", lang),
            say("bias.source", lang))


def _comm(f, lang):
    kinds = ", ".join(k.replace("_", "-") for k in f.collectives) or say("comm.collectives", lang)
    first = f.collectives[0] if f.collectives else None
    if first == "all_reduce" and f.fsdp and not f.ddp:
        first = "reduce_scatter"
    key = f"comm.remedy.{first}"
    return (say("comm.title", lang, stream=f.stream),
            say("comm.evidence", lang, kinds=kinds, device=f.device, stream=f.stream, comm=f.comm_us, share=f.share,
                overlap=f.overlap_share),
            say(key if key in CATALOGS[lang] else "comm.remedy.other", lang), say("comm.source", lang))


def _pace_only(f, lang):
    source = say("pace_only.source", lang)
    if f.paced_by == "gpu":
        how = "" if f.queued else "_busy"  # the launches queue ahead of the GPU, or it is busy without a queue
        evidence = (say(f"pace_only.gpu.evidence_top{how}", lang, kernel=f.top_kernel, share=f.top_share)
                    if f.top_kernel else say(f"pace_only.gpu.evidence{how}", lang))
        return say("pace_only.gpu.title", lang), evidence, say("pace_only.gpu.remedy", lang), source
    if f.paced_by == "waiting":
        return (say("pace_only.waiting.title", lang), say("pace_only.waiting.evidence", lang,
                                                          share=f.other_idle_share or 0),
                say("pace_only.waiting.remedy", lang), source)
    if f.graphs_replay:
        return (say("pace_only.graphs.title", lang), say("pace_only.graphs.evidence", lang),
                say("pace_only.graphs.remedy", lang), say("pace_only.graphs.source", lang))
    evidence = (say("pace_only.host.evidence", lang) if f.median_gap_us is None else
                say("pace_only.host.evidence_few", lang, gap=f.median_gap_us, launches=f.launches_per_range,
                    kernel=f.median_kernel_us) if f.few_or_long else
                say("pace_only.host.evidence_gap", lang, gap=f.median_gap_us))
    return say("pace_only.host.title", lang), evidence, say("pace_only.host.remedy", lang), source


def _gemm(f, lang):
    if not f.dims:
        return (say("gemm.title_unrecorded", lang), say("gemm.evidence_unrecorded", lang, kernel=f.kernel,
                                                        tags=f.alignments),
                say("gemm.remedy_unrecorded", lang), say("gemm.source_unrecorded", lang))
    sizes = ", ".join(local(f"{n:,}", lang) for n in f.unaligned)
    pads = ", ".join(say("gemm.pad", lang, size=n, padded=n + (-n) % 64) for n in f.unaligned[:3])
    return (say("gemm.title", lang, sizes=sizes),
            say("gemm.evidence", lang, kernel=f.kernel, tags=f.alignments, op=f.op,
                shapes="; ".join("×".join(map(str, d)) for d in f.dims)),
            say("gemm.remedy", lang, pads=pads), say("gemm.source", lang))


def _repeated_kv(f, lang):
    v = dict(calls=f.calls, repeats=f.repeats, op=f.op)
    evidence = (say("repeat_kv.evidence_heads", lang, q=f.q_heads, **v) if f.q_heads else
                say("repeat_kv.evidence", lang, **v))
    return (say("repeat_kv.title", lang), evidence, say("repeat_kv.remedy", lang), say("repeat_kv.source", lang))


WORDERS = {F.LaunchBound: _launch_bound, F.HostWork: _host_work, F.OptimizerLoop: _optimizer, F.HandWritten: _hand,
           F.NativeWeights: _native, F.BoolMask: _bool_mask, F.HeadDim: _head_dim, F.MathFallback: _math,
           F.SlowBackend: _slow, F.HostSync: _host_sync, F.BiasInTraining: _bias, F.ExposedComm: _comm,
           F.PaceOnly: _pace_only, F.GemmAlignment: _gemm, F.RepeatedKV: _repeated_kv,
           F.FastPathMask: _fast_path, F.StepSync: _step_sync}


def finding(f, lang="en"):
    """(title, evidence, remedy, source) of a Finding (its fact, rules/facts.py)."""
    worder = WORDERS.get(type(f.fact))
    if worder is None:
        raise TypeError(f"no words for {type(f.fact).__name__}")
    return worder(f.fact, lang)
