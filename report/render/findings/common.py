"""Small lookups the findings share."""
from ...trace.stats import median
from ...variants import FUSED


def ok(results, name):
    """The variant's row if it ran and has GPU times, else None."""
    row = results["variants"].get(name)
    return row if row and row["status"] == "ok" and row.get("cuda_time_us") else None


def ran_fused(results):
    """The fused backends that ran and have GPU times, in FUSED's order."""
    return [n for n in FUSED if ok(results, n)]


def cuda(results, name):
    return median(results["variants"][name]["cuda_time_us"])


def compute_kernel(row):
    """The first real kernel of a variant (not a Memcpy or Memset)."""
    return next((k for k in row["kernels"] if k["kind"] == "kernel"), None)
