"""The program Nsight Compute profiles: one call of one variant, between
cudaProfilerStart and cudaProfilerStop, so `ncu --profile-from-start off` sees that call's
kernels only.  python -m report.measure.ncu_target NAME '{"batch": 8, ...}'"""
import json
import sys

import torch

from .callables import make_inputs, make_variant
from .guard import sync


def main(argv):
    name, cfg = argv[0], json.loads(argv[1])
    fn, ctx = make_variant(name, cfg, "cuda")
    q, k, v = make_inputs(cfg, getattr(torch, cfg["dtype"]), "cuda")
    with ctx(), torch.no_grad():
        for _ in range(3):  # plans, caches and lazy modules before the profiled call
            fn(q, k, v)
        sync(torch, "cuda")
        torch.cuda.cudart().cudaProfilerStart()
        fn(q, k, v)
        sync(torch, "cuda")
        torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main(sys.argv[1:])
