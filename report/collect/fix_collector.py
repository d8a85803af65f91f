"""Each refusal beside its own fix, at the same work (issue 52): for every condition of the
eligibility grid whose fix the pages name, the call as a user writes it (the reference) and
the fix written out, timed in paired interleaved blocks (measure/pairs.py: one block of each
entry per pair, order shuffled per pair, wall time per call: what a caller waits for, the
fix's own copies and casts inside the call), with the profiler's trace of one call and each
result's error against float64.

Raw only: the blocks, one call's trace as the profiler exports it, the errors, the first
call's wall time. Which kernels and runtime calls the call made, which backend ran, the
ratios and the verdicts are derived at render time (report/render/fixes.py, reading the
trace with report/trace/reading/, the one reader of the format).

The shape is the seed's (batch 8, 16 heads, 1,024 tokens, head dim 64, bfloat16, the ask's
shape), fixed here so that every collection of every host measures the same work.
"""
from __future__ import annotations

import gzip
import json
import math
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..measure.pairs import measure_group
from .machine import clocks, host_record, smi

PROTOCOL = 2  # bump when what a collection holds, or how it is measured, changes
# 2: one call's exported trace kept raw (no kernels read here), the call inside CALL_RANGE;
# the group pinned_flash_float32; the Inductor cache's files counted at the start
SHAPE = {"batch": 8, "heads": 16, "seq": 1024, "head_dim": 64, "dtype": "bfloat16"}
KV_HEADS = 4  # key/value heads of the grouped-query groups (as ask_conditions.GQA_KV_HEADS)
WINDOW = 256  # keys a query sees in the sliding-window group (itself and 255 before it)
PAIRS = 30  # blocks of each entry per group
SEED = 52  # inputs' generator: the same tensors on every host
ORDER_SEED = 29  # the block order's (measure/pairs.py SEED)
CALL_RANGE = "fixes: one call"  # the record_function range around the profiled call (not the sync after it)


@dataclass
class Entry:
    call: Callable[[], Any]
    pin: str | None = None  # a backend pinned around the call (sdpa_kernel)
    truth: Callable[[], Any] | None = None  # float64 result (None: the group's)
    view: Callable[[Any], Any] | None = None  # output -> the tensor compared with truth
    note: str = ""


@dataclass
class Group:
    id: str  # the eligibility condition it fixes (or a new one)
    reference: str
    entries: dict[str, Entry]
    truth: Callable[[], Any]
    work: dict[str, float] = field(default_factory=dict)  # entry -> its work over the reference's


def _pin(torch, name):
    import contextlib

    if name is None:
        return contextlib.nullcontext
    from torch.nn.attention import SDPBackend, sdpa_kernel

    backend = {"math": SDPBackend.MATH, "efficient": SDPBackend.EFFICIENT_ATTENTION,
               "flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[name]
    return lambda: sdpa_kernel(backend)


def _truth(torch, q, k, v, mask=None, is_causal=False, scale=None):
    """softmax(q kᵀ · scale + mask) v in float64, K/V heads repeated to q's."""
    q, k, v = (x.double() for x in (q, k, v))
    if k.shape[-3] != q.shape[-3]:
        r = q.shape[-3] // k.shape[-3]
        k, v = k.repeat_interleave(r, dim=-3), v.repeat_interleave(r, dim=-3)
    s = (q @ k.transpose(-1, -2)) * (scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
    if is_causal:
        n, m = s.shape[-2:]
        mask = torch.ones(n, m, dtype=torch.bool, device=q.device).tril()
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask.double()
    return torch.softmax(s, dim=-1) @ v


class Inputs:
    def __init__(self, torch, device):
        self.torch, self.device = torch, device
        self.gen = torch.Generator().manual_seed(SEED)

    def randn(self, shape, dtype="bfloat16"):
        t = self.torch
        return t.randn(shape, generator=self.gen, dtype=t.float32).to(self.device, getattr(t, dtype))

    def qkv(self, d=None, kv_heads=None, dtype=None):
        b, h, s = SHAPE["batch"], SHAPE["heads"], SHAPE["seq"]
        d, kv_heads, dtype = d or SHAPE["head_dim"], kv_heads or h, dtype or SHAPE["dtype"]
        kv = (b, kv_heads, s, d)
        return self.randn((b, h, s, d), dtype), self.randn(kv, dtype), self.randn(kv, dtype)


def _lengths():
    """Key lengths of the padding groups: half the sequence up to all of it, evenly (as
    measure/ask_inputs.py's)."""
    b, s = SHAPE["batch"], SHAPE["seq"]
    return [max(1, s // 2 + (s - s // 2) * i // (b - 1)) for i in range(b)]


def groups(torch, device):
    """The groups, each built on demand (one group's tensors at a time on the GPU)."""
    import torch.nn.functional as F

    sdpa = F.scaled_dot_product_attention
    inp = Inputs(torch, device)
    s, h = SHAPE["seq"], SHAPE["heads"]

    def head_dim_100():
        q, k, v = inp.qkv(d=100)

        def padded(n):
            qp, kp, vp = (F.pad(x, (0, n - 100)) for x in (q, k, v))
            return lambda: sdpa(qp, kp, vp, scale=1 / math.sqrt(100))[..., :100]

        def pad_each_call(n):
            return lambda: sdpa(*(F.pad(x, (0, n - 100)) for x in (q, k, v)), scale=1 / math.sqrt(100))[..., :100]
        return Group("head_dim_100", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v)),
            "pad_104": Entry(pad_each_call(104), note="F.pad to 104 in the call, sliced back"),
            "pad_128": Entry(pad_each_call(128), note="F.pad to 128 in the call, sliced back"),
            "padded_104": Entry(padded(104), note="inputs padded once, outside the call"),
        }, truth=lambda: _truth(torch, q, k, v), work={"pad_104": 1.04, "pad_128": 1.28, "padded_104": 1.04})

    def head_dim_512():
        q, k, v = inp.qkv(d=512)
        q64, k64, v64 = inp.qkv(d=64)
        return Group("head_dim_512", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v)),
            "math": Entry(lambda: sdpa(q, k, v), pin="math"),
            "d64": Entry(lambda: sdpa(q64, k64, v64), truth=lambda: _truth(torch, q64, k64, v64),
                         note="head dim 64: an eighth of the work"),
        }, truth=lambda: _truth(torch, q, k, v), work={"d64": 0.125})

    def float32():
        q, k, v = inp.qkv(dtype="float32")
        return Group("float32", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v)),
            "bf16": Entry(lambda: sdpa(q.bfloat16(), k.bfloat16(), v.bfloat16()).float(),
                          note="cast to bfloat16 in the call, result back to float32"),
        }, truth=lambda: _truth(torch, q, k, v))

    def pinned_flash_float32():
        q, k, v = inp.qkv(dtype="float32")
        return Group("pinned_flash_float32", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v), pin="flash", note="flash pinned: refused for float32"),
            "bf16": Entry(lambda: sdpa(q.bfloat16(), k.bfloat16(), v.bfloat16()).float(), pin="flash",
                          note="flash pinned, cast to bfloat16 in the call, result back to float32"),
        }, truth=lambda: _truth(torch, q, k, v))

    def float32_gqa():
        q, k, v = inp.qkv(kv_heads=KV_HEADS, dtype="float32")
        r = h // KV_HEADS
        return Group("float32_gqa", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v, enable_gqa=True)),
            "repeat_kv": Entry(lambda: sdpa(q, k.repeat_interleave(r, 1), v.repeat_interleave(r, 1)),
                               note="K/V repeated in the call"),
            "bf16": Entry(lambda: sdpa(q.bfloat16(), k.bfloat16(), v.bfloat16(), enable_gqa=True).float(),
                          note="cast to bfloat16 in the call, result back to float32"),
        }, truth=lambda: _truth(torch, q, k, v))

    def float_additive_mask():
        from torch.nn.attention.flex_attention import flex_attention

        q, k, v = inp.qkv()
        bias = inp.randn((1, h, s, s)) * 0.1
        b3 = bias[0]

        def score_mod(score, b, hh, qi, ki):
            return score + b3[hh, qi, ki]
        flex = torch.compile(flex_attention)
        return Group("float_additive_mask", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v, attn_mask=bias)),
            "flex_score_mod": Entry(lambda: flex(q, k, v, score_mod=score_mod),
                                    note="torch.compile(flex_attention), score_mod adds the same bias"),
        }, truth=lambda: _truth(torch, q, k, v, mask=bias))

    def sliding_window_mask():
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        q, k, v = inp.qkv()
        i = torch.arange(s, device=device)
        window = (i[:, None] >= i[None, :]) & (i[:, None] - i[None, :] < WINDOW)

        def mask_mod(b, hh, qi, ki):
            return (qi >= ki) & (qi - ki < WINDOW)
        block = create_block_mask(mask_mod, B=None, H=None, Q_LEN=s, KV_LEN=s, device=device)
        flex = torch.compile(flex_attention)
        return Group("sliding_window_mask", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v, attn_mask=window)),
            "flex_block_mask": Entry(lambda: flex(q, k, v, block_mask=block),
                                     note="block mask made once, outside the call"),
        }, truth=lambda: _truth(torch, q, k, v, mask=window))

    def _padding_mask():
        lengths = torch.tensor(_lengths(), device=device)
        return (torch.arange(s, device=device)[None, :] < lengths[:, None]).view(SHAPE["batch"], 1, 1, s)

    def gqa_padding_mask():
        q, k, v = inp.qkv(kv_heads=KV_HEADS)
        mask = _padding_mask()
        r = h // KV_HEADS
        return Group("gqa_padding_mask", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v, attn_mask=mask, enable_gqa=True)),
            "math": Entry(lambda: sdpa(q, k, v, attn_mask=mask, enable_gqa=True), pin="math",
                          note="pinned: what the default order picks where cuDNN is not tried first"),
            "repeat_kv": Entry(lambda: sdpa(q, k.repeat_interleave(r, 1), v.repeat_interleave(r, 1), attn_mask=mask),
                               note="K/V repeated in the call"),
        }, truth=lambda: _truth(torch, q, k, v, mask=mask))

    def last_dim_strided():
        q, k, v = (x.transpose(-1, -2).contiguous().transpose(-1, -2) for x in inp.qkv())
        return Group("last_dim_strided", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v)),
            "contiguous": Entry(lambda: sdpa(q.contiguous(), k.contiguous(), v.contiguous()),
                                note=".contiguous() in the call: its copies counted"),
        }, truth=lambda: _truth(torch, q, k, v))

    def five_d():
        q4, k4, v4 = inp.qkv()
        b, _, _, d = q4.shape
        q, k, v = (x.reshape(b, 2, h // 2, s, d) for x in (q4, k4, v4))
        return Group("five_d", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v)),
            "reshape_4d": Entry(lambda: sdpa(*(x.reshape(b, h, s, d) for x in (q, k, v))).reshape(b, 2, h // 2, s, d),
                                note="reshaped to [B, H, S, D] and back (views: no copy)"),
        }, truth=lambda: _truth(torch, q, k, v))

    def gqa_repeat_interleave():
        q, k, v = inp.qkv(kv_heads=KV_HEADS)
        r = h // KV_HEADS
        return Group("gqa_repeat_interleave", "repeat_kv", {
            "repeat_kv": Entry(lambda: sdpa(q, k.repeat_interleave(r, 1), v.repeat_interleave(r, 1)),
                               note="K/V repeated by hand in the call"),
            "enable_gqa": Entry(lambda: sdpa(q, k, v, enable_gqa=True)),
        }, truth=lambda: _truth(torch, q, k, v))

    def bool_padding_mask():
        lengths = _lengths()
        q, k, v = inp.qkv()
        mask = _padding_mask()

        def valid(x):  # [B, H, S, D] -> the valid tokens' rows, [H, sum(lengths), D]
            return torch.cat([x[i, :, :n] for i, n in enumerate(lengths)], dim=1)

        def nested(x):
            return torch.nested.nested_tensor([x[i, :, :n].transpose(0, 1) for i, n in enumerate(lengths)],
                                              layout=torch.jagged, device=device).transpose(1, 2)
        qn, kn, vn = nested(q), nested(k), nested(v)

        def truth():
            return torch.cat([_truth(torch, q[i:i + 1, :, :n], k[i:i + 1, :, :n], v[i:i + 1, :, :n])[0]
                              for i, n in enumerate(lengths)], dim=1)
        return Group("bool_padding_mask", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v, attn_mask=mask), view=valid),
            "nested_jagged": Entry(lambda: sdpa(qn, kn, vn),
                                   view=lambda o: torch.cat(o.transpose(1, 2).unbind(), dim=0).transpose(0, 1),
                                   note="inputs already nested (jagged): no padded tokens computed"),
        }, truth=truth)

    def causal_mask():
        q, k, v = inp.qkv()
        tril = torch.ones(s, s, dtype=torch.bool, device=device).tril()
        return Group("causal_mask", "sdpa", {
            "sdpa": Entry(lambda: sdpa(q, k, v, attn_mask=tril)),
            "is_causal": Entry(lambda: sdpa(q, k, v, is_causal=True)),
        }, truth=lambda: _truth(torch, q, k, v, is_causal=True))

    def mha_need_weights():
        import copy

        e = h * SHAPE["head_dim"]
        torch.manual_seed(SEED)
        mha = torch.nn.MultiheadAttention(e, h, batch_first=True, device=device, dtype=torch.bfloat16).eval()
        x = inp.randn((SHAPE["batch"], s, e))
        m64 = copy.deepcopy(mha).double()
        return Group("mha_need_weights", "need_weights", {
            "need_weights": Entry(lambda: mha(x, x, x, need_weights=True)[0]),
            "no_weights": Entry(lambda: mha(x, x, x, need_weights=False)[0]),
        }, truth=lambda: m64(x.double(), x.double(), x.double(), need_weights=False)[0])

    return [head_dim_100, head_dim_512, float32, pinned_flash_float32, float32_gqa, float_additive_mask,
            sliding_window_mask,
            gqa_padding_mask, last_dim_strided, five_d, gqa_repeat_interleave, bool_padding_mask,
            causal_mask, mha_need_weights]


NOT_KEPT = ("host_name", "traceName")  # the export's machine name and its temporary file's path


def _trace(torch, call, pin):
    """The profiler's trace of one call, as it exports it (its JSON, parsed; no event read
    here) but for NOT_KEPT (a collection names its host by ids that name no one, machine.py):
    the call inside the record_function range CALL_RANGE, the synchronisation that waits for
    its kernels after it. report/render/fixes.py reads it with report/trace/reading/."""
    from torch.profiler import ProfilerActivity, profile, record_function

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.json"
        with pin(), profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            with record_function(CALL_RANGE):
                call()
            torch.cuda.synchronize()
        prof.export_chrome_trace(str(path))
        exported = json.loads(path.read_text(encoding="utf-8"))
    return {k: v for k, v in exported.items() if k not in NOT_KEPT}


def _error(torch, out, truth):
    out, truth = out.double(), truth.double()
    if out.shape != truth.shape:
        return None
    return float(torch.linalg.vector_norm(out - truth) / torch.linalg.vector_norm(truth))


def _entry_facts(torch, g, name, e):
    """First call (wall ms; a torch.compile'd entry compiles in it), error against float64, the
    trace of one call; or the refusal."""
    pin = _pin(torch, e.pin)
    try:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        with pin():
            out = e.call()
        torch.cuda.synchronize()
        first_ms = (time.perf_counter() - t0) * 1e3
        truth = (e.truth or g.truth)()
        error = _error(torch, (e.view or (lambda o: o))(out), truth)
        del out, truth
        for _ in range(2):
            with pin():
                e.call()
        return {"first_call_ms": round(first_ms, 3), "error": error, "trace": _trace(torch, e.call, pin),
                "pin": e.pin, "note": e.note}
    except Exception as err:  # noqa: BLE001 - an entry that cannot run is recorded
        text = str(err).strip().splitlines()
        return {"refused": f"{type(err).__name__}: {text[0][:300] if text else ''}", "pin": e.pin, "note": e.note}


def collect_group(torch, make, pairs):
    try:
        g = make()
    except Exception as err:  # noqa: BLE001 - a group whose inputs cannot be made is recorded
        text = str(err).strip().splitlines()
        return {"refused": f"{type(err).__name__}: {text[0][:300] if text else ''}"}
    facts = {name: _entry_facts(torch, g, name, e) for name, e in g.entries.items()}
    runnable = {n: (e.call, _pin(torch, e.pin) if e.pin else None) for n, e in g.entries.items()
                if "refused" not in facts[n]}
    out = {"reference": g.reference, "work": g.work, "entries": facts}
    # where the call as written refuses (pinned_flash_float32), its fixes are timed on their
    # own, the first of them as the blocks' reference: a time per call, nothing to set it against
    yardstick = g.reference if g.reference in runnable else next(iter(runnable), None)
    if yardstick is not None and (len(runnable) > 1 or yardstick != g.reference):
        timed = measure_group(torch, "cuda", runnable, yardstick, "wall", pairs, f"{ORDER_SEED}-{g.id}")
        for n, blocks in timed["blocks_us"].items():
            facts[n]["blocks_us"] = [round(b, 4) for b in blocks]
            facts[n]["calls_per_block"] = timed["calls_per_block"][n]
        for n, why in timed["refused"].items():
            facts[n]["refused"] = why
    del g
    torch.cuda.empty_cache()
    return out


def inductor_cache_files(torch, most=100_000):
    """How many files Inductor's on-disk cache held before this collection compiled anything
    (TORCHINDUCTOR_CACHE_DIR, else torch's default_cache_dir in
    torch/_inductor/runtime/cache_dir_utils.py: <tempdir>/torchinductor_<user>), counted up to
    `most`; 0 where the folder does not exist, None where this torch does not say where it is.
    A torch.compile'd entry's first call compiles less where the cache holds its work."""
    try:
        from torch._inductor.runtime.cache_dir_utils import default_cache_dir
    except ImportError:
        return None
    n = 0
    for _, _, files in os.walk(os.environ.get("TORCHINDUCTOR_CACHE_DIR") or default_cache_dir()):
        n += len(files)
        if n >= most:
            return most
    return n


def collect(torch, identity, pairs=PAIRS, log=print):
    """One collection: every group, in this process."""
    if not torch.cuda.is_available():
        raise RuntimeError("--fixes measures on a CUDA GPU, and torch sees none")
    start = smi()
    record = {"protocol": PROTOCOL, "collector": "fixes", "identity": identity, "call_range": CALL_RANGE,
              "host": host_record(torch, start), "clocks_start": clocks(start),
              "inductor_cache_files": inductor_cache_files(torch),
              "shape": SHAPE, "kv_heads": KV_HEADS, "window": WINDOW, "pairs": pairs, "groups": {}}
    t0 = time.perf_counter()
    with torch.no_grad():  # inference, as the eligibility grid's calls (no input requires grad)
        for make in groups(torch, "cuda"):
            log(f"  fixes: {make.__name__}")
            record["groups"][make.__name__] = collect_group(torch, make, pairs)
    record["clocks_end"] = clocks(smi())
    record["seconds"] = round(time.perf_counter() - t0, 1)
    return record


def write(record, folder):
    """Write the collection as <folder>/<started>-<host>-<pid>.json.gz, atomically."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = record["host"]["started"].replace(":", "").replace("-", "")
    path = folder / f"{stamp}-{record['host']['host_id'] or 'host'}-{os.getpid()}.json.gz"
    tmp = path.with_name("." + path.name + ".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8", compresslevel=9) as f:
        json.dump(record, f, separators=(",", ":"), sort_keys=True)
    os.replace(tmp, path)
    return path
