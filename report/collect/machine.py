"""Which host and software a collection ran on: stable ids that name no one (sha256 of the
host name, the GPU's UUID and the boot id, cut to 12 hex digits), the CPU model, the GPU's
clocks read by nvidia-smi, and the versions that decide whether two collections may be
pooled (torch, CUDA, cuDNN, driver)."""
from __future__ import annotations

import datetime as _dt
import hashlib
import platform
import socket
import subprocess
from pathlib import Path

SMI_FIELDS = ("uuid", "driver_version", "clocks.sm", "clocks.mem", "clocks.max.sm",
              "temperature.gpu", "power.draw")


def _short_hash(text):
    return hashlib.sha256(text.encode()).hexdigest()[:12] if text else None


def _cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _boot_id():
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def smi():
    """nvidia-smi's reading of the first GPU, {field: text}; {} where it cannot be read."""
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(SMI_FIELDS)}",
                              "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return {}
    if out.returncode != 0 or not out.stdout.strip():
        return {}
    values = [v.strip() for v in out.stdout.strip().splitlines()[0].split(",")]
    return dict(zip(SMI_FIELDS, values, strict=False))


def clocks(reading):
    """The clocks and state a reading of smi() shows: SM and memory MHz, temperature, power."""
    return {k: reading.get(k) for k in ("clocks.sm", "clocks.mem", "clocks.max.sm", "temperature.gpu", "power.draw")}


def host_record(torch, reading):
    """The host and versions of this collection (reading: smi() at its start)."""
    props = torch.cuda.get_device_properties(0)
    cudnn = torch.backends.cudnn.version() or 0
    return {
        "host_id": _short_hash(socket.gethostname()),
        "gpu_uuid_id": _short_hash(reading.get("uuid", "")),
        "boot_id": _short_hash(_boot_id() or ""),
        "cpu_model": _cpu_model(),
        "cpu_count": __import__("os").cpu_count(),
        "gpu_name": props.name,
        "compute_capability": f"{props.major}.{props.minor}",
        "sm_count": props.multi_processor_count,
        "versions": {"torch": torch.__version__, "cuda": torch.version.cuda,
                     "cudnn": f"{cudnn // 10000}.{cudnn % 10000 // 100}.{cudnn % 100}" if cudnn else None,
                     "driver": reading.get("driver_version"), "python": platform.python_version()},
        "started": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
