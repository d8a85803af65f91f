"""A results.json row's times are read through report/rows.py, not by their keys: the key of
kernel time is named only by the view, the types and the code that writes it."""
from __future__ import annotations

import ast
from pathlib import Path

from report.rows import KERNEL_TIME, cpu_time, gpu_span, gpu_work, kernel_time, with_kernel_time

ROOT = Path(__file__).resolve().parent.parent

# who may name the key: the view, the types, and its writers (the trace's analysis, the
# measurement and the collect step)
NAMES_THE_KEY = {"report/rows.py", "report/schema.py", "report/trace/analyze.py"}
WRITERS = ("report/measure/", "report/collect/")


def naming_the_key(path, key):
    """Whether a Python file holds `key` as a string (a dict key, a .get, a key passed on)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.Constant) and n.value == key for n in ast.walk(tree))


def files_naming(key):
    paths = [*(ROOT / "report").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.py"), ROOT / "build_tables.py"]
    return sorted(p.relative_to(ROOT).as_posix() for p in paths if naming_the_key(p, key))


def test_only_the_view_the_types_and_the_writers_name_the_kernel_time_key():
    readers = [f for f in files_naming(KERNEL_TIME) if f not in NAMES_THE_KEY and not f.startswith(WRITERS)]
    assert readers == [], f"read it through report/rows.py (kernel_time, gpu_work, KERNEL_TIME): {readers}"


def test_the_check_finds_a_reader(tmp_path):
    reader = tmp_path / "reader.py"
    reader.write_text('def k(row):\n    return row.get("kernel_sum_us")\n', encoding="utf-8")
    assert naming_the_key(reader, KERNEL_TIME)
    reader.write_text("# kernel_sum_us, in a comment, reads nothing\n", encoding="utf-8")
    assert not naming_the_key(reader, KERNEL_TIME)


def test_each_time_of_a_row():
    k, span, cpu = {"median": 1.0}, {"median": 2.0}, {"median": 3.0}
    row = {KERNEL_TIME: k, "cuda_time_us": span, "cpu_time_us": cpu}
    assert (kernel_time(row), gpu_span(row), cpu_time(row)) == (k, span, cpu)
    assert kernel_time(with_kernel_time(k)) == k


def test_a_missing_row_or_time_is_none():
    for row in (None, {}, {"status": "oom"}):
        assert kernel_time(row) is None and gpu_span(row) is None and cpu_time(row) is None
        assert gpu_work(row) is None


def test_the_work_is_the_kernel_time_else_the_profiled_cpu_time():
    k, cpu = {"median": 1.0}, {"median": 3.0}
    assert gpu_work({KERNEL_TIME: k, "cpu_time_us": cpu}) == k
    # a run without a GPU: no kernels, the work ran in the profiled CPU range
    assert gpu_work({KERNEL_TIME: None, "cpu_time_us": cpu}) == cpu
    assert gpu_work({"cpu_time_us": cpu}) == cpu
