"""One guarded call helper for every measurement: a backend that refuses or a shape that
does not fit becomes a row with its reason, and the run goes on."""
from __future__ import annotations

import time
import warnings
from contextlib import contextmanager


class Refused(Exception):
    """A measurement that could not run: .row is {"status": "oom"|"unsupported", "reason"}."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.row = {"status": status, "reason": reason}


def first_line(err):
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


@contextmanager
def guarded(torch):
    """Run the block; out of memory or a RuntimeError (a backend's refusal) raise Refused.

    The refusal's reason joins the warnings SDPA gave (why a backend said no) and the
    error's first line.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        except torch.cuda.OutOfMemoryError as err:
            raise Refused("oom", first_line(err)) from None
        except RuntimeError as err:
            why = list(dict.fromkeys(str(w.message).strip() for w in caught))
            raise Refused("unsupported", " | ".join(why + [first_line(err)])) from None


def sync(torch, device):
    if device == "cuda":
        torch.cuda.synchronize()


def free(torch, device):
    """Wait for the GPU and hand cached blocks back, so the next peak is this call's own."""
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def timed_call_ms(torch, device, call):
    """(result, milliseconds) of one synchronised call."""
    sync(torch, device)
    t0 = time.perf_counter()
    out = call()
    sync(torch, device)
    return out, (time.perf_counter() - t0) * 1e3


def peak_extra_mib(torch, device, call):
    """Memory one call allocates beyond what was allocated before it (None on the CPU)."""
    free(torch, device)
    if device != "cuda":
        call()
        return None
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    call()
    sync(torch, device)
    return (torch.cuda.max_memory_allocated() - base) / 2**20
