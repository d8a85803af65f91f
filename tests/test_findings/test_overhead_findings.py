"""report/render/findings/overhead_findings.py: eager calls against kernel time, CUDA graphs."""
import pytest
from factory import findings_of, found, nothing_measured, overhead, overhead_row, refused, results, site_run

from report.render.findings import FINDINGS, overhead_findings


@pytest.mark.parametrize("name", findings_of(overhead_findings))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def _paired(run, group, per_call):
    """A pair group whose entries' blocks are per_call[name] µs in every pair (3 rounds of
    40, a little jitter that moves both blocks of a pair together)."""
    rounds = [{"blocks_us": {n: [us * (1 + (i % 5) * 0.02) for i in range(40)] for n, us in per_call.items()}}
              for _ in range(3)]
    run["pairs"] = {"groups": {group: {"metric": "wall", "rounds": rounds}}}


def test_the_eager_range_and_the_fastest_path_per_shape():
    run = results(overhead=overhead({
        "small": {"flash": overhead_row(10.0, 40.0, graph_us=12.0), "cudnn": overhead_row(8.0, 48.0, graph_us=9.0),
                  "math": refused("oom")},
        "seed": {"flash": overhead_row(100.0, 110.0)}}))
    _paired(run, "small", {"flash": 40.0, "flash_graph": 12.0, "cudnn": 48.0, "cudnn_graph": 9.0})
    small, seed = found(overhead_findings.overhead, run)
    assert (small.shape, small.lo, small.hi, small.near) == ("small", 400.0, 600.0, False)
    p = small.path
    assert (p.best.variant, p.best.graph, p.best_variant, p.pct) == ("cudnn", True, "cudnn", pytest.approx(9 * 1.04 / 8 * 100))  # median block
    assert (p.other.order, p.other.metric) == ("<", "wall") and p.other.ratio == pytest.approx(48 / 9)
    assert (seed.shape, round(seed.lo), seed.near, seed.path) == ("seed", 110, True, None)  # not timed in pairs


def test_a_shape_where_nothing_ran_says_nothing():
    run = results(overhead=overhead({"small": {"flash": refused("oom")}}))
    assert found(overhead_findings.overhead, run) is None


def test_eager_and_replayed_are_ranked_together_and_auto_is_no_entry():
    """Issue 29: "the best path is cuDNN replayed" ranked replays only among themselves,
    while eager cuDNN was as fast; auto replays the pinned backend's kernels and is left out."""
    run = results(overhead=overhead({"seed": {"cudnn": overhead_row(57.8, 60.0, graph_us=60.0),
                                              "auto": overhead_row(57.6, 60.1, graph_us=59.7),
                                              "flash": overhead_row(92.0, 94.0, graph_us=93.0)}}))
    _paired(run, "seed_wall", {"cudnn": 59.1, "cudnn_graph": 59.5, "auto": 59.0, "auto_graph": 58.0,
                               "flash": 94.0, "flash_graph": 93.0})
    (seed,) = found(overhead_findings.overhead, run)
    path = seed.path
    assert (path.best.variant, path.best.graph) == ("cudnn", False)  # eager has the lowest median here ...
    assert not path.decided and path.other is None  # ... but is not ordered before its replay (0.7 %)
    assert path.near == (overhead_findings.Path("cudnn", False), overhead_findings.Path("cudnn", True))
    assert ("flash", False) not in [(n.variant, n.graph) for n in path.near]  # flash is 1.6x: decided slower


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_the_note_on_separate_measurements_is_printed_once_however_many_shapes_need_it(lang):
    from dataclasses import replace

    from report.render import prose

    seed, small = (overhead_findings.ShapeOverhead(s, 99.0, 103.0, False, None) for s in ("seed", "small"))
    plain = prose.render("findings-overhead", lang, {"overhead": (seed, small)})
    one = prose.render("findings-overhead", lang, {"overhead": (replace(seed, near=True), small)})
    note = one[len(plain.split("\n")[0]):].split("\n")[0]  # what `near` adds to the first line
    assert note.strip() and note not in plain
    both = prose.render("findings-overhead", lang, {"overhead": (replace(seed, near=True), replace(small, near=True))})
    assert both.count(note.strip()) == 1
