"""The words of --explain's text that are NVIDIA's, and AMD's for a trace of PyTorch's ROCm
build, which the reader reads as it reads CUDA's (events.CAT_ALIASES).

    platform(categories, meta, calls)   "rocm" where the trace says it is from PyTorch's ROCm
                                        build (an AMD GPU), else "cuda"
    WORDS[platform][word]               the word the text prints
    unit(platform, compute_capability)  what deviceProperties' numSms counts: ("SM", "SMs"),
                                        ("CU", "CUs") or HIP's ("multiprocessor", ...)

What says a trace is ROCm's, each as Kineto writes it:
- its runtime calls are HIP's (hipLaunchKernel, hipExtModuleLaunchKernel, hipGraphLaunch,
  hipMemcpyWithStream, hipDeviceSynchronize ...), filed under cuda_runtime
  (libkineto/src/RocprofActivity.h, RuntimeActivity::name and type; the launches:
  libkineto/src/RocprofActivity_inl.h, RuntimeActivity<T>::flowStart; before rocprofiler-sdk,
  RoctracerActivity.h and RoctracerActivity_inl.h did the same);
- the versions at the top of the file (libkineto/src/RocmActivityProfiler.cpp,
  RocmActivityProfiler::logGpuVersions: hip_runtime_version, hip_driver_version,
  rocprofiler-sdk_version);
- deviceProperties with maxSharedMemoryPerMultiProcessor, which only a ROCm build writes
  (libkineto/src/DeviceProperties.cpp, visitDeviceMetadata, under HAS_ROCTRACER);
- the categories hip_runtime and hip_driver, as other writers name them.
A trace of NVIDIA's has none of these, so its text is the same as before any of this.

The AMD words and their sources:
- CU for SM: "The basic building block of a GPU is a compute unit (CU), also known as
  streaming multiprocessor (SM) on NVIDIA GPUs" (ROCm's HIP documentation, "Hardware
  implementation"). numSms is HIP's multiProcessorCount: "When the GPU works in Compute Unit
  (CU) mode, this value equals the number of CUs; when in Workgroup Processor (WGP) mode ...
  half of CUs" (HIP's hip_runtime_api.h, hipDeviceAttributeMultiprocessorCount). WGP mode is
  the default from gfx10 on (RDNA: HIP's compute capability 10 and up; the amdgpu driver's
  "GFX10 and up have work group processors (WGP)", and ROCm's answer in ROCm/TheRock
  discussion 8015), so there the text keeps HIP's own word, multiprocessors;
- wavefronts for warps: ROCm's glossary, "Wavefront (Warp)";
- a HIP graph for a CUDA graph: a ROCm build replays torch.cuda.CUDAGraph with
  hipGraphLaunch (Kineto's flowStart, above);
- RCCL for NCCL: "The ROCm Communication Collectives Library (RCCL)", which a ROCm build's
  "nccl" backend runs;
- no cuDNN attention: a ROCm build has none (aten/src/ATen/native/transformers/cuda/
  sdp_utils.cpp, can_use_cudnn_attention returns false under USE_ROCM), so the check names
  only the backends it has; its efficient backend is not xFormers' CUTLASS kernels, so no
  library is named;
- Kineto computes its "est. achieved occupancy %" only with CUPTI
  (libkineto/src/DeviceProperties.cpp, computeOccupancyMetrics, under HAS_CUPTI): on ROCm
  the text says nothing of Kineto's estimate or its rule where the trace has none;
- ProfilerActivity.CUDA is a ROCm build's GPU activity too (torch/csrc/autograd/init.cpp,
  _supported_activities: CUDA with roctracer as with CUPTI).
"""
from __future__ import annotations

ROCM_META = ("hip_runtime_version", "hip_driver_version", "rocprofiler-sdk_version")
ROCM_CATEGORIES = frozenset(("hip_runtime", "hip_driver"))

WORDS = {
    "cuda": {"warps": "warps", "graph": "a CUDA graph's replay", "graphs": "CUDA graphs", "collectives": "NCCL",
             "efficient": "efficient (memory-efficient, xFormers/CUTLASS)",
             "backends": "EFFICIENT_ATTENTION, CUDNN_ATTENTION", "gpu": "a CUDA GPU"},
    "rocm": {"warps": "wavefronts", "graph": "a HIP graph's replay", "graphs": "HIP graphs", "collectives": "RCCL",
             "efficient": "efficient (memory-efficient)",
             "backends": "EFFICIENT_ATTENTION", "gpu": "an AMD GPU"},
}


def platform(categories, meta, calls):
    """"rocm" where the trace's categories (as the file names them), its top-level fields or
    the names of its runtime calls (any iterable of names) say PyTorch's ROCm build wrote it."""
    if any(c.lower() in ROCM_CATEGORIES for c in categories) or any(k in meta for k in ROCM_META):
        return "rocm"
    listed = meta.get("deviceProperties")
    if isinstance(listed, list) and any(isinstance(p, dict) and "maxSharedMemoryPerMultiProcessor" in p
                                        for p in listed):
        return "rocm"
    return "rocm" if any(name.startswith("hip") for name in calls) else "cuda"


def unit(platform, compute_capability):
    """(one, many) of what numSms counts on the device: an SM, a CU, or where HIP's count may
    be of workgroup processors (compute capability 10 and up), HIP's multiprocessor."""
    if platform != "rocm":
        return "SM", "SMs"
    if compute_capability[0] < 10:
        return "CU", "CUs"
    return "multiprocessor", "multiprocessors"
