"""What a GPU activity is called and what it belongs to."""

# the Kineto categories of GPU activities, each with the kind a kernel row gives it
KINDS = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
GPU_CATS = tuple(KINDS)
LAUNCH_CATS = ("cuda_runtime", "cuda_driver")
# the calls that replay a captured graph: every kernel of the replay carries the launch's
# correlation id (CUPTI gives a graph's kernels the cudaGraphLaunch's; Kineto built with
# CUDA 12 adds "graph id" and "graph node id" to them: libkineto/src/CuptiActivity.cpp,
# getGraphNodeMetadata); a ROCm build replays with hipGraphLaunch (explain_words.py)
GRAPH_LAUNCHES = frozenset(("cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch"))


def kernel_kind(event):
    """The kind of a GPU activity (an Event of reading/events.py) a kernel row gives it."""
    return KINDS[event.cat]


def short_kernel_name(name):
    """'void at::native::(anonymous namespace)::foo<float, 4>(...)' -> 'at::native::foo'."""
    name = name.replace("(anonymous namespace)::", "")
    if name.startswith("void "):
        name = name[5:]
    depth, out = 0, []
    for ch in name:
        if ch in "<(":
            if depth == 0 and ch == "(" and out:
                break
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).strip() or name


def backend_of_kernels(names):
    """Which SDPA backend ran, read off the kernel names of one forward pass."""
    joined = " ".join(names).lower()
    if "cudnn" in joined or "_sdpa_sm" in joined:
        return "cudnn"
    if "fmha_cutlass" in joined or "attention_kernel" in joined or "efficient" in joined:
        return "efficient"
    if "flash" in joined:
        return "flash"
    return "math"
