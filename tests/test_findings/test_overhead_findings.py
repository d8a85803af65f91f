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
