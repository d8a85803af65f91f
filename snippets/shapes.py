"""Today's attention shapes: decode against a KV cache, a long prompt, grouped-query
attention and a sliding window.

Run on its own: ``python snippets/shapes.py`` checks each against attention written out
in float64 on a small input (CPU or GPU), and shows what ``is_causal=True`` does when the
query is shorter than the keys.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# --8<-- [start:inputs]
import torch


def check_heads(q, k, v):
    """How many query heads share one K/V head; ValueError for shapes attention cannot take."""
    if not (q.dim() == k.dim() == v.dim() == 4):
        raise ValueError("q, k and v must be 4-D: (batch, heads, length, head_dim)")
    (b, hq, lq, d), (bk, hk, lk, dk) = q.shape, k.shape
    if v.shape != k.shape:
        raise ValueError(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    if b != bk or d != dk:
        raise ValueError(f"q {tuple(q.shape)} and k {tuple(k.shape)} must agree on batch and head_dim")
    if hk == 0 or hq % hk:
        raise ValueError(f"{hq} query heads cannot share {hk} K/V heads evenly: the number of "
                         "query heads must be a multiple of the number of K/V heads")
    if lq > lk:
        raise ValueError(f"{lq} query tokens against {lk} keys: the new tokens are part of the "
                         "KV cache, so it holds at least as many keys as there are queries")
    return hq // hk


def make_cache_inputs(batch, q_heads, kv_heads, q_len, kv_len, head_dim,
                      dtype=torch.bfloat16, device="cuda", seed=0):
    """q: the newest q_len tokens, (batch, q_heads, q_len, head_dim); k, v: the KV cache,
    (batch, kv_heads, kv_len, head_dim), the newest tokens last."""
    sizes = dict(batch=batch, q_heads=q_heads, kv_heads=kv_heads, q_len=q_len,
                 kv_len=kv_len, head_dim=head_dim)
    bad = [f"{name}={value!r}" for name, value in sizes.items()
           if not isinstance(value, int) or isinstance(value, bool) or value < 1]
    if bad:
        raise ValueError(f"sizes must be whole numbers of at least 1: {', '.join(bad)}")
    gen = torch.Generator(device=device).manual_seed(seed)
    q = torch.randn(batch, q_heads, q_len, head_dim, generator=gen, device=device, dtype=dtype)
    k, v = (torch.randn(batch, kv_heads, kv_len, head_dim, generator=gen, device=device, dtype=dtype)
            for _ in range(2))
    check_heads(q, k, v)
    return q, k, v
# --8<-- [end:inputs]


# --8<-- [start:cache]
import torch.nn.functional as F
from torch.nn.attention.bias import causal_lower_right


def cache_attention(q, k, v):
    """Causal attention of the newest q_len tokens against a KV cache of kv_len keys.

    The mask is aligned to the lower right: the last query is the last key, so query i
    (of q_len) sees keys 0 .. kv_len - q_len + i. `is_causal=True` aligns it to the upper
    left instead, which is only the same when q_len == kv_len.
    """
    q_len, kv_len = q.size(-2), k.size(-2)
    # query heads that share K/V heads: SDPA maps them, no copy
    gqa = {"enable_gqa": True} if check_heads(q, k, v) > 1 else {}
    if q_len == kv_len:  # prefill: a square mask, where both alignments agree
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, **gqa)
    if q_len == 1:  # one new token sees the whole cache: no mask at all
        return F.scaled_dot_product_attention(q, k, v, **gqa)
    mask = causal_lower_right(q_len, kv_len)  # speculative decoding: a few new tokens
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **gqa)
# --8<-- [end:cache]


# --8<-- [start:repeat]
def repeat_kv(q, k, v):
    """K and V with each head copied for every query head that shares it: what
    `enable_gqa=True` saves. Then cache_attention sees as many K/V heads as query heads."""
    groups = check_heads(q, k, v)
    return k.repeat_interleave(groups, dim=-3), v.repeat_interleave(groups, dim=-3)
# --8<-- [end:repeat]


# --8<-- [start:sliding]
import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention


def sliding_window(window):
    """A causal mask that also forgets: a query sees itself and the window - 1 keys before it."""
    def mask_mod(batch, head, q_idx, kv_idx):
        return (q_idx >= kv_idx) & (q_idx - kv_idx < window)
    return mask_mod


def make_flex(mask_mod, seq_len, device, compile=True):
    """FlexAttention with this mask over a square seq_len × seq_len, and its block mask.

    The block mask lists which tiles of the score matrix hold any allowed pair: the
    kernel skips the others. Eager (compile=False) it materialises the scores instead.
    """
    block_mask = create_block_mask(mask_mod, B=None, H=None, Q_LEN=seq_len, KV_LEN=seq_len,
                                   device=device)
    attend = torch.compile(flex_attention, dynamic=False) if compile else flex_attention
    return (lambda q, k, v: attend(q, k, v, block_mask=block_mask)), block_mask
# --8<-- [end:sliding]

def reference(q, k, v, window=None):
    """Lower-right causal attention in float64, written out (and the window, if given)."""
    groups = q.size(-3) // k.size(-3)
    qd = q.double()
    kd, vd = (t.double().repeat_interleave(groups, dim=-3) for t in (k, v))
    q_len, kv_len = q.size(-2), k.size(-2)
    pos = torch.arange(q_len, device=q.device)[:, None] + (kv_len - q_len)  # each query's place
    seen = torch.arange(kv_len, device=q.device)[None, :] <= pos
    if window is not None:
        seen &= pos - torch.arange(kv_len, device=q.device)[None, :] < window
    scores = (qd @ kd.transpose(-2, -1)) / q.size(-1) ** 0.5
    return torch.softmax(scores.masked_fill(~seen, float("-inf")), dim=-1) @ vd


def _error(out, ref):
    return ((out.double() - ref).norm() / ref.norm()).item()


if __name__ == "__main__":
    # --8<-- [start:alignment]
    import torch
    import torch.nn.functional as F
    from shapes import cache_attention, make_cache_inputs

    # one new token against a cache of 6 keys
    q, k, v = make_cache_inputs(batch=1, q_heads=2, kv_heads=2, q_len=1, kv_len=6, head_dim=8,
                                dtype=torch.float64, device="cpu")
    top_left = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    print("is_causal=True sees key 0 only:", torch.allclose(top_left, v[:, :, :1]))
    weights = torch.softmax(q @ k.transpose(-2, -1) / 8 ** 0.5, dim=-1)  # every key
    print("cache_attention sees all 6 keys:", torch.allclose(cache_attention(q, k, v), weights @ v))
    # --8<-- [end:alignment]

    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    limit = 2e-2 if device == "cuda" else 1e-5
    with torch.no_grad():
        for q_len, kv_len, q_heads, kv_heads in [(1, 96, 4, 4), (4, 96, 4, 4), (4, 96, 8, 2),
                                                 (64, 64, 8, 1)]:
            q, k, v = make_cache_inputs(2, q_heads, kv_heads, q_len, kv_len, 32, dtype, device)
            ref = reference(q, k, v)
            err = _error(cache_attention(q, k, v), ref)
            err_rep = _error(cache_attention(q, *repeat_kv(q, k, v)), ref)
            print(f"q_len {q_len:>2}, kv_len {kv_len}, {q_heads} over {kv_heads} K/V heads on {device}: "
                  f"error {err:.1e}, repeated by hand {err_rep:.1e}, within {limit:.0e}: "
                  f"{max(err, err_rep) < limit}")
        q, k, v = make_cache_inputs(1, 2, 2, 128, 128, 32, dtype, device)
        attend, block_mask = make_flex(sliding_window(32), 128, device, compile=False)
        err = _error(attend(q, k, v), reference(q, k, v, window=32))
        print(f"sliding window 32 over 128 on {device}: error {err:.1e}, within {limit:.0e}: "
              f"{err < limit}")
