"""report/render/findings/overhead_findings.py: eager calls against kernel time, CUDA graphs."""
import pytest
from factory import findings_of, found, h200, nothing_measured, overhead, overhead_row, refused, results

from report.render.findings import FINDINGS, overhead_findings


@pytest.mark.parametrize("name", findings_of(overhead_findings))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], h200()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_the_eager_range_and_the_best_graph_per_shape():
    run = results(overhead=overhead({
        "small": {"flash": overhead_row(10.0, 40.0, graph_us=12.0), "cudnn": overhead_row(8.0, 48.0, graph_us=9.0),
                  "math": refused("oom")},
        "seed": {"flash": overhead_row(100.0, 110.0)}}))
    small, seed = found(overhead_findings.overhead, run)
    assert (small.shape, small.lo, small.hi, small.near) == ("small", 400.0, 600.0, False)
    assert (small.graph.variant, small.graph.graph_us, small.graph.pct) == ("cudnn", 9.0, 112.5)
    assert (seed.shape, round(seed.lo), seed.near, seed.graph) == ("seed", 110, True, None)  # no graph


def test_a_shape_where_nothing_ran_says_nothing():
    run = results(overhead=overhead({"small": {"flash": refused("oom")}}))
    assert found(overhead_findings.overhead, run) is None


def test_auto_is_never_the_best_graph_of_its_own_backend():
    """Auto replays the pinned backend's kernels: it is no entry of its own, so a rounding
    does not make it cuDNN's winner on one run and the loser on the next."""
    run = results(overhead=overhead({"seed": {"cudnn": overhead_row(57.8, 60.0, graph_us=60.0),
                                              "auto": overhead_row(57.6, 60.1, graph_us=59.7),
                                              "flash": overhead_row(92.0, 94.0, graph_us=93.0)}}))
    (seed,) = found(overhead_findings.overhead, run)
    assert seed.graph.variant == "cudnn" and seed.graph.best_variant == "cudnn"
