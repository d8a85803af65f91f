"""Take the CPU off the critical path: capture one attention call in a CUDA graph.

Run on its own: ``python snippets/cuda_graphs.py`` compares wall time per call with and
without the graph (needs a CUDA GPU; on a CPU it says so).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# --8<-- [start:graph]
import torch


def capture(fn, *inputs):
    """Record fn(*inputs) once as a CUDA graph; return a function that replays it.

    Replaying launches every kernel of the call with one CPU call. The inputs are fixed:
    to run on new data, copy it into the same tensors first.
    """
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up off the default stream, as capture requires
        for _ in range(3):
            fn(*inputs)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        output = fn(*inputs)

    def replay():
        graph.replay()
        return output

    return replay
# --8<-- [end:graph]


if __name__ == "__main__":
    # --8<-- [start:compare]
    import torch
    from torch.utils.benchmark import Timer
    from cuda_graphs import capture
    from naive_attention import make_inputs
    from sdpa_backends import causal_sdpa

    if not torch.cuda.is_available():
        print("CUDA graphs need a CUDA GPU; nothing to compare on this machine")
    else:
        q, k, v = make_inputs(batch=1, heads=4, seq_len=256, head_dim=64)  # a small call
        with torch.no_grad():
            replay = capture(causal_sdpa, q, k, v)
            for name, stmt in [("eager", lambda: causal_sdpa(q, k, v)), ("graph", replay)]:
                m = Timer("stmt()", globals={"stmt": stmt}).blocked_autorange(min_run_time=0.2)
                print(f"{name}: {m.median * 1e6:.1f} us per call")
    # --8<-- [end:compare]
