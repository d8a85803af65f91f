"""report/trace: trace parsing and occupancy, on traces recorded on an NVIDIA H200.

The traces under tests/fixtures/h200/ were recorded by build_tables.py and cut down by
tests/fixtures/make_fixtures.py; the facts asserted here are facts of those traces.
"""
import ast
import gzip
import json
import math
import shutil

import pytest
from factory import FIXTURES
from occupancy import GpuLimits, blocks_per_sm, occupancy, smem_alloc_unit

from report.derive import sections
from report.doctor.explain import load_trace
from report.measure.timing import keep_profile, keep_trace
from report.paths import PACKAGE, ROOT
from report.trace.analyze import analyze_trace, read
from report.trace.kernel_occupancy import add_occupancy
from report.trace.names import backend_of_kernels, short_kernel_name
from report.variants import VARIANTS

FUSED_BACKEND_OPS = {"flash": "aten::_flash_attention_forward",
                     "efficient": "aten::_efficient_attention_forward",
                     "cudnn": "aten::_cudnn_attention_forward"}


def raw_fixture(variant):
    return load_trace(FIXTURES / f"{variant}.json.gz")


def fixture(variant):
    return analyze_trace(raw_fixture(variant), f"{variant}_fwd")


@pytest.fixture(scope="module")
def parsed():
    return {v: fixture(v) for v in VARIANTS}


def kinds(analysis):
    out = {}
    for k in analysis["kernels"]:
        out[k["kind"]] = out.get(k["kind"], 0) + k["per_forward"]
    return out


# --- trace parsing -------------------------------------------------------------------

def test_every_fixture_has_whole_forward_passes(parsed):
    for variant, a in parsed.items():
        assert a["steps"] == 4, variant
        assert a["cuda_time_us"]["n"] == 4 and a["cpu_time_us"]["n"] == 4
        # every step launched the same number of GPU activities
        assert a["gpu_activities_per_forward"]["min"] == a["gpu_activities_per_forward"]["max"]
        # the GPU-side range spans its kernels, so it can't be shorter than their sum
        assert a["cuda_time_us"]["min"] >= a["kernel_sum_us"]["min"] - 0.01, variant


def test_out_of_place_masked_fill_adds_exactly_one_memcpy(parsed):
    naive, inplace = kinds(parsed["naive"]), kinds(parsed["naive_inplace"])
    assert naive.get("memcpy") == 1 and "memcpy" not in inplace
    assert naive["kernel"] == inplace["kernel"]
    memcpy = next(k for k in parsed["naive"]["kernels"] if k["kind"] == "memcpy")
    assert memcpy["aten_op"] == "aten::copy_" and "DtoD" in memcpy["name"]
    assert parsed["naive"]["cpu_ops_per_forward"]["aten::masked_fill"] == 1
    assert "aten::masked_fill" not in parsed["naive_inplace"]["cpu_ops_per_forward"]


def test_math_backend_upcasts_rebuilds_the_mask_and_uses_safe_softmax(parsed):
    math_ = parsed["math"]
    assert math_["gpu_activities_per_forward"]["median"] == 20
    ops = math_["cpu_ops_per_forward"]
    for op in ("aten::_safe_softmax", "aten::tril", "aten::ones", "aten::where"):
        assert ops.get(op, 0) >= 1, op
    gemms = [k for k in math_["kernels"] if "gemm" in k["name"]]
    assert len(gemms) == 2 and all("f32f32" in k["name"] for k in gemms)
    assert any(k["aten_op"] == "aten::tril" for k in math_["kernels"])
    # the hand-written version keeps bf16 matmuls (no fp32 gemm)
    assert not any("f32f32" in k["name"] for k in parsed["naive"]["kernels"])


def test_each_fused_backend_is_one_kernel(parsed):
    for variant, op in FUSED_BACKEND_OPS.items():
        compute = [k for k in parsed[variant]["kernels"] if k["kind"] == "kernel"]
        assert len(compute) == 1 and compute[0]["per_forward"] == 1, variant
        assert compute[0]["aten_op"] == op
        assert backend_of_kernels([k["name"] for k in compute]) == variant


def test_backend_detection_reads_kernel_names(parsed):
    assert backend_of_kernels([k["name"] for k in parsed["math"]["kernels"]]) == "math"
    # on this H200 SDPA picked cuDNN by itself
    assert backend_of_kernels([k["name"] for k in parsed["auto"]["kernels"]]) == "cudnn"


def test_cudnn_kernel_is_launched_through_the_driver_api(parsed):
    kernel = next(k for k in parsed["cudnn"]["kernels"] if k["kind"] == "kernel")
    assert kernel["launched_by"] == "cuLaunchKernelEx"
    # ...and CUPTI still recorded its launch resources
    assert kernel["registers_per_thread"] > 0 and kernel["shared_memory"] > 48 * 1024


def test_cuda_time_without_gpu_ranges_falls_back_to_kernel_span():
    trace = raw_fixture("flash")
    full = analyze_trace(trace, "flash_fwd")
    trace["traceEvents"] = [e for e in trace["traceEvents"] if e.get("cat") != "gpu_user_annotation"]
    bare = analyze_trace(trace, "flash_fwd")
    assert bare["cuda_time_us"]["median"] == pytest.approx(full["kernel_sum_us"]["median"], abs=0.01)


def test_missing_range_is_a_clear_error():
    trace = raw_fixture("flash")
    with pytest.raises(ValueError, match="no record_function range named 'nope'"):
        analyze_trace(trace, "nope")


def test_short_kernel_names():
    assert short_kernel_name(
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, int)"
    ) == "at::native::cunn_SoftMaxForward"
    assert short_kernel_name("Memcpy DtoD (Device -> Device)") == "Memcpy DtoD"
    assert short_kernel_name("nvjet_sm90_tst_64x8") == "nvjet_sm90_tst_64x8"


# --- occupancy -----------------------------------------------------------------------

def kineto_round(x):
    return math.floor(x + 0.5)


def test_occupancy_reproduces_kineto_for_every_fixture_kernel(parsed):
    checked = 0
    for variant, a in parsed.items():
        limits = GpuLimits.from_trace(a["device_properties"])
        for k in add_occupancy(a["kernels"], limits):
            if k["kind"] == "kernel":
                assert k["kineto_occupancy_pct"] is not None
                assert kineto_round(k["our_kineto_rule_pct"]) == k["kineto_occupancy_pct"], \
                    (variant, k["short_name"])
                checked += 1
    assert checked >= 20


def test_h200_flash_and_cudnn_readings(parsed):
    limits = GpuLimits.from_trace(parsed["flash"]["device_properties"])
    flash = add_occupancy(parsed["flash"]["kernels"], limits)[0]
    assert (flash["registers_per_thread"], math.prod(flash["block"])) == (255, 128)
    assert flash["our_optin_blocks"] == 2 and flash["our_optin_pct"] == 12.5
    assert flash["kineto_occupancy_pct"] == 13
    cudnn = next(k for k in add_occupancy(parsed["cudnn"]["kernels"], limits) if k["kind"] == "kernel")
    # Kineto's 0 % comes from its default 48 KiB shared-memory limit per block ...
    assert cudnn["kineto_occupancy_pct"] == 0 and cudnn["our_kineto_rule_pct"] == 0
    # ... while the kernel, which opted in to more, really holds one block per SM
    assert cudnn["our_optin_blocks"] == 1 and cudnn["our_optin_pct"] > 0


A100 = GpuLimits(name="A100", compute_capability=(8, 0), sm_count=108, max_threads_per_sm=2048,
                 regs_per_sm=65536, regs_per_block=65536, smem_per_sm=167936,
                 smem_per_block=49152, smem_per_block_optin=166912)


def test_a100_arithmetic_of_the_original_study():
    # flash: 128 threads x 255 registers -> 2 blocks -> 8 of 64 warps
    pct, blocks, why = occupancy(A100, 255, 128, 0)
    assert (blocks, pct, why) == (2, 12.5, ["registers"])
    # cuDNN: 256 threads x 240 registers = 61 440 registers -> 1 block -> 8 warps
    pct, blocks, why = occupancy(A100, 240, 256, 0)
    assert (blocks, pct, why) == (1, 12.5, ["registers"])


def test_register_allocation_granularity_and_other_limits():
    # 33 registers round up to 40 per thread (1280 per warp): 12 warps per scheduler
    assert blocks_per_sm(A100, 33, 32, 0)[0] == 32  # capped by the 32-block limit
    assert blocks_per_sm(A100, 33, 1024, 0) == (1, ["registers"])
    assert blocks_per_sm(A100, 16, 1024, 0) == (2, ["warps"])
    # too many registers for one block: it can't launch
    assert blocks_per_sm(A100, 255, 1024, 0)[0] == 0
    # shared memory: over the default 48 KiB only with opt-in
    assert blocks_per_sm(A100, 32, 128, 60 * 1024, opted_in=False)[0] == 0
    assert blocks_per_sm(A100, 32, 128, 60 * 1024, opted_in=True) == (2, ["shared memory"])
    # a small grid caps the estimate the way Kineto does
    pct, blocks, why = occupancy(A100, 32, 128, 0, grid_blocks=54)
    assert (blocks, why, pct) == (0.5, ["grid"], 0.5 * 128 / 2048 * 100)


def test_kernel_span_covers_kernels_the_gpu_range_misses():
    trace = raw_fixture("naive")
    # hide the GPU-side range of the first step: kernel_span must not need it
    span = analyze_trace(trace, "naive_fwd", cuda_time="kernel_span")
    ranged = analyze_trace(trace, "naive_fwd")
    assert span["cuda_time_us"]["n"] == 4
    assert span["cuda_time_us"]["min"] >= span["kernel_sum_us"]["min"] - 0.01
    assert span["cuda_time_us"]["median"] <= ranged["cuda_time_us"]["median"] + 0.01


# --- attribution per cause -----------------------------------------------------------

@pytest.mark.parametrize("variant", VARIANTS)
def test_causes_add_up_to_the_kernel_time(parsed, variant):
    a = parsed[variant]
    total = sum(c["us_per_forward"] for c in a["attribution"].values())
    assert total == pytest.approx(a["kernel_sum_us"]["median"], rel=0.01)
    assert sum(c["activities_per_forward"] for c in a["attribution"].values()) == \
        a["gpu_activities_per_forward"]["median"]
    assert "other" not in a["attribution"], a["attribution"]


def test_math_time_by_cause(parsed):
    causes = parsed["math"]["attribution"]
    # the upcast: FP32 matmuls and the conversions around them; no bf16 matmul at all
    assert causes["matmul_fp32"]["activities_per_forward"] == 2 and "matmul" not in causes
    assert causes["dtype_conversion"]["activities_per_forward"] == 5
    # _safe_softmax's guard is 4 activities; the mask's own fill_/where are counted apart
    assert causes["safe_softmax_extras"]["activities_per_forward"] == 4
    assert causes["mask_construction"]["activities_per_forward"] == 5
    naive = parsed["naive"]["attribution"]
    assert naive["copy"]["activities_per_forward"] == 1 and "copy" not in parsed["naive_inplace"]["attribution"]


def test_one_kernel_name_under_two_ops_is_two_rows(parsed):
    # the same elementwise kernel builds the mask (4 µs) and guards softmax (400 µs)
    where = [k for k in parsed["math"]["kernels"] if k["aten_op"] == "aten::where"]
    assert {k["cause"] for k in where} == {"mask_construction", "safe_softmax_extras"}
    assert len({k["name"] for k in where}) == 1


def test_fused_backends_are_one_cause(parsed):
    for variant in ("flash", "efficient", "cudnn", "auto"):
        assert set(parsed[variant]["attribution"]) == {"fused_attention"}, variant


# --- Nsight Compute's occupancy, read back (recorded on the H200) -----------------------

def test_ncu_output_is_parsed_per_kernel():
    from report.measure.ncu import parse

    text = (FIXTURES.parent / "ncu" / "flash-cudnn-occupancy.csv").read_text()
    kernels = parse(text)
    flash = next(m for name, m in kernels.items() if "flash_fwd_kernel" in name)
    cudnn = next(m for name, m in kernels.items() if "cudnn_generated" in name)
    assert flash["theoretical_pct"] == 12.5 and flash["limit_registers"] == 2
    assert 0 < flash["achieved_pct"] <= flash["theoretical_pct"]
    assert cudnn["theoretical_pct"] == 18.75 and cudnn["limit_shared_memory"] == 1
    assert parse("==PROF== nothing profiled\n") == {}


def test_our_calculator_gives_ncu_theoretical_occupancy(parsed):
    """ncu's theoretical occupancy for the flash and cuDNN kernels of the H200 run equals
    what our calculator gives with each kernel's opt-in shared memory."""
    from report.measure.ncu import parse

    # ncu and Kineto spell template arguments differently (0 and false): match on the short name
    kernels = {short_kernel_name(name): m for name, m in
               parse((FIXTURES.parent / "ncu" / "flash-cudnn-occupancy.csv").read_text()).items()}
    for variant in ("flash", "cudnn"):
        limits = GpuLimits.from_trace(parsed[variant]["device_properties"])
        ours = next(k for k in add_occupancy(parsed[variant]["kernels"], limits) if k["kind"] == "kernel")
        assert kernels[ours["short_name"]]["theoretical_pct"] == pytest.approx(ours["our_optin_pct"], abs=0.01), variant


# --- the calculator's constants, as CUDA 13.0's cuda_occupancy.h has them --------------------

def _gpu(cc, smem_per_sm=102400):
    return GpuLimits(name="made up", compute_capability=cc, sm_count=10, max_threads_per_sm=2048,
                     regs_per_sm=65536, regs_per_block=65536, smem_per_sm=smem_per_sm,
                     smem_per_block=49152, smem_per_block_optin=smem_per_sm - 1024)


@pytest.mark.parametrize("cc, blocks", [((12, 0), 24), ((10, 1), 24), ((8, 9), 24), ((9, 0), 32), ((10, 0), 32)])
def test_blocks_per_sm_follow_cuda_occupancy_h(cc, blocks):
    """cudaOccMaxBlocksPerMultiprocessor: a tiny block is limited by the block count only."""
    assert blocks_per_sm(_gpu(cc), 16, 32, 0) == (blocks, ["blocks"])


def test_shared_memory_is_allocated_in_256_bytes_before_ampere():
    """cudaOccSMemAllocationGranularity: 256 bytes on sm7x, 128 from sm80 on. A 3,100-byte
    block takes 3,328 bytes on Volta (29 fit in 96 KiB), 3,200 in 128-byte units (30)."""
    assert blocks_per_sm(_gpu((7, 0), 98304), 16, 32, 3100)[0] == 29
    assert smem_alloc_unit((8, 0)) == smem_alloc_unit((12, 0)) == 128


# --- one reader: the committed figures are the reader's, and no second reader exists -----

# the figures a variant's row keeps of analyze_trace (report/measure/seed.py: TRACE_FIELDS)
ROW_FIELDS = ("steps", "cpu_time_us", "cuda_time_us", "kernel_sum_us", "launch_api_us",
              "gpu_activities_per_forward", "attribution", "cpu_ops_per_forward")


def _same(stored, found, where):
    """found equals stored (results.json's), floats within rel 1e-9; stored may hold more keys
    (occupancy, added later; a field analyze_trace no longer gives)."""
    if isinstance(found, dict):
        assert isinstance(stored, dict), where
        for key, value in found.items():
            assert key in stored, (where, key)
            _same(stored[key], value, f"{where}.{key}")
    elif isinstance(found, list):
        assert isinstance(stored, list) and len(stored) == len(found), where
        for i, (a, b) in enumerate(zip(stored, found, strict=True)):
            _same(a, b, f"{where}.{i}")
    elif isinstance(found, float) or isinstance(stored, float):
        assert stored == pytest.approx(found, rel=1e-9, abs=0), where
    else:
        assert stored == found, where


def _runs_computed_on_the_gpu():
    """Committed runs of the older schema, whose figures were computed on the GPU machine and
    stored, with the traces they were computed from (data/archive/)."""
    return sorted(p.parent for p in (ROOT / "data" / "archive").glob("*/a/results.json")
                  if (p.parent / "traces").is_dir()
                  and json.loads(p.read_text(encoding="utf-8"))["schema_version"] == 1)


@pytest.mark.parametrize("run", _runs_computed_on_the_gpu(), ids=lambda p: p.parent.name)
def test_derive_gives_the_figures_the_gpu_machine_computed_from_the_same_traces(run):
    """Golden test of the derive step on committed data: every variant's figures and every
    asked condition's kernels and kernel time, as the GPU machine computed and stored them,
    equal what report/derive/ reads off the same kept traces with today's analysis (floats
    within rel 1e-9): the collected runs' figures are the ones a GPU-side analysis gave."""
    results = json.loads((run / "results.json").read_text(encoding="utf-8"))
    checked = 0
    for name, row in results["variants"].items():
        if row.get("status") != "ok" or not (run / "traces" / f"{name}.json.gz").is_file():
            continue
        found = sections.seed_row(run, name, {"trace": f"traces/{name}.json.gz", "range": f"{name}_fwd"},
                                  results["config"], gpu=True)
        for field in (*ROW_FIELDS, "backend_ran", "tflops"):
            _same(row[field], found[field], f"{name}.{field}")
        _same(row["kernels"], found["kernels"], f"{name}.kernels")
        checked += 1
    for cond in (results.get("eligibility") or {}).get("conditions", []):
        if not cond.get("trace"):
            continue
        found = sections.ask_row(run, {"trace": cond["trace"], "range": f"ask_{cond['id']}"}, gpu=True)
        for field in ("kernels", "ran", "kernel_time_us"):
            _same(cond[field], found[field], f"{cond['id']}.{field}")
        checked += 1
    assert checked >= 40, run


def test_a_measurements_kept_trace_is_read_by_the_one_reader(tmp_path):
    """measure/timing.py: keep_trace and keep_profile keep the profiler's file whole (.json.gz,
    the same bytes for the same trace), and derive reads it with read(): the fixture's figures."""
    def exported(name):
        raw = tmp_path / name
        with gzip.open(FIXTURES / "flash.json.gz", "rb") as src, raw.open("wb") as dst:
            shutil.copyfileobj(src, dst)
        return raw
    traces = tmp_path / "traces"
    traces.mkdir()
    raw = exported("traces/flash.json")
    keep_trace(raw)
    assert not raw.exists() and analyze_trace(read(traces / "flash.json.gz"), "flash_fwd") == fixture("flash")
    kept = keep_profile(exported("one.json"), "flash_fwd", traces)
    assert kept == keep_profile(exported("two.json"), "flash_fwd", traces)  # named by its content
    assert kept["trace"].startswith("traces/profiles/") and kept["range"] == "flash_fwd"
    assert (traces / "profiles" / kept["trace"].rsplit("/", 1)[1]).read_bytes() == \
        (traces / "flash.json.gz").read_bytes()
    short = sections.summary(tmp_path, kept, gpu=True)
    assert short["cuda_time_us"] == fixture("flash")["cuda_time_us"] and short["kernels"][0]["name"]


# the one reader of the format, and the doctor's opening of a reader's own file (its checks)
READERS = {PACKAGE / "trace" / "reading", PACKAGE / "doctor" / "reading" / "trace_file.py"}
# what only a reader of torch.profiler's format names: its events' list, an event's phase ("X"),
# the GPU's side of a range (the reader keeps it apart: Trace.gpu_ranges), the ids that pair a
# launch with its activity (the reader's Event.corr). The categories the reader keeps
# ("kernel", "cpu_op", ...) are its Events' own words, read by everyone.
FORMAT_WORDS = {"traceEvents", "ph", "gpu_user_annotation", "correlation", "External id"}
# the modules that are handed traces: they import the reader, or what reads with it
TRACE_USERS = ("report.trace.analyze", "report.trace.reading", "report.doctor.reading", "report.doctor.explain")
# functions of those that parse JSON that is no trace to read: each with its reason
NOT_READING = {
    ("report/measure/timing.py", "_compact"): "re-encodes the profiler's file compactly to keep it; derive reads it with read()",
    ("report/render/site.py", "model_explained"): "the manifest.json beside the model's trace",
}


# modules of report/ that open a gzip JSON or name the format for another reason, each with it
NOT_A_SECOND_READER = {
    "report/output/fix_files.py": "opens the --fixes collections (gzip JSON that report/collect writes), no trace",
}


def second_reader(source):
    """What in a module's source reads the trace format itself: a format word as a string
    (FORMAT_WORDS), or a gzip file opened to read.
    Docstrings and f-string text do not count; gzip opened to write ("w", "wt", ...) does not."""
    found = []
    tree = ast.parse(source)
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in FORMAT_WORDS
                and id(node) not in docstrings):
            found.append(f"line {node.lineno}: {node.value!r}")
        elif isinstance(node, ast.Call) and _gzip_read(node):
            found.append(f"line {node.lineno}: gzip opened to read")
    return found


def json_parsed(source):
    """The functions (name, line) of a module's source that call json.load or json.loads."""
    found = []
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += [(fn.name, n.lineno) for n in ast.walk(fn)
                      if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                      and isinstance(n.func.value, ast.Name) and n.func.value.id == "json"
                      and n.func.attr in ("load", "loads")]
    return found


def _gzip_read(call):
    """gzip.open / GzipFile / decompress called to read (no mode, or a mode without w, a, x)."""
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "gzip" else None
    if name == "decompress":
        return True
    if name not in ("open", "GzipFile"):
        return False
    mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    written = isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wax")
    return not written


def _uses_traces(source, path):
    """Whether the module imports the reader or what reads with it (TRACE_USERS)."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            names |= {target} | {f"{target}.{a.name}" for a in node.names}
    return any(n == u or n.startswith(u + ".") for n in names for u in TRACE_USERS)


def test_one_reader_reads_the_trace_format():
    """No module of report/ but report/trace/reading/ (and the doctor's trace_file.py, which
    checks a reader's file before reading it with it) reads torch.profiler's format: a second
    reader would name the traceEvents list, an event's phase, the GPU's ranges or the ids that
    pair launches, open the gzip file itself, or parse the JSON where it is handed traces
    (issue 38, one reader)."""
    seconds, readers = {}, 0
    for path in sorted(PACKAGE.rglob("*.py")):
        source, rel = path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()
        found = second_reader(source)
        if any(path == r or r in path.parents for r in READERS):
            readers += bool(found)
            continue
        if _uses_traces(source, path):  # handed traces: no JSON of its own parsed, but NOT_READING's
            found += [f"line {line}: json parsed in {fn}" for fn, line in json_parsed(source)
                      if (rel, fn) not in NOT_READING]
        if found and rel not in NOT_A_SECOND_READER:
            seconds[rel] = found
    assert seconds == {}
    assert readers >= 3  # the check sees the reader itself: stream.py, kineto_layout.py, trace_file.py


@pytest.mark.parametrize("reader", [
    # analyze.py before issue 38 read the events itself
    'def complete_events(trace):\n    return [e for e in trace["traceEvents"] if e.get("ph") == "X"]\n',
    'import gzip, json\n\ndef load(path):\n    with gzip.open(path, "rt") as f:\n        return json.load(f)\n',
    'def gpu_ranges(events):\n    return [e for e in events if e.get("cat") == "gpu_user_annotation"]\n',
])
def test_the_one_reader_check_sees_a_second_reader(reader):
    assert second_reader(reader)
    assert not second_reader('"""Reads traceEvents (a docstring)."""\nimport gzip\n\n'
                             'def keep(path, text):\n    with gzip.open(path, "wt") as f:\n        f.write(text)\n')


def test_the_one_reader_check_sees_a_trace_loaded_beside_the_reader():
    """measure/timing.py's summary() before issue 38 loaded the trace as JSON itself."""
    old = ("from ..trace.analyze import analyze_trace\n\n\ndef summary(path, name):\n"
           "    return analyze_trace(json.loads(Path(path).read_text()), name)\n")
    assert _uses_traces(old, PACKAGE / "measure" / "timing.py")
    assert json_parsed(old) == [("summary", 5)]
    assert not _uses_traces("import json\n", PACKAGE / "results.py")
