"""The cases benchmarks/record_traces.py records: a Llama-style transformers model with
random weights (built from a LlamaConfig, nothing downloaded) in inference, training,
decoding, a CUDA graph, two streams and torch.compile, and the cases for the diagnosis
(issue 31), each showing one thing the first screen must name. Each case is a function
(size, device, dtype) -> step(), run once per profiler step; CASES names them.
"""
from __future__ import annotations

import torch
from torch.profiler import record_function

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


def forward_step(model, **inputs):
    """step(): one forward pass without gradients in a "forward" range."""
    def step():
        with torch.no_grad(), record_function("forward"):
            model(**inputs)
    return step


def train_step(model, ids, opt, item=False):
    """step(): forward, backward and the optimizer, each in its range; with item, the loss
    read back with .item() (the host waits for the GPU) in a "loss_item" range."""
    def step():
        with record_function("forward"):
            loss = model(input_ids=ids, labels=ids, use_cache=False).loss
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        if item:
            with record_function("loss_item"):
                loss.item()  # a .item(): the host waits for the GPU
    return step


class Skipped(Exception):
    """A case this device cannot run (CUDA graphs and streams on the CPU): not a failure."""


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


# --- the cases: each returns step(), run once per profiler step --------------------------

def case_infer(attn):
    def make(size, device, dtype):
        model, ids = build_model(size, attn, device, dtype), tokens(size, device)

        return forward_step(model, input_ids=ids, use_cache=False)
    return make


def case_train(attn):
    def make(size, device, dtype):
        model, ids = build_model(size, attn, device, dtype, train=True), tokens(size, device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

        return train_step(model, ids, opt, item=True)
    return make


def make_compiled(size, device, dtype):
    model, ids = build_model(size, "sdpa", device, dtype), tokens(size, device)
    compiled = torch.compile(model, dynamic=False)
    with torch.no_grad():
        compiled(input_ids=ids, use_cache=False)  # compile outside the profiled steps
        sync(device)

    return forward_step(compiled, input_ids=ids, use_cache=False)


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

    return forward_step(model, input_ids=ids, attention_mask=mask)


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

    return forward_step(model, input_ids=ids, use_cache=False)


def make_gpt2_eager_fp16(size, device, dtype):
    """GPT-2 with its eager attention in float16 and its vocabulary of 50,257 (not a multiple of 8)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    dtype = torch.float16 if device == "cuda" else dtype
    config = GPT2Config(n_embd=size["hidden_size"], n_layer=4, n_head=size["num_attention_heads"],
                        vocab_size=50257, n_positions=max(1024, size["seq"]), attn_implementation="eager")
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config).to(device=device, dtype=dtype).eval()
    ids = tokens(dict(size, vocab_size=50257), device, min(size["seq"], 512))

    return forward_step(model, input_ids=ids, use_cache=False)


def make_gqa_train_fp16(size, device, dtype):
    """GQA training in float16 with an AdamW whose foreach=False: a loop over the parameters."""
    dtype = torch.float16 if device == "cuda" else dtype
    model, ids = build_model(size, "sdpa", device, dtype, train=True), tokens(size, device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False, eps=1e-4)

    return train_step(model, ids, opt)


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
