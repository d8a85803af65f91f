#!/usr/bin/env python3
"""Record real torch.profiler traces of a Llama-style transformers model: the corpus that
`build_tables.py --explain` is tested on (issue 21, item 7). Needs torch and transformers;
the weights are random (built from a LlamaConfig), so nothing is downloaded.

    python benchmarks/record_traces.py OUT_DIR                 # on a CUDA GPU (under 3 minutes on an H200)
    python benchmarks/record_traces.py OUT_DIR --device cpu    # smoke test: tiny model, CPU-only traces
    python benchmarks/record_traces.py OUT_DIR --only sdpa_infer,decode

Writes OUT_DIR/<case>.json.gz for every case that ran and OUT_DIR/manifest.json (versions,
GPU, the model's config, each case's status, size and seconds). Each case is trapped: one
that fails is printed with its error and the others still run; the exit status is 1 when
any failed (a case the device cannot run is skipped, not failed). Cut the traces down to
test fixtures with benchmarks/cut_trace.py:

    python benchmarks/cut_trace.py --all OUT_DIR tests/fixtures/corpus --steps 2 --steps decode=1
    python tests/expected_verdicts.py tests/fixtures/corpus --write

Each trace: torch.profiler with schedule(wait=1, warmup=1, active=3), record_shapes, CPU
and CUDA activities; every step is a ProfilerStep#N with record_function ranges inside it
(forward, backward, optimizer, loss_item, prefill, decode_token, stream_a/stream_b,
graph_replay, generate, attention). The cases after sdpa_compiled (issue 31) each show one
thing the diagnosis must name: a padded encoder's bool mask, a sliding window, GPT-2's eager
attention in float16 with a vocabulary of 50,257, GQA training in float16 with AdamW's
foreach=False, generate() with its KV cache, compiled FlexAttention with a score_mod, SDPA on
nested jagged tensors, in float64, with head dims 100 and 512, with an [L, L] bool causal
mask, with a learned bias in training, and a training step recorded with with_stack=True.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
import traceback
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

WAIT, WARMUP, ACTIVE = 1, 1, 3
STEPS = WAIT + WARMUP + ACTIVE
MAX_MB = 5.0  # a trace larger than this (gzipped) is reported: record fewer steps or a smaller model

GPU_SIZE = dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8, num_attention_heads=16,
                num_key_value_heads=4, vocab_size=8192, batch=4, seq=1024, decode_tokens=8,
                decode_prompt=256)
CPU_SIZE = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, vocab_size=256, batch=2, seq=32, decode_tokens=4,
                decode_prompt=16)


def build_model(size, attn, device, dtype, train=False):
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(hidden_size=size["hidden_size"], intermediate_size=size["intermediate_size"],
                         num_hidden_layers=size["num_hidden_layers"],
                         num_attention_heads=size["num_attention_heads"],
                         num_key_value_heads=size["num_key_value_heads"], vocab_size=size["vocab_size"],
                         max_position_embeddings=max(2048, size["seq"] * 2), attn_implementation=attn)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).to(device=device, dtype=dtype)
    model.train(train)
    return model


def tokens(size, device, length=None):
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, size["vocab_size"], (size["batch"], length or size["seq"]), generator=g)
    return ids.to(device)


class Skipped(Exception):
    """A case this device cannot run (CUDA graphs and streams on the CPU): not a failure."""


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


# --- the cases: each returns step(), run once per profiler step --------------------------

def case_infer(attn):
    def make(size, device, dtype):
        model, ids = build_model(size, attn, device, dtype), tokens(size, device)

        def step():
            with torch.no_grad(), record_function("forward"):
                model(input_ids=ids, use_cache=False)
        return step
    return make


def case_train(attn):
    def make(size, device, dtype):
        model, ids = build_model(size, attn, device, dtype, train=True), tokens(size, device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

        def step():
            with record_function("forward"):
                loss = model(input_ids=ids, labels=ids, use_cache=False).loss
            with record_function("backward"):
                loss.backward()
            with record_function("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            with record_function("loss_item"):
                loss.item()  # a .item(): the host waits for the GPU
        return step
    return make


def make_compiled(size, device, dtype):
    model, ids = build_model(size, "sdpa", device, dtype), tokens(size, device)
    compiled = torch.compile(model, dynamic=False)
    with torch.no_grad():
        compiled(input_ids=ids, use_cache=False)  # compile outside the profiled steps
        sync(device)

    def step():
        with torch.no_grad(), record_function("forward"):
            compiled(input_ids=ids, use_cache=False)
    return step


def make_cuda_graph(size, device, dtype):
    if device != "cuda":
        raise Skipped("CUDA graphs need a CUDA device")
    model, ids = build_model(size, "sdpa", device, dtype), tokens(size, device)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(3):
            model(input_ids=ids, use_cache=False)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph), torch.no_grad():
        model(input_ids=ids, use_cache=False)
    sync(device)

    def step():
        with record_function("graph_replay"):
            graph.replay()
    return step


def make_two_streams(size, device, dtype):
    """The model's forward on one stream while large matmuls run on another: they overlap."""
    if device != "cuda":
        raise Skipped("two streams need a CUDA device")
    model, ids = build_model(size, "sdpa", device, dtype), tokens(size, device)
    big = torch.randn(size["hidden_size"] * 8, size["hidden_size"] * 8, device=device, dtype=dtype)
    streams = torch.cuda.Stream(), torch.cuda.Stream()
    main = torch.cuda.current_stream()

    def step():
        with torch.no_grad():
            for stream in streams:
                stream.wait_stream(main)
            with torch.cuda.stream(streams[1]), record_function("stream_b"):
                for _ in range(4):
                    big @ big
            with torch.cuda.stream(streams[0]), record_function("stream_a"):
                model(input_ids=ids, use_cache=False)
            for stream in streams:
                main.wait_stream(stream)
    return step


def make_decode(size, device, dtype):
    model = build_model(size, "sdpa", device, dtype)
    prompt = tokens(size, device, size["decode_prompt"])

    def step():
        with torch.no_grad():
            with record_function("prefill"):
                out = model(input_ids=prompt, use_cache=True)
            past, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
            for _ in range(size["decode_tokens"]):
                with record_function("decode_token"):
                    out = model(input_ids=nxt, past_key_values=past, use_cache=True)
                    past, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
            nxt.cpu()  # the loop's result to the host: a device-to-host copy waits for the GPU
    return step


# --- cases for the diagnosis (issue 31): each shows one thing the first screen must name ---

def _sdpa_step(q, k, v, **kw):
    import torch.nn.functional as F

    def step():
        with torch.no_grad(), record_function("attention"):
            for _ in range(4):
                F.scaled_dot_product_attention(q, k, v, **kw)
    return step


def _qkv(device, dtype, batch=4, heads=16, seq=1024, head_dim=64, kv_heads=None, grad=False):
    g = torch.Generator(device=device).manual_seed(2)
    make = lambda h: torch.randn(batch, h, seq, head_dim, device=device, dtype=dtype, generator=g,  # noqa: E731
                                 requires_grad=grad)
    return make(heads), make(kv_heads or heads), make(kv_heads or heads)


def make_encoder_padded(size, device, dtype):
    """A BERT-style encoder on a padded batch: SDPA gets a bool padding mask [B, 1, L, L]."""
    from transformers import BertConfig, BertModel

    config = BertConfig(hidden_size=size["hidden_size"], intermediate_size=size["intermediate_size"],
                        num_hidden_layers=4, num_attention_heads=size["num_attention_heads"],
                        vocab_size=size["vocab_size"], max_position_embeddings=max(512, size["seq"]),
                        attn_implementation="sdpa")
    torch.manual_seed(0)
    model = BertModel(config).to(device=device, dtype=dtype).eval()
    seq = min(size["seq"], 512)
    ids = tokens(size, device, seq)
    mask = torch.ones_like(ids)
    mask[: size["batch"] // 2, seq // 2:] = 0  # half the batch padded to half its length

    def step():
        with torch.no_grad(), record_function("forward"):
            model(input_ids=ids, attention_mask=mask)
    return step


def make_sliding_window(size, device, dtype):
    """A Mistral-style decoder with a sliding window shorter than the sequence: the window mask
    is computed in full."""
    from transformers import MistralConfig, MistralForCausalLM

    config = MistralConfig(hidden_size=size["hidden_size"], intermediate_size=size["intermediate_size"],
                           num_hidden_layers=4, num_attention_heads=size["num_attention_heads"],
                           num_key_value_heads=size["num_key_value_heads"], vocab_size=size["vocab_size"],
                           sliding_window=max(8, size["seq"] // 4), max_position_embeddings=size["seq"] * 2,
                           attn_implementation="sdpa")
    torch.manual_seed(0)
    model = MistralForCausalLM(config).to(device=device, dtype=dtype).eval()
    ids = tokens(size, device)

    def step():
        with torch.no_grad(), record_function("forward"):
            model(input_ids=ids, use_cache=False)
    return step


def make_gpt2_eager_fp16(size, device, dtype):
    """GPT-2 with its eager attention in float16 and its vocabulary of 50,257 (not a multiple of 8)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    dtype = torch.float16 if device == "cuda" else dtype
    config = GPT2Config(n_embd=size["hidden_size"], n_layer=4, n_head=size["num_attention_heads"],
                        vocab_size=50257, n_positions=max(1024, size["seq"]), attn_implementation="eager")
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config).to(device=device, dtype=dtype).eval()
    ids = tokens(dict(size, vocab_size=50257), device, min(size["seq"], 512))

    def step():
        with torch.no_grad(), record_function("forward"):
            model(input_ids=ids, use_cache=False)
    return step


def make_gqa_train_fp16(size, device, dtype):
    """GQA training in float16 with an AdamW whose foreach=False: a loop over the parameters."""
    dtype = torch.float16 if device == "cuda" else dtype
    model, ids = build_model(size, "sdpa", device, dtype, train=True), tokens(size, device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False, eps=1e-4)

    def step():
        with record_function("forward"):
            loss = model(input_ids=ids, labels=ids, use_cache=False).loss
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
    return step


def make_generate(size, device, dtype):
    """transformers' generate() with its KV cache: one query per decoding step."""
    model = build_model(size, "sdpa", device, dtype)
    prompt = tokens(size, device, size["decode_prompt"])

    def step():
        with torch.no_grad(), record_function("generate"):
            model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), do_sample=False,
                           max_new_tokens=size["decode_tokens"], min_new_tokens=size["decode_tokens"],
                           pad_token_id=0)
    return step


def make_flex_score_mod(size, device, dtype):
    """Compiled FlexAttention with a score_mod (a relative-position bias)."""
    if device != "cuda":
        raise Skipped("compiled FlexAttention needs a CUDA device")
    from torch.nn.attention.flex_attention import flex_attention

    q, k, v = _qkv(device, dtype)
    flex = torch.compile(flex_attention, dynamic=False)
    rel = lambda score, b, h, q_idx, kv_idx: score + (q_idx - kv_idx) * 0.01  # noqa: E731
    flex(q, k, v, score_mod=rel)
    sync(device)

    def step():
        with torch.no_grad(), record_function("attention"):
            for _ in range(4):
                flex(q, k, v, score_mod=rel)
    return step


def make_sdpa_nested(size, device, dtype):
    """SDPA on nested jagged tensors: sequences of different lengths, no padding, no mask."""
    if device != "cuda":
        raise Skipped("nested jagged SDPA runs its fused kernels on a CUDA device")
    g = torch.Generator(device=device).manual_seed(3)
    heads, dim = 16, 64
    lengths = [size["seq"] // 4, size["seq"] // 2, size["seq"], size["seq"] // 8]
    parts = [torch.randn(n, heads, dim, device=device, dtype=dtype, generator=g) for n in lengths]
    nt = torch.nested.nested_tensor(parts, layout=torch.jagged).transpose(1, 2)
    return _sdpa_step(nt, nt, nt)


def make_sdpa_float64(size, device, dtype):
    """SDPA on float64 inputs: no fused backend takes them."""
    return _sdpa_step(*_qkv(device, torch.float64, batch=2, seq=min(size["seq"], 512)))


def make_head_dim_100(size, device, dtype):
    """SDPA with head dim 100: flash pads it to 104 first."""
    return _sdpa_step(*_qkv(device, dtype, head_dim=100), is_causal=True)


def make_head_dim_512(size, device, dtype):
    """SDPA with head dim 512: over flash's limit of 256."""
    return _sdpa_step(*_qkv(device, dtype, heads=4, head_dim=512, seq=min(size["seq"], 512)))


def make_bool_causal_mask(size, device, dtype):
    """SDPA with the causal triangle passed as an [L, L] bool mask instead of is_causal=True."""
    q, k, v = _qkv(device, dtype)
    mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device=device).tril()
    return _sdpa_step(q, k, v, attn_mask=mask)


def make_learned_bias_train(size, device, dtype):
    """Training with a learned additive bias passed as attn_mask: its gradient comes from the
    backward of the backend that takes it."""
    import torch.nn.functional as F

    q, k, v = _qkv(device, dtype, grad=True, seq=min(size["seq"], 512))
    bias = torch.zeros(1, q.shape[1], q.shape[2], k.shape[2], device=device, dtype=dtype, requires_grad=True)

    def step():
        with record_function("forward"):
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        with record_function("backward"):
            out.float().sum().backward()
    return step


def make_stacks_train(size, device, dtype):
    """sdpa_train recorded with with_stack=True: a large trace with Python stacks."""
    return case_train("sdpa")(size, device, dtype)


make_stacks_train.profile = {"with_stack": True}

CASES = {
    "eager_infer": case_infer("eager"),
    "sdpa_infer": case_infer("sdpa"),
    "eager_train": case_train("eager"),
    "sdpa_train": case_train("sdpa"),
    "decode": make_decode,
    "two_streams": make_two_streams,
    "cuda_graph": make_cuda_graph,
    "flex_infer": case_infer("flex_attention"),
    "sdpa_compiled": make_compiled,
    "encoder_padded": make_encoder_padded,
    "sliding_window": make_sliding_window,
    "gpt2_eager_fp16": make_gpt2_eager_fp16,
    "gqa_train_fp16": make_gqa_train_fp16,
    "generate": make_generate,
    "flex_score_mod": make_flex_score_mod,
    "sdpa_nested": make_sdpa_nested,
    "sdpa_float64": make_sdpa_float64,
    "head_dim_100": make_head_dim_100,
    "head_dim_512": make_head_dim_512,
    "bool_causal_mask": make_bool_causal_mask,
    "learned_bias_train": make_learned_bias_train,
    "stacks_train": make_stacks_train,
}


def record(name, make, size, device, dtype, out):
    """Build the case, run STEPS profiler steps, write out/<name>.json.gz; its figures."""
    started = time.perf_counter()
    step = make(size, device, dtype)
    step()  # the first call (allocations, cuDNN/cuBLAS plans) outside the profile
    sync(device)
    path = out / f"{name}.json.gz"
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    with profile(activities=activities, record_shapes=True, **getattr(make, "profile", {}),
                 schedule=schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE),
                 on_trace_ready=lambda p: p.export_chrome_trace(str(path))) as prof:
        for _ in range(STEPS):
            step()
            sync(device)  # each step ends with the GPU done: steps do not overlap
            prof.step()
    if not path.exists():
        raise RuntimeError("the profiler wrote no trace")
    mb = path.stat().st_size / 1e6
    return {"status": "ok", "mb": round(mb, 2), "seconds": round(time.perf_counter() - started, 1),
            "too_large": mb > MAX_MB}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="folder for the traces (made if missing)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--only", help="comma-separated case names (default: all): " + ", ".join(CASES))
    args = p.parse_args(argv)
    names = list(CASES) if not args.only else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in CASES]
    if unknown:
        p.error(f"unknown case(s): {', '.join(unknown)}; known: {', '.join(CASES)}")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("no CUDA GPU here; use --device cpu for the smoke test")
    size = GPU_SIZE if args.device == "cuda" else CPU_SIZE
    dtype = torch.bfloat16 if args.device == "cuda" else torch.float32
    try:
        import transformers
    except ImportError:
        p.error("transformers is not installed here (pip install transformers): the model comes from it")
    args.out.mkdir(parents=True, exist_ok=True)

    manifest = {"torch": torch.__version__, "transformers": transformers.__version__,
                "python": platform.python_version(), "device": args.device,
                "gpu": torch.cuda.get_device_name() if args.device == "cuda" else None,
                "dtype": str(dtype).removeprefix("torch."), "size": size,
                "schedule": {"wait": WAIT, "warmup": WARMUP, "active": ACTIVE}, "cases": {}}
    began = time.perf_counter()
    for name in names:
        print(f"{name} ...", flush=True)
        try:
            found = record(name, CASES[name], size, args.device, dtype, args.out)
            print(f"  ok: {found['mb']} MB in {found['seconds']} s"
                  + (f" (over {MAX_MB} MB)" if found["too_large"] else ""), flush=True)
        except Skipped as why:
            found = {"status": "skipped", "why": str(why)}
            print(f"  skipped: {why}", flush=True)
        except Exception as err:  # noqa: BLE001 - one failing case must not stop the others
            found = {"status": "failed", "error": f"{type(err).__name__}: {err}"[:500]}
            print(f"  FAILED: {found['error']}", flush=True)
            traceback.print_exc(limit=3, file=sys.stdout)
        manifest["cases"][name] = found
        if args.device == "cuda":
            torch.cuda.empty_cache()
    manifest["seconds"] = round(time.perf_counter() - began, 1)
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    failed = [n for n, c in manifest["cases"].items() if c["status"] == "failed"]
    print(f"done in {manifest['seconds']} s; traces in {args.out}/; "
          + (f"FAILED: {', '.join(failed)}" if failed else "no case failed"))
    return 1 if failed else 0


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sys.exit(main())
