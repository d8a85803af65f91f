"""Profile one attention forward pass the way the guide does, and print the profiler table.

Run on its own: ``python snippets/profile_attention.py`` profiles the hand-written
attention and SDPA on a small input (CPU or GPU) and writes their Chrome traces.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# --8<-- [start:profile]
import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule


def profile_forward(fn, *inputs, name="attention_fwd", steps=10, trace_path=None):
    """Profile `steps` forward passes of fn(*inputs), each in a record_function range.
    record_shapes=True keeps each op's input shapes, dtypes and strides in the trace: what
    the trace doctor reads its reasons off (why a call ran math, not a fused backend)."""
    activities = [ProfilerActivity.CPU]
    if torch.cuda.is_available():
        activities.append(ProfilerActivity.CUDA)
    with torch.no_grad():
        for _ in range(3):  # warm-up outside the profiler: allocator, cuBLAS, plans
            fn(*inputs)
        plan = schedule(wait=1, warmup=1, active=steps)
        with profile(activities=activities, schedule=plan, record_shapes=True) as prof:
            for _ in range(steps + 2):  # wait + warm-up steps first, then the active ones
                with record_function(name):
                    fn(*inputs)
                prof.step()
    if trace_path:
        prof.export_chrome_trace(trace_path)  # open it in https://ui.perfetto.dev
    return prof
# --8<-- [end:profile]


if __name__ == "__main__":
    # --8<-- [start:table]
    import torch
    from naive_attention import NaiveCausalAttention, make_inputs
    from profile_attention import profile_forward

    device = "cuda" if torch.cuda.is_available() else "cpu"
    q, k, v = make_inputs(batch=2, heads=4, seq_len=256, head_dim=64, device=device)
    naive = NaiveCausalAttention(seq_len=256, inplace=True).to(device)

    prof = profile_forward(naive, q, k, v, name="naive_fwd", trace_path="naive_trace.json")
    sort_by = "cuda_time_total" if device == "cuda" else "cpu_time_total"
    print(prof.key_averages().table(sort_by=sort_by, row_limit=12))
    # --8<-- [end:table]
