"""Findings of a fused backend's first call, taken apart (report/measure/first_calls.py):
in one process, and where the run has them, in fresh processes, one per round."""
from ...text.catalog import t
from ...text.format import fmt_num, fmt_us, fmt_us_range, fmt_us_sig
from ..extra_tables import fresh_rounds, us_range
from ..markdown import label
from .registry import finding

PAYS_AGAIN = 10  # a first call this many times the same call again: it built or loaded something


def _fresh_line(name, rounds, seq, lang):
    """The sentence for one backend measured in fresh processes."""
    ms = lambda key: fmt_us_range(us_range(rounds, key), lang)  # noqa: E731
    first, later = rounds[0], rounds[1:]
    pays = all(r["first_new_shape_ms"] > PAYS_AGAIN * r["new_shape_again_ms"] for r in rounds)
    line = t("finding.first_calls_fresh", lang, variant=label(name, lang), n=len(rounds),
             first=fmt_us_sig(first["first_call_ms"] * 1000, lang),
             later=fmt_us_range(us_range(later, "first_call_ms"), lang) if later else t("value.none", lang),
             again=ms("same_shape_again_ms"), seq=seq, new_first=ms("first_new_shape_ms"),
             new_again=ms("new_shape_again_ms"),
             verdict=t("finding.new_shape_pays" if pays else "finding.new_shape_cheap", lang))
    threads = [r for r in rounds if isinstance(r.get("new_thread_first_ms"), (int, float))]
    if threads:
        again = all(r["new_thread_first_ms"] > PAYS_AGAIN * r["same_shape_again_ms"] for r in threads)
        key = ("finding.new_thread_cheap" if not again else
               "finding.new_thread_pays_cudnn" if name == "cudnn" else "finding.new_thread_pays")
        line += " " + t(key, lang, thread=fmt_us_range(us_range(threads, "new_thread_first_ms"), lang))
    return line


@finding("findings-first-calls")
def first_calls(results, ref, lang):
    section = results.get("first_calls")
    lines = []
    for name, r in (section or {}).get("rows", {}).items():
        seq = fmt_num(section["new_shape"]["seq_len"], lang, 0)
        rounds = fresh_rounds(r)
        if rounds:
            lines.append(_fresh_line(name, rounds, seq, lang))
            continue
        if r.get("status") != "ok" or r.get("first_in_process_ms") is None:
            continue
        pays = r["first_new_shape_ms"] > PAYS_AGAIN * r["new_shape_again_ms"]
        ms = lambda key, r=r: fmt_us(r[key] * 1000, lang)  # noqa: E731
        lines.append(t("finding.first_calls", lang, variant=label(name, lang), first=ms("first_in_process_ms"),
                       again=ms("same_shape_again_ms"), seq=seq,
                       new_first=ms("first_new_shape_ms"), new_again=ms("new_shape_again_ms"),
                       verdict=t("finding.new_shape_pays" if pays else "finding.new_shape_cheap", lang)))
    return lines


@finding("findings-first-calls")
def first_calls_per_call(results, ref, lang):
    """The seed summary's "a new kernel for every call", against cuDNN's fresh processes:
    said to be once per shape only where, in every process, the same shape again cost less
    than a tenth of the first call and of a new shape's first call."""
    r = ((results.get("first_calls") or {}).get("rows") or {}).get("cudnn")
    rounds = fresh_rounds(r) if r else []
    if not rounds:
        return []
    ms = lambda key: fmt_us_range(us_range(rounds, key), lang)  # noqa: E731
    once = all(PAYS_AGAIN * x["same_shape_again_ms"] < min(x["first_call_ms"], x["first_new_shape_ms"]) for x in rounds)
    key = "finding.first_calls_per_shape" if once else "finding.first_calls_not_told"
    return [t(key, lang, n=len(rounds), again=ms("same_shape_again_ms"), first=ms("first_call_ms"),
              new_first=ms("first_new_shape_ms"))]
