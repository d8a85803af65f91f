"""report/render/findings/overhead_findings.py: eager calls against kernel time, CUDA graphs."""
import pytest
from factory import findings_of, h200, nothing_measured, overhead, overhead_row, refused, results, said

from report.render.findings import FINDINGS, overhead_findings


@pytest.mark.parametrize("name", findings_of(overhead_findings))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], nothing_measured()) == []


def test_the_eager_range_and_the_best_graph_per_shape():
    run = results(overhead=overhead({
        "small": {"flash": overhead_row(10.0, 40.0, graph_us=12.0), "cudnn": overhead_row(8.0, 48.0, graph_us=9.0),
                  "math": refused("oom")},
        "seed": {"flash": overhead_row(100.0, 110.0)}}))
    small_range, small_graph, seed_range = said(overhead_findings.overhead, run)
    assert small_range.startswith("The small shape:") and "between 400% and 600% of the kernel time" in small_range
    assert "SDPA cuDNN replayed from a CUDA graph, 9.0 µs per call: 112% of the best kernel time" in small_graph
    assert seed_range.startswith("The original study's shape:") and "110%" in seed_range  # no graph, no line


def test_a_shape_where_nothing_ran_says_nothing():
    run = results(overhead=overhead({"small": {"flash": refused("oom")}}))
    assert said(overhead_findings.overhead, run) == []


def test_auto_is_never_the_best_graph_of_its_own_backend():
    """Auto replays the pinned backend's kernels: it is no entry of its own, so a rounding
    does not make it cuDNN's winner on one run and the loser on the next."""
    run = results(overhead=overhead({"seed": {"cudnn": overhead_row(57.8, 60.0, graph_us=60.0),
                                              "auto": overhead_row(57.6, 60.1, graph_us=59.7),
                                              "flash": overhead_row(92.0, 94.0, graph_us=93.0)}}))
    lines = said(overhead_findings.overhead, run)
    assert any("the best path is SDPA cuDNN replayed from a CUDA graph" in line for line in lines)
    assert not any("auto" in line for line in lines)
