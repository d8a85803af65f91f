"""F.scaled_dot_product_attention, unpinned or pinned to one backend.

Run on its own: ``python snippets/sdpa_backends.py`` tries every backend on a small bf16
input and says which ones this machine supports.
"""

# --8<-- [start:sdpa]
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {
    "math": SDPBackend.MATH,
    "flash": SDPBackend.FLASH_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
    "cudnn": SDPBackend.CUDNN_ATTENTION,
}


def causal_sdpa(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)
# --8<-- [end:sdpa]


# --8<-- [start:pinned]
import warnings


def try_backends(q, k, v):
    """Causal SDPA pinned to each backend in turn: name -> output, or why it refused."""
    results = {}
    for name, backend in BACKENDS.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")  # PyTorch explains a refusal in warnings
            try:
                with sdpa_kernel(backend):  # only this backend may run in the block
                    results[name] = causal_sdpa(q, k, v)
            except RuntimeError as err:
                reasons = [str(w.message) for w in caught] or [str(err)]
                results[name] = "not supported: " + " | ".join(reasons)
    return results
# --8<-- [end:pinned]


if __name__ == "__main__":
    # --8<-- [start:which]
    import torch
    from naive_attention import make_inputs
    from sdpa_backends import try_backends

    device = "cuda" if torch.cuda.is_available() else "cpu"
    q, k, v = make_inputs(batch=2, heads=4, seq_len=256, device=device)  # bf16
    with torch.no_grad():
        for name, result in try_backends(q, k, v).items():
            if isinstance(result, torch.Tensor):
                print(f"{name:>9} on {device}: ok")
            else:
                print(f"{name:>9} on {device}: {result[:90]}")
    # --8<-- [end:which]
