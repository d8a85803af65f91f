"""Beyond the seed's shape, for build_tables.py: sweeps, launch overhead, backward, figures.

Imported by build_tables.py (``--sweep``, ``--overhead``, ``--backward``, ``--all``); the
measured code comes from snippets/ like everything else. Each measurement goes into its own
section of results.json; the renderers below turn a section into tables and SVG figures in
both languages, and run without a GPU (``--render-only``).
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

SWEEP_SEQ_LENS = (256, 512, 1024, 2048, 4096, 8192, 16384)
SWEEP_HEAD_DIMS = (64, 128)
SMALL_SHAPE = {"batch": 1, "heads": 16, "seq_len": 256, "head_dim": 64}
BACKWARD_VARIANTS = ("naive", "math", "flash", "efficient", "cudnn", "auto")
EXTRA_SNIPPETS = ("cuda_graphs.py", "training_step.py", "flex_attention.py")


def _free(torch, device):
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


def _oom_types(torch):
    return (torch.cuda.OutOfMemoryError,)


def _summary(bt, trace_path, name, device, cuda_time="gpu_range"):
    """The figures a sweep point, an overhead row or a training row keeps from one trace."""
    import json

    a = bt.analyze_trace(json.loads(Path(trace_path).read_text()), name, cuda_time=cuda_time)
    if device != "cuda":  # no GPU in this run: the GPU-side figures do not exist
        a.update(kernel_sum_us=None, gpu_activities_per_forward=None)
    keep = ("name", "short_name", "kind", "aten_op", "per_forward", "avg_us")
    return {k: a[k] for k in ("cuda_time_us", "kernel_sum_us", "cpu_time_us",
                              "gpu_activities_per_forward")} | {
        "kernels": [{f: k[f] for f in keep} for k in a["kernels"]]}


def _profile_cuda_time(bt, fn, inputs, name, steps, torch, device):
    """CUDA time (GPU range), kernel sum, CPU time and kernel count from a short profile."""
    from profile_attention import profile_forward

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        profile_forward(fn, *inputs, name=name, steps=steps, trace_path=str(path))
        return _summary(bt, path, name, device)


def _wall_us(fn, seconds):
    from torch.utils.benchmark import Timer

    m = Timer(stmt="fn()", globals={"fn": fn}).blocked_autorange(min_run_time=seconds)
    return {"median": m.median * 1e6, "iqr": m.iqr * 1e6, "runs": len(m.times)}


def measure_sweep(bt, args, torch, progress):
    """Every variant over sequence lengths and head dimensions; OOM and refusals recorded."""
    from naive_attention import make_inputs

    device, dtype = args.device, getattr(torch, args.dtype)
    seq_lens = [s for s in SWEEP_SEQ_LENS if s <= args.sweep_max_seq]
    points = []
    for head_dim in SWEEP_HEAD_DIMS:
        for seq_len in seq_lens:
            _free(torch, device)
            cfg = {"batch": args.batch, "heads": args.heads, "seq_len": seq_len, "head_dim": head_dim}
            try:
                q, k, v = make_inputs(args.batch, args.heads, seq_len, head_dim, dtype=dtype,
                                      device=device)
            except _oom_types(torch) as err:
                points += [{"variant": n, **cfg, "status": "oom", "reason": str(err).splitlines()[0]}
                           for n in args.variants]
                continue
            for name in args.variants:
                point = {"variant": name, **cfg}
                point.update(_measure_point(bt, name, cfg, q, k, v, args, torch))
                points.append(point)
                shown = point["status"]
                if point["status"] == "ok":
                    shown = f"{(point['cuda_time_us'] or point['cpu_time_us'])['median']:10.1f} us"
                progress(f"  sweep d={head_dim:<3} S={seq_len:<5} {name:<14} {shown}")
            del q, k, v
    _free(torch, device)
    return {"batch": args.batch, "heads": args.heads, "dtype": args.dtype, "seq_lens": seq_lens,
            "head_dims": list(SWEEP_HEAD_DIMS), "steps": args.sweep_steps, "points": points}


def _measure_point(bt, name, cfg, q, k, v, args, torch):
    device = args.device
    fn, ctx = bt.make_variant(name, cfg, device, torch)
    try:
        with ctx(), torch.no_grad():
            import warnings

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    fn(q, k, v)
                except RuntimeError as err:
                    if isinstance(err, _oom_types(torch)):
                        raise
                    why = list(dict.fromkeys(str(w.message).strip() for w in caught))
                    return {"status": "unsupported",
                            "reason": " | ".join(why + [str(err).strip().splitlines()[0]])}
            _free(torch, device)
            base = torch.cuda.memory_allocated() if device == "cuda" else 0
            if device == "cuda":
                torch.cuda.reset_peak_memory_stats()
            fn(q, k, v)
            bt.sync(torch, device)
            peak = (torch.cuda.max_memory_allocated() - base) / 2**20 if device == "cuda" else None
            wall = _wall_us(lambda: fn(q, k, v), args.sweep_timer_seconds)
            prof = _profile_cuda_time(bt, fn, (q, k, v), f"{name}_fwd", args.sweep_steps, torch,
                                      device)
    except _oom_types(torch) as err:
        _free(torch, device)
        return {"status": "oom", "reason": str(err).splitlines()[0]}
    finally:
        _free(torch, device)
    timing = prof["kernel_sum_us"] or prof["cpu_time_us"]  # GPU work; small shapes wait on the CPU
    flops = bt.causal_flops({**cfg})
    return {"status": "ok", "cuda_time_us": prof["cuda_time_us"], "cpu_time_us": prof["cpu_time_us"],
            "kernel_sum_us": prof["kernel_sum_us"], "wall_time_us": wall, "peak_extra_mib": peak,
            "tflops": flops / (timing["median"] * 1e-6) / 1e12}


def measure_overhead(bt, args, torch, progress):
    """Wall time per call against kernel time, eager and replayed from a CUDA graph."""
    from cuda_graphs import capture
    from naive_attention import make_inputs

    device, dtype = args.device, getattr(torch, args.dtype)
    shapes = {"seed": {"batch": args.batch, "heads": args.heads, "seq_len": args.seq_len,
                       "head_dim": args.head_dim}, "small": dict(SMALL_SHAPE)}
    out = {"shapes": shapes, "rows": {}}
    for shape_name, cfg in shapes.items():
        q, k, v = make_inputs(cfg["batch"], cfg["heads"], cfg["seq_len"], cfg["head_dim"],
                              dtype=dtype, device=device)
        for name in args.variants:
            _free(torch, device)
            fn, ctx = bt.make_variant(name, cfg, device, torch)
            row = {}
            try:
                with ctx(), torch.no_grad():
                    fn(q, k, v)
                    prof = _profile_cuda_time(bt, fn, (q, k, v), f"{name}_fwd", 20, torch, device)
                    row["kernel_sum_us"] = prof["kernel_sum_us"]
                    row["cuda_time_us"] = prof["cuda_time_us"]
                    row["cpu_time_us"] = prof["cpu_time_us"]
                    row["eager_wall_us"] = _wall_us(lambda: fn(q, k, v), args.timer_seconds)
                    try:
                        replay = capture(fn, q, k, v)
                        row["graph_wall_us"] = _wall_us(replay, args.timer_seconds)
                    except (RuntimeError, AssertionError) as err:
                        row["graph_error"] = str(err).strip().splitlines()[0][:300]
                row["status"] = "ok"
            except _oom_types(torch) as err:
                row = {"status": "oom", "reason": str(err).splitlines()[0]}
            except RuntimeError as err:
                row = {"status": "unsupported", "reason": str(err).strip().splitlines()[0]}
            out["rows"].setdefault(shape_name, {})[name] = row
            if row["status"] == "ok":
                g = row.get("graph_wall_us", {}).get("median", float("nan"))
                progress(f"  overhead {shape_name:<5} {name:<14} kernels "
                         f"{row['kernel_sum_us']['median']:9.1f} us  eager "
                         f"{row['eager_wall_us']['median']:9.1f} us  graph {g:9.1f} us")
        del q, k, v
    _free(torch, device)
    return out


def measure_backward(bt, args, torch, progress):
    """Forward + backward at the seed's shape: times, kernels per step, peak memory."""
    from naive_attention import make_inputs
    from training_step import training_step

    device, dtype = args.device, getattr(torch, args.dtype)
    cfg = {"batch": args.batch, "heads": args.heads, "seq_len": args.seq_len, "head_dim": args.head_dim}
    q, k, v = (t.requires_grad_() for t in make_inputs(
        args.batch, args.heads, args.seq_len, args.head_dim, dtype=dtype, device=device))
    grad = torch.randn_like(q)
    rows = {}
    for name in [n for n in BACKWARD_VARIANTS if n in args.variants]:
        _free(torch, device)
        fn, ctx = bt.make_variant(name, cfg, device, torch)
        step = lambda: training_step(fn, q, k, v, grad)  # noqa: E731
        try:
            with ctx():
                t0 = time.perf_counter()
                step()
                bt.sync(torch, device)
                first = (time.perf_counter() - t0) * 1e3
                _free(torch, device)
                base = torch.cuda.memory_allocated() if device == "cuda" else 0
                if device == "cuda":
                    torch.cuda.reset_peak_memory_stats()
                step()
                bt.sync(torch, device)
                peak = (torch.cuda.max_memory_allocated() - base) / 2**20 if device == "cuda" else None
                wall = _wall_us(step, args.timer_seconds)
                prof = _profile_train(bt, step, f"{name}_train", torch, device)
            rows[name] = {"status": "ok", "first_call_ms": first, "peak_extra_mib": peak,
                          "wall_time_us": wall, **prof}
            timing = prof["cuda_time_us"] or prof["cpu_time_us"]
            progress(f"  backward {name:<14} {timing['median']:9.1f} us per step")
        except _oom_types(torch) as err:
            rows[name] = {"status": "oom", "reason": str(err).splitlines()[0]}
        except RuntimeError as err:
            rows[name] = {"status": "unsupported", "reason": str(err).strip().splitlines()[0]}
    del q, k, v, grad
    _free(torch, device)
    return {"config": cfg, "rows": rows}


def _profile_train(bt, step, name, torch, device):
    """Profile training steps (autograd on, so not through profile_forward's no_grad)."""
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    for _ in range(3):
        step()
    with tempfile.TemporaryDirectory() as tmp:
        with profile(activities=acts, schedule=schedule(wait=1, warmup=1, active=10)) as prof:
            for _ in range(12):
                with record_function(name):
                    step()
                prof.step()
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        return _summary(bt, path, name, device, cuda_time="kernel_span")


# ----------------------------------------------------------------------------
# Rendering
# ----------------------------------------------------------------------------

TEXT = {
    "seq": {"nb": "Sekvenslengde", "en": "Sequence length"},
    "time_axis": {"nb": "Kjernetid per forward-pass (µs)", "en": "Kernel time per forward pass (µs)"},
    "mem_axis": {"nb": "Ekstra minne, topp (MiB)", "en": "Peak extra memory (MiB)"},
    "time_title": {"nb": "Hodedimensjon {d}: kjernetid", "en": "Head dimension {d}: kernel time"},
    "mem_title": {"nb": "Hodedimensjon {d}: minne", "en": "Head dimension {d}: memory"},
    "bars_axis": {"nb": "Tid per forward-pass (µs)", "en": "Time per forward pass (µs)"},
    "bars_title": {"nb": "CUDA-tid og CPU-tid, {gpu}", "en": "CUDA time and CPU time, {gpu}"},
    "eager": {"nb": "Veggtid, vanlig kall", "en": "Wall time, eager call"},
    "graph": {"nb": "Veggtid, CUDA-graf", "en": "Wall time, CUDA graph"},
    "vs_best": {"nb": "Graf mot beste kjernetid", "en": "Graph vs best kernel time"},
    "graph_failed": {"nb": "kunne ikke fanges", "en": "could not be captured"},
    "shape_seed": {"nb": "Formen fra originalstudien (batch {batch}, {heads} hoder, sekvens {seq_len}, "
                         "hodedimensjon {head_dim})",
                   "en": "The original study's shape (batch {batch}, {heads} heads, sequence {seq_len}, "
                         "head dimension {head_dim})"},
    "shape_small": {"nb": "Liten form (batch {batch}, {heads} hoder, sekvens {seq_len}, hodedimensjon {head_dim})",
                    "en": "A small shape (batch {batch}, {heads} heads, sequence {seq_len}, head dimension {head_dim})"},
    "train_time": {"nb": "CUDA-tid, forward + backward", "en": "CUDA time, forward + backward"},
    "train_kernels": {"nb": "GPU-aktiviteter per steg", "en": "GPU activities per step"},
    "sweep_caption": {"nb": "Batch {batch}, {heads} hoder, {dtype}, kausal, forward-pass, {steps} "
                            "profilerte steg per punkt. Tid er summen av kjernetidene per forward-pass "
                            "(ved korte sekvenser venter GPU-en ellers på CPU-en mellom kjernene).",
                      "en": "Batch {batch}, {heads} heads, {dtype}, causal, forward pass, {steps} profiled "
                            "steps per point. Time is the sum of kernel times per forward pass (at short "
                            "sequences the GPU would otherwise be waiting for the CPU between kernels)."},
}


def point_time(bt, p):
    """A sweep point's time: the sum of its kernel times (the CPU range without a GPU)."""
    return bt.med(p.get("kernel_sum_us")) or bt.med(p["cpu_time_us"])


def sweep_table(bt, sweep, lang, head_dim, what):
    t = lambda key: bt.TEXT[key][lang]  # noqa: E731
    seqs = sweep["seq_lens"]
    cell = {}
    for p in sweep["points"]:
        if p["head_dim"] != head_dim:
            continue
        if p["status"] != "ok":
            text = {"oom": t("oom"), "unsupported": t("not_supported")}.get(p["status"], t("error"))
        elif what == "time":
            text = bt.fmt_us(point_time(bt, p), lang)
        elif what == "memory":
            text = (f"{bt.fmt_num(p['peak_extra_mib'], lang, 0)} MiB"
                    if p.get("peak_extra_mib") is not None else t("none"))
        else:
            text = bt.fmt_tflops(p["tflops"], lang)
        cell[(p["variant"], p["seq_len"])] = text
    names = list(dict.fromkeys(p["variant"] for p in sweep["points"]))
    rows = [[bt.VARIANT_LABELS[n][lang]] + [cell.get((n, s), t("none")) for s in seqs] for n in names]
    return bt.md_table([t("variant")] + [bt.fmt_num(s, lang, 0) for s in seqs], rows)


def overhead_table(bt, overhead, lang, shape_name):
    t = lambda key: bt.TEXT[key][lang]  # noqa: E731
    rows_in = overhead["rows"][shape_name]
    best = min((bt.med(r["kernel_sum_us"]) for r in rows_in.values() if r["status"] == "ok"),
               default=None)
    rows = []
    for name, r in rows_in.items():
        label = bt.VARIANT_LABELS[name][lang]
        if r["status"] != "ok":
            rows.append([label, bt.status_text(r, lang)] + [t("none")] * 4)
            continue
        graph = r.get("graph_wall_us")
        rows.append([label, bt.fmt_us(bt.med(r["kernel_sum_us"]), lang),
                     bt.fmt_us(bt.med(r["cpu_time_us"]), lang),
                     bt.fmt_us(r["eager_wall_us"]["median"], lang),
                     bt.fmt_us(graph["median"], lang) if graph else TEXT["graph_failed"][lang],
                     bt.fmt_pct(100 * graph["median"] / best, lang, 0) if graph and best else t("none")])
    headers = [t("variant"), bt.TEXT["kernel_sum"][lang], bt.TEXT["cpu_time"][lang], TEXT["eager"][lang],
               TEXT["graph"][lang], TEXT["vs_best"][lang]]
    return bt.md_table(headers, rows)


def backward_table(bt, backward, lang):
    t = lambda key: bt.TEXT[key][lang]  # noqa: E731
    rows = []
    for name, r in backward["rows"].items():
        label = bt.VARIANT_LABELS[name][lang]
        if r["status"] != "ok":
            rows.append([label, bt.status_text(r, lang)] + [t("none")] * 4)
            continue
        mem = r.get("peak_extra_mib")
        rows.append([label, bt.fmt_us(bt.med(r["cuda_time_us"]), lang),
                     bt.fmt_us(r["wall_time_us"]["median"], lang),
                     bt.fmt_num(bt.med(r["gpu_activities_per_forward"]), lang, 0)
                     if r.get("gpu_activities_per_forward") else t("none"),
                     f"{bt.fmt_num(mem, lang, 0)} MiB" if mem is not None else t("none"),
                     bt.fmt_us(r["first_call_ms"] * 1000, lang)])
    headers = [t("variant"), TEXT["train_time"][lang], t("wall"), TEXT["train_kernels"][lang],
               t("peak_mem"), t("first_call")]
    return bt.md_table(headers, rows)


FINDINGS = {
    "oom": {"nb": "{variant} går tom for minne ved sekvenslengde {seq} (hodedimensjon {d}); ved "
                  "{prev} brukte den {mem} ekstra.",
            "en": "{variant} runs out of memory at sequence length {seq} (head dimension {d}); at "
                  "{prev} it used {mem} extra."},
    "oom_nomem": {"nb": "{variant} går tom for minne ved sekvenslengde {seq} (hodedimensjon {d}); "
                        "siste som fikk plass var {prev}.",
                  "en": "{variant} runs out of memory at sequence length {seq} (head dimension {d}); "
                        "the last that fitted was {prev}."},
    "fits_all": {"nb": "{variants} kjørte på alle sekvenslengdene opp til {seq}.",
                 "en": "{variants} ran at every sequence length up to {seq}."},
    "growth": {"nb": "Fra sekvenslengde {a} til {b} (hodedimensjon {d}) vokser minnet {naive} for "
                     "{naive_label} og {flash} for {flash_label}: kvadratisk mot lineært.",
               "en": "From sequence length {a} to {b} (head dimension {d}) memory grows {naive} for "
                     "{naive_label} and {flash} for {flash_label}: quadratic against linear."},
    "fastest": {"nb": "Raskest per sekvenslengde, hodedimensjon {d}: {list}.",
                "en": "Fastest per sequence length, head dimension {d}: {list}."},
    "best_tflops": {"nb": "Høyeste gjennomstrømning i sveipet: {variant} med {tflops} TFLOP/s ved "
                          "sekvenslengde {seq} og hodedimensjon {d}, {share} av matmul-taket.",
                    "en": "Highest throughput in the sweep: {variant} at {tflops} TFLOP/s at sequence "
                          "length {seq} and head dimension {d}, {share} of the matmul roof."},
    "eager_vs_kernels": {
        "nb": "{shape}: veggtiden per vanlig kall er mellom {lo} og {hi} av kjernetiden.",
        "en": "{shape}: the wall time per eager call is between {lo} and {hi} of the kernel time."},
    "best_graph": {
        "nb": "{shape}: beste vei er {variant} spilt av fra en CUDA-graf, {graph} per kall: {pct} "
              "av den beste kjernetiden i målingen ({best_variant}, {best}).",
        "en": "{shape}: the best path is {variant} replayed from a CUDA graph, {graph} per call: "
              "{pct} of the best kernel time in the run ({best_variant}, {best})."},
    "shape_seed": {"nb": "Formen fra originalstudien", "en": "The original study's shape"},
    "shape_small": {"nb": "Den lille formen", "en": "The small shape"},
    "train_ratio": {
        "nb": "Forward + backward mot bare forward, i CUDA-tid: {list}.",
        "en": "Forward + backward against forward only, in CUDA time: {list}."},
    "train_kernels": {
        "nb": "Backward i {variant} er {n} egne kjerner: {kernels}.",
        "en": "Backward in {variant} is {n} kernels of its own: {kernels}."},
    "train_memory": {
        "nb": "Ekstra minne for ett treningssteg: {list}.",
        "en": "Extra memory for one training step: {list}."},
    "compiled": {
        "nb": "`torch.compile` av den håndskrevne modulen ga {n} GPU-aktiviteter per forward-pass i "
              "stedet for {eager_n}: {kernels}. {verdict} CUDA-tiden ble {cuda} mot {eager} uten "
              "kompilering.",
        "en": "`torch.compile` of the hand-written module gave {n} GPU activities per forward pass "
              "instead of {eager_n}: {kernels}. {verdict} The CUDA time was {cuda} against {eager} "
              "without compiling."},
    "compiled_found": {"nb": "Kompilatoren byttet ut mønsteret med en fusjonert attention-kjerne.",
                       "en": "The compiler replaced the pattern with a fused attention kernel."},
    "compiled_not_found": {
        "nb": "Kompilatoren kjente ikke igjen attention: matmul-ene er fortsatt egne kall, og bare "
              "skalering, maske og softmax er smeltet sammen til én Triton-kjerne.",
        "en": "The compiler did not recognise attention: the matmuls are still separate calls, and "
              "only scale, mask and softmax were fused into one Triton kernel."},
    "flex": {
        "nb": "FlexAttention med kausal blokkmaske ble kompilert til {kernels}, med {cuda} "
              "CUDA-tid mot {flash} for flash. Første kall, med kompilering, tok {first}.",
        "en": "FlexAttention with a causal block mask compiled to {kernels}, with {cuda} of CUDA "
              "time against {flash} for flash. The first call, compiling included, took {first}."},
    "a100_speedup": {
        "nb": "{gpu} mot A100 i CUDA-tid for samme form: {list}.",
        "en": "{gpu} against the A100 in CUDA time for the same shape: {list}."},
    "a100_winner": {
        "nb": "Raskeste fusjonerte backend: {ours} på {gpu}, {theirs} på A100. Uten pinning valgte "
              "SDPA {auto} på {gpu}; Hugging Face oppgir ikke hva den valgte på A100.",
        "en": "Fastest fused backend: {ours} on the {gpu}, {theirs} on the A100. Unpinned, SDPA "
              "chose {auto} on the {gpu}; Hugging Face does not report what it chose on the A100."},
    "a100_occupancy": {
        "nb": "Kinetos okkupans for de fusjonerte kjernene, A100 (HF) mot {gpu}: {list}.",
        "en": "Kineto's occupancy for the fused kernels, A100 (HF) against {gpu}: {list}."},
}


def _label(bt, name, lang):
    return bt.VARIANT_LABELS[name][lang]


def findings(bt, results, ref, lang, key):
    """Lines for one generated findings file of the extended pages; [] if not measured."""
    us = lambda x: bt.fmt_us(x, lang)  # noqa: E731
    f = lambda k, **kw: FINDINGS[k][lang].format(**kw)  # noqa: E731
    gpu = results["provenance"]["gpu_name"]
    lines = []
    sweep, overhead, backward = results.get("sweep"), results.get("overhead"), results.get("backward")
    if key == "scaling" and sweep:
        pts = sweep["points"]
        names = list(dict.fromkeys(p["variant"] for p in pts))
        for d in sweep["head_dims"]:
            for n in names:
                mine = [p for p in pts if p["variant"] == n and p["head_dim"] == d]
                bad = next((p for p in mine if p["status"] == "oom"), None)
                if bad:
                    prev = [p for p in mine if p["status"] == "ok" and p["seq_len"] < bad["seq_len"]]
                    if prev:
                        mem = prev[-1].get("peak_extra_mib")
                        lines.append(f("oom" if mem is not None else "oom_nomem",
                                       variant=_label(bt, n, lang), seq=bt.fmt_num(bad["seq_len"], lang, 0),
                                       d=d, prev=bt.fmt_num(prev[-1]["seq_len"], lang, 0),
                                       mem=bt.fmt_bytes((mem or 0) * 2**20, lang)))
        full = [n for n in names if all(p["status"] == "ok" for p in pts if p["variant"] == n)]
        if full:
            lines.append(f("fits_all", variants=", ".join(_label(bt, n, lang) for n in full),
                           seq=bt.fmt_num(max(sweep["seq_lens"]), lang, 0)))
        d = sweep["head_dims"][0]
        mem = {(p["variant"], p["seq_len"]): p.get("peak_extra_mib") for p in pts
               if p["head_dim"] == d and p["status"] == "ok"}
        both = [s for s in sweep["seq_lens"] if mem.get(("naive", s)) and mem.get(("flash", s))]
        if len(both) >= 2:
            a, b = both[-2], both[-1]
            lines.append(f("growth", a=bt.fmt_num(a, lang, 0), b=bt.fmt_num(b, lang, 0), d=d,
                           naive=bt.fmt_ratio(mem[("naive", b)] / mem[("naive", a)], lang),
                           flash=bt.fmt_ratio(mem[("flash", b)] / mem[("flash", a)], lang),
                           naive_label=_label(bt, "naive", lang), flash_label=_label(bt, "flash", lang)))
        for d in sweep["head_dims"]:
            best = []
            for s in sweep["seq_lens"]:
                ok = [p for p in pts if p["head_dim"] == d and p["seq_len"] == s and p["status"] == "ok"
                      and p["variant"] != "auto"]
                if ok:
                    p = min(ok, key=lambda p: point_time(bt, p))
                    best.append(f"{bt.fmt_num(s, lang, 0)}: {bt.BACKEND_NAMES.get(p['variant'], p['variant'])}")
            lines.append(f("fastest", d=d, list=", ".join(best)))
        ok = [p for p in pts if p["status"] == "ok"]
        if ok:
            p = max(ok, key=lambda p: p["tflops"])
            lines.append(f("best_tflops", variant=_label(bt, p["variant"], lang),
                           tflops=bt.fmt_tflops(p["tflops"], lang), seq=bt.fmt_num(p["seq_len"], lang, 0),
                           d=p["head_dim"], share=bt.fmt_pct(100 * p["tflops"] / results["roof"]["tflops"], lang, 0)))
    if key == "overhead" and overhead:
        for shape_name, rows in overhead["rows"].items():
            ok = {n: r for n, r in rows.items() if r["status"] == "ok"}
            if not ok:
                continue
            ratios = [r["eager_wall_us"]["median"] / bt.med(r["kernel_sum_us"]) for r in ok.values()]
            shape = FINDINGS[f"shape_{shape_name}"][lang]
            lines.append(f("eager_vs_kernels", shape=shape, lo=bt.fmt_pct(100 * min(ratios), lang, 0),
                           hi=bt.fmt_pct(100 * max(ratios), lang, 0)))
            best_n = min(ok, key=lambda n: bt.med(ok[n]["kernel_sum_us"]))
            graphs = {n: r for n, r in ok.items() if r.get("graph_wall_us")}
            if graphs:
                g = min(graphs, key=lambda n: graphs[n]["graph_wall_us"]["median"])
                best = bt.med(ok[best_n]["kernel_sum_us"])
                lines.append(f("best_graph", shape=shape, variant=_label(bt, g, lang),
                               graph=us(graphs[g]["graph_wall_us"]["median"]),
                               pct=bt.fmt_pct(100 * graphs[g]["graph_wall_us"]["median"] / best, lang, 0),
                               best_variant=_label(bt, best_n, lang), best=us(best)))
    if key == "training" and backward:
        rows = {n: r for n, r in backward["rows"].items() if r["status"] == "ok"}
        fwd = {n: bt.med(results["variants"][n].get("cuda_time_us")) for n in rows
               if results["variants"].get(n, {}).get("status") == "ok"}
        ratios = [f"{_label(bt, n, lang)} {bt.fmt_ratio(bt.med(r['cuda_time_us']) / fwd[n], lang)}"
                  for n, r in rows.items() if fwd.get(n) and r.get("cuda_time_us")]
        if ratios:
            lines.append(f("train_ratio", list=", ".join(ratios)))
        for n in ("flash", "cudnn"):
            if n in rows:
                bwd = [k for k in rows[n]["kernels"] if k["kind"] == "kernel"
                       and "backward" in (k.get("aten_op") or "")]
                if bwd:
                    lines.append(f("train_kernels", variant=_label(bt, n, lang), n=len(bwd),
                                   kernels=", ".join(f"`{k['short_name']}`" for k in bwd)))
        mems = [f"{_label(bt, n, lang)} {bt.fmt_bytes(r['peak_extra_mib'] * 2**20, lang)}"
                for n, r in rows.items() if r.get("peak_extra_mib") is not None]
        if mems:
            lines.append(f("train_memory", list=", ".join(mems)))
    if key == "compiled":
        v = results["variants"]
        c, e = v.get("compiled_naive", {}), v.get("naive_inplace", {})
        if c.get("status") == "ok" and e.get("status") == "ok" and c.get("cuda_time_us"):
            fused = bt.backend_of_kernels([k["name"] for k in c["kernels"]]) != "math"
            lines.append(f("compiled", n=bt.fmt_num(bt.med(c["gpu_activities_per_forward"]), lang, 0),
                           eager_n=bt.fmt_num(bt.med(e["gpu_activities_per_forward"]), lang, 0),
                           kernels=", ".join(f"`{k['short_name']}`" for k in c["kernels"]),
                           verdict=FINDINGS["compiled_found" if fused else "compiled_not_found"][lang],
                           cuda=us(bt.med(c["cuda_time_us"])), eager=us(bt.med(e["cuda_time_us"]))))
        fx, fl = v.get("flex", {}), v.get("flash", {})
        if fx.get("status") == "ok" and fl.get("status") == "ok" and fx.get("cuda_time_us"):
            ks = [k for k in fx["kernels"] if k["kind"] == "kernel"]
            lines.append(f("flex", kernels=", ".join(f"`{k['short_name']}`" for k in ks),
                           cuda=us(bt.med(fx["cuda_time_us"])), flash=us(bt.med(fl["cuda_time_us"])),
                           first=us(fx["first_call_ms"] * 1000)))
    if key == "a100":
        v, rv = results["variants"], ref["variants"]
        pairs = [n for n in rv if v.get(n, {}).get("status") == "ok" and rv[n].get("cuda_time_us")
                 and v[n].get("cuda_time_us")]
        if pairs:
            lines.append(f("a100_speedup", gpu=gpu, list=", ".join(
                f"{_label(bt, n, lang)} {bt.fmt_ratio(rv[n]['cuda_time_us'] / bt.med(v[n]['cuda_time_us']), lang)} "
                + ({"nb": "raskere", "en": "faster"}[lang]) for n in pairs)))
        fused = [n for n in bt.FUSED if v.get(n, {}).get("status") == "ok" and v[n].get("cuda_time_us")]
        if fused and v.get("auto", {}).get("backend_ran"):
            ours = min(fused, key=lambda n: bt.med(v[n]["cuda_time_us"]))
            theirs = min((n for n in bt.FUSED if rv.get(n, {}).get("cuda_time_us")),
                         key=lambda n: rv[n]["cuda_time_us"])
            lines.append(f("a100_winner", ours=bt.BACKEND_NAMES[ours], theirs=bt.BACKEND_NAMES[theirs],
                           gpu=gpu, auto=bt.BACKEND_NAMES.get(v["auto"]["backend_ran"])))
        occ = []
        for n in bt.FUSED:
            k = next((k for k in v.get(n, {}).get("kernels", []) if k["kind"] == "kernel"), None)
            if k and rv.get(n, {}).get("est_occupancy_pct") is not None:
                occ.append(f"{bt.BACKEND_NAMES[n]} {bt.fmt_pct(rv[n]['est_occupancy_pct'], lang, 0)} / "
                           f"{bt.fmt_pct(k['kineto_occupancy_pct'], lang, 0)}")
        if occ:
            lines.append(f("a100_occupancy", gpu=gpu, list=", ".join(occ)))
    return lines


def a100_table(bt, results, ref, lang):
    t = lambda key: bt.TEXT[key][lang]  # noqa: E731
    v, rv = results["variants"], ref["variants"]
    gpu = results["provenance"]["gpu_name"]
    rows = []
    for n, r in rv.items():
        ours = v.get(n, {})
        ok = ours.get("status") == "ok" and ours.get("cuda_time_us")
        cuda = bt.med(ours["cuda_time_us"]) if ok else None
        ratio = (bt.fmt_ratio(r["cuda_time_us"] / cuda, lang)
                 if ok and r.get("cuda_time_us") else t("none"))
        rows.append([bt.VARIANT_LABELS[n][lang], bt.fmt_us(r.get("cuda_time_us"), lang),
                     bt.fmt_us(cuda, lang), ratio, bt.fmt_us(r.get("cpu_time_us"), lang),
                     bt.fmt_us(bt.med(ours.get("cpu_time_us")) if ok else None, lang),
                     str(r.get("kernels_per_forward", t("none"))),
                     bt.kernel_count(ours, lang) if ok else t("none")])
    headers = [t("variant"), "A100 " + t("cuda_time"), f"{gpu} " + t("cuda_time"),
               {"nb": "A100 / vår", "en": "A100 / ours"}[lang], "A100 " + t("cpu_time"),
               f"{gpu} " + t("cpu_time"), "A100 " + t("kernels_fwd"), f"{gpu} " + t("kernels_fwd")]
    return bt.md_table(headers, rows)


def tables(bt, results, lang, ref=None):
    out = {}
    if ref is not None:
        out["a100-vs-ours"] = a100_table(bt, results, ref, lang)
    for key in ("scaling", "overhead", "training", "compiled", "a100"):
        lines = findings(bt, results, ref or {"variants": {}}, lang, key)
        out[f"findings-{key}"] = ("\n".join(f"- {line}" for line in lines) if lines
                                  else bt.FINDINGS["missing"][lang])
    sweep = results.get("sweep")
    if sweep:
        cap = TEXT["sweep_caption"][lang].format(**sweep)
        for d in sweep["head_dims"]:
            out[f"sweep-time-d{d}"] = sweep_table(bt, sweep, lang, d, "time") + "\n\n" + cap
            out[f"sweep-memory-d{d}"] = sweep_table(bt, sweep, lang, d, "memory") + "\n\n" + cap
            out[f"sweep-tflops-d{d}"] = sweep_table(bt, sweep, lang, d, "tflops") + "\n\n" + cap
    overhead = results.get("overhead")
    if overhead:
        for shape_name, cfg in overhead["shapes"].items():
            out[f"overhead-{shape_name}"] = (TEXT[f"shape_{shape_name}"][lang].format(**cfg) + "\n\n"
                                             + overhead_table(bt, overhead, lang, shape_name))
    backward = results.get("backward")
    if backward:
        out["backward"] = backward_table(bt, backward, lang)
    return out


# ----------------------------------------------------------------------------
# Figures (matplotlib, SVG; deterministic so re-rendering gives the same bytes)
# ----------------------------------------------------------------------------

def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.hashsalt": "sdpa-under-the-profiler", "svg.fonttype": "none",
                         "font.size": 10})
    return plt


def _save(fig, path):
    import io

    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None}, bbox_inches="tight")
    head, sep, rest = buf.getvalue().partition("?>\n")
    note = "<!-- generated by build_tables.py from results.json: do not edit by hand -->\n"
    path.write_text(head + sep + note + rest, encoding="utf-8")


def render_figures(bt, results, lang, folder):
    """Write figures/<name>.<lang>.svg; returns the paths written."""
    plt = _pyplot()
    written = []
    folder.mkdir(parents=True, exist_ok=True)
    gpu = results["provenance"]["gpu_name"]
    ok = [(n, r) for n, r in results["variants"].items() if r["status"] == "ok" and r.get("cuda_time_us")]
    if ok:
        fig, ax = plt.subplots(figsize=(7, 3.6))
        xs = range(len(ok))
        ax.bar([x - 0.2 for x in xs], [bt.med(r["cuda_time_us"]) for _, r in ok], 0.4,
               label=bt.TEXT["cuda_time"][lang])
        ax.bar([x + 0.2 for x in xs], [bt.med(r["cpu_time_us"]) for _, r in ok], 0.4,
               label=bt.TEXT["cpu_time"][lang])
        ax.set_xticks(list(xs), [n for n, _ in ok], rotation=20)
        ax.set_yscale("log")
        ax.set_ylabel(TEXT["bars_axis"][lang])
        ax.set_title(TEXT["bars_title"][lang].format(gpu=gpu))
        ax.legend()
        path = folder / f"cuda-vs-cpu.{lang}.svg"
        _save(fig, path)
        plt.close(fig)
        written.append(path)
    sweep = results.get("sweep")
    if sweep:
        for d in sweep["head_dims"]:
            for what, axis, title in (("time", "time_axis", "time_title"), ("memory", "mem_axis", "mem_title")):
                fig, ax = plt.subplots(figsize=(7, 4))
                for name in dict.fromkeys(p["variant"] for p in sweep["points"]):
                    pts = [p for p in sweep["points"] if p["variant"] == name and p["head_dim"] == d
                           and p["status"] == "ok"]
                    if what == "time":
                        ys = [point_time(bt, p) for p in pts]
                    else:
                        pts = [p for p in pts if p.get("peak_extra_mib") is not None]
                        ys = [p["peak_extra_mib"] for p in pts]
                    if pts:
                        ax.plot([p["seq_len"] for p in pts], ys, marker="o", label=name)
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_xlabel(TEXT["seq"][lang])
                ax.set_ylabel(TEXT[axis][lang])
                ax.set_title(TEXT[title][lang].format(d=d) + f" · {gpu}")
                ax.minorticks_off()  # a log axis draws dozens of minor ticks: weight, no help
                ax.grid(True, which="major", alpha=0.3)
                if ax.get_lines():
                    ax.legend(fontsize=8)
                path = folder / f"sweep-{what}-d{d}.{lang}.svg"
                _save(fig, path)
                plt.close(fig)
                written.append(path)
    return written

