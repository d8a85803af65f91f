"""Issue 37, "Ask PyTorch why": for each condition of ask_conditions.py, what
torch.backends.cuda.can_use_{flash,efficient,cudnn}_attention(params, debug=True) answer
and say, the warnings and error of the call itself, and one small trace with shapes
(traces/ask-<id>.json.gz), kept whole: which backend SDPA then ran and its kernel time are
read off it later (report/derive/). results.json keeps it as "eligibility" (schema.py: Eligibility).

Every condition is guarded: one that fails records its error and the rest go on; a
condition that would start after BUDGET_S is recorded as not measured.
"""
from __future__ import annotations

import time
from pathlib import Path

from .ask_capture import can_use, heard, sdpa_params
from .ask_conditions import CONDITIONS, setting, shapes
from .ask_inputs import prepare
from .guard import first_line
from .provenance import cudnn_text
from .timing import keep_trace

STEPS = 5  # profiled steps per condition: a median, and a trace that stays small
WARM = 2  # calls after the first, before the profile
BUDGET_S = 90.0  # a condition that would start later is recorded as not measured
MAX_ERROR = 500  # characters of an error kept


def _error(err):
    """The first line of the error: of the deepest plain RuntimeError it was raised from or
    while handling (torch.compile wraps SDPA's refusal, "No available kernel...", in a
    TorchRuntimeError, "RuntimeError when making fake tensor call"), else its own, with
    its type unless it is a plain RuntimeError as SDPA's refusals are."""
    chain, seen = [err], {id(err)}
    while True:
        nxt = chain[-1].__cause__ or chain[-1].__context__
        if nxt is None or id(nxt) in seen:
            break
        chain.append(nxt)
        seen.add(id(nxt))
    plain = [e for e in chain if type(e) is RuntimeError]
    err = plain[-1] if plain else err
    text = first_line(err)
    text = text if type(err) is RuntimeError else f"{type(err).__name__}: {text}"
    return text[:MAX_ERROR]


def _answer(torch, fn):
    try:
        return bool(fn())
    except Exception:  # an older torch without the function, or one that raises
        return None


def versions(torch, device):
    """The software and GPU the answers came from (None where this device has none)."""
    cuda = device == "cuda"
    props = torch.cuda.get_device_properties(0) if cuda else None
    cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
    return {"torch": torch.__version__, "cuda": torch.version.cuda,
            "cudnn": cudnn_text(cudnn) if cudnn else None,
            "compute_capability": f"{props.major}.{props.minor}" if cuda else None,
            "gpu_name": props.name if cuda else None,
            "flash_built": _answer(torch, torch.backends.cuda.is_flash_attention_available),
            "cudnn_sdpa_enabled": _answer(torch, torch.backends.cuda.cudnn_sdp_enabled)}


def _sync(torch, device):
    if device == "cuda":
        torch.cuda.synchronize()


def _profile(torch, prep, name, path, device):
    """STEPS calls of the condition in a profile with shapes, after one step waited and one
    warm-up step (as snippets/profile_attention.py: profile_forward); the Chrome trace is
    exported to `path` (.json)."""
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with prep.pin(), torch.set_grad_enabled(prep.grad):
        for _ in range(WARM):
            prep.call()
        _sync(torch, device)
        with profile(activities=acts, record_shapes=True,
                     schedule=schedule(wait=1, warmup=1, active=STEPS)) as prof:
            for _ in range(STEPS + 2):
                with record_function(name):
                    prep.call()
                prof.step()
    prof.export_chrome_trace(str(path))


def _alignment(torch, out, qkv):
    """The proof of where a causal mask is aligned for one query: how far the output lies
    from the first key's value (top-left: the query sees key 0 alone) and from the
    output without a mask (bottom-right: it sees every key)."""
    import torch.nn.functional as F

    q, k, v = qkv
    with torch.no_grad():
        plain = F.scaled_dot_product_attention(q, k, v).float()
        got = out.float()
        return {"max_abs_diff_vs_first_value": float((got - v[..., :1, :].float()).abs().max()),
                "max_abs_diff_vs_not_causal": float((got - plain).abs().max())}


def _first_call(torch, row, cond, prep, device):
    """The first call: its warnings, its error; the decode check. True if it ran."""
    out = None
    with heard(descriptor=False) as said:
        try:
            with prep.pin(), torch.set_grad_enabled(prep.grad):
                out = prep.call()
            _sync(torch, device)
        except Exception as err:  # a refusal ("No available kernel..."), OOM, a compile error
            row["error"] = _error(err)
    row["call_warnings"] = said
    if out is not None and cond.check == "causal_alignment":
        try:
            row["check"] = _alignment(torch, out, prep.qkv)
        except Exception as err:
            row["check_error"] = _error(err)
    return out is not None


def _keep_trace(torch, row, cond, prep, trace_dir, device):
    """The condition's profile, kept whole as traces/ask-<id>.json.gz: which backend ran and
    its kernel time are report/derive/'s."""
    name = f"ask_{cond.id}"
    folder = Path(trace_dir) if trace_dir is not None else None
    if folder is None:
        return
    raw = folder / f"ask-{cond.id}.json"
    try:
        _profile(torch, prep, name, raw, device)
        keep_trace(raw)
    finally:  # a profile that failed half-way leaves no raw trace among the published ones
        raw.unlink(missing_ok=True)
    row["trace"], row["range"] = f"traces/ask-{cond.id}.json.gz", name


def measure_condition(torch, cond, shape, run_dtype, device, trace_dir):
    """One condition's row of "eligibility"."""
    row = {"id": cond.id, "shape": cond.shape, "fix": cond.fix,
           "setting": setting(cond, shape, run_dtype), "can_use": None,
           "call_warnings": [], "error": None, "trace": None, "check": None}
    try:
        prep = prepare(torch, cond, shape, run_dtype, device)
    except Exception as err:  # inputs that cannot be made (no nested tensors, out of memory)
        row["error"] = _error(err)
        return row
    if prep.params is None:
        row["can_use_error"] = prep.params_error
    else:
        try:
            row["can_use"] = can_use(torch, sdpa_params(torch, *prep.params))
        except Exception as err:
            row["can_use_error"] = _error(err)
    if _first_call(torch, row, cond, prep, device):
        try:
            _keep_trace(torch, row, cond, prep, trace_dir, device)
        except Exception as err:  # the answers and the first call stand
            row["profile_error"] = _error(err)
    return row


def _line(i, total, row, secs):
    said = row["error"] or "ran"
    ok = ",".join(b for b, a in (row["can_use"] or {}).items() if a["ok"]) or "-"
    return f"[{i}/{total}] {row['id']:<26} can use: {ok:<22} {said[:60]}  ({secs:.1f} s)"


def measure_eligibility(torch, args, progress=print, trace_dir=None, conditions=CONDITIONS):
    """results.json's "eligibility": versions, shapes and one row per condition; a phase
    that fails as a whole (it should not) is {"error": ...}, and the run goes on."""
    try:
        return _grid(torch, args, progress, trace_dir, conditions)
    except Exception as err:
        return {"error": _error(err)}


def _grid(torch, args, progress, trace_dir, conditions):
    device = args.device
    found = {"device": device, "versions": versions(torch, device), "shapes": shapes(args),
             "steps": STEPS, "budget_s": BUDGET_S, "conditions": []}
    started = time.perf_counter()
    for i, cond in enumerate(conditions, 1):
        t0 = time.perf_counter()
        if t0 - started > BUDGET_S:
            row = {"id": cond.id, "shape": cond.shape, "fix": cond.fix,
                   "setting": setting(cond, found["shapes"][cond.shape], args.dtype),
                   "error": f"not measured: the phase's {BUDGET_S:.0f} s were spent"}
        else:
            try:
                row = measure_condition(torch, cond, found["shapes"][cond.shape], args.dtype,
                                        device, trace_dir)
            except Exception as err:  # nothing of one condition stops the others
                row = {"id": cond.id, "shape": cond.shape, "fix": cond.fix, "error": _error(err)}
            if device == "cuda":
                torch.cuda.empty_cache()
        found["conditions"].append(row)
        progress(_line(i, len(conditions), {"can_use": None, **row}, time.perf_counter() - t0))
    found["seconds"] = round(time.perf_counter() - started, 2)
    return found
