"""What a run ran on: GPU, driver, CUDA, cuDNN, torch, date, command, code hashes."""
from __future__ import annotations

import datetime as _dt
import platform
import re
import shlex
import subprocess

from ..results import code_hashes, snippet_hashes


def gpu_slug(name):
    slug = re.sub(r"^nvidia\s+", "", name.strip(), flags=re.I).lower()
    slug = re.sub(r"[^a-z0-9]+", "-", slug).strip("-")
    return slug or "gpu"


def driver_version():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, IndexError):
        return None


def cudnn_text(v):
    return (f"{v // 10000}.{v % 10000 // 100}.{v % 100}" if v >= 9000
            else f"{v // 1000}.{v % 1000 // 100}.{v % 100}")


def provenance(torch, device, argv):
    prov = {
        "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
        "command": "python build_tables.py" + "".join(" " + shlex.quote(a) for a in argv),
        "torch": torch.__version__, "python": platform.python_version(),
        "snippet_sha256": snippet_hashes(), "code_sha256": code_hashes(),
        "cpu_threads": torch.get_num_threads(),
    }
    if device == "cuda":
        props = torch.cuda.get_device_properties(0)
        prov.update(gpu_name=props.name, compute_capability=f"{props.major}.{props.minor}",
                    sm_count=props.multi_processor_count, cuda=torch.version.cuda,
                    cudnn=cudnn_text(torch.backends.cudnn.version() or 0),
                    driver=driver_version(), gpu_memory_gib=round(props.total_memory / 2**30, 1),
                    regs_per_sm=props.regs_per_multiprocessor,
                    max_warps_per_sm=props.max_threads_per_multi_processor // props.warp_size,
                    smem_per_block=props.shared_memory_per_block,
                    smem_per_block_optin=props.shared_memory_per_block_optin)
    else:
        prov.update(gpu_name=f"CPU ({platform.processor() or platform.machine()})")
    return prov
