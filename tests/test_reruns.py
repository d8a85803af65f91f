"""report/render/reruns.py and report/output/rerun_files.py: every comparison the findings decide, across the committed run
and the reruns committed beside it (data/reruns/<gpu>/), the run as the unit."""
import copy
import json

import pytest
from factory import site_run

from report.output.rerun_files import rerun_results
from report.paths import DEFAULT_OUT, RERUNS
from report.render.findings.common import Paired
from report.render.reruns import (
    compared,
    holds_without_each_run,
    left_out_line,
    reruns_table,
    rule_lines,
    steady,
    with_interval,
)
from report.results import load_reference, load_results
from report.text.catalog import t
from report.verdict import LeftOut, other_code, pooled, pooling


def test_the_committed_reruns_are_by_the_committed_runs_measuring_code():
    """A rerun beside a GPU's run was measured by the same code (results.json code_sha256):
    reruns by older code move to data/archive/ when the run is measured again."""
    for gpu in sorted(p for p in RERUNS.iterdir() if p.is_dir()) if RERUNS.is_dir() else []:
        run = load_results(DEFAULT_OUT / gpu.name / "results.json")
        for name, rerun in rerun_results(gpu):
            assert rerun["provenance"]["code_sha256"] == run["provenance"]["code_sha256"], (gpu.name, name)


def test_reruns_load_by_folder_name_and_folders_without_results_are_left_out(tmp_path):
    run = site_run()
    for name in ("c", "b", "empty"):
        (tmp_path / name).mkdir()
    for name in ("c", "b"):
        (tmp_path / name / "results.json").write_text(json.dumps(run), encoding="utf-8")
    assert [name for name, _ in rerun_results(tmp_path)] == ["b", "c"]
    assert rerun_results(tmp_path / "no-such-gpu") == [] and rerun_results(None) == []


def test_every_paired_verdict_of_the_findings_is_found_with_its_metric():
    found = compared(site_run(), load_reference())
    assert found["flex.wall"].metric == "wall" and found["flex.kernel"].metric == "kernel"
    assert isinstance(found["auto_small.verdict"], Paired) and found["auto_small.verdict"].order == "<"


def test_a_verdict_whose_words_change_between_runs_is_not_steady():
    ref = load_reference()
    run = site_run()
    flipped = copy.deepcopy(run)
    for rnd in flipped["pairs"]["groups"]["small"]["rounds"]:  # every pinned backend as slow as auto
        for name in ("flash", "efficient", "cudnn"):
            rnd["blocks_us"][name] = list(rnd["blocks_us"]["auto"])
    a, b = compared(run, ref), compared(flipped, ref)
    assert steady([a["flex.wall"], b["flex.wall"]])
    assert not steady([a["auto_small.verdict"], b["auto_small.verdict"]])
    assert not steady([a["flex.wall"], None])  # a run without the comparison


def _slower_pinned(run, factor):
    """A copy of the run in which every pinned fused backend's blocks at the small shape take
    `factor` times auto's."""
    out = copy.deepcopy(run)
    for rnd in out["pairs"]["groups"]["small"]["rounds"]:
        for name in ("flash", "efficient", "cudnn"):
            rnd["blocks_us"][name] = [factor * x for x in rnd["blocks_us"]["auto"]]
    return out


def test_pooled_runs_decide_with_the_run_as_the_unit():
    """Issue 39: a verdict the CPU paces moves with the host between runs. Pooled, each run
    gives one ratio (the geometric mean over its processes) and the interval is across runs:
    runs at 1.20x, 1.21x and 1.19x are decided, runs at 0.98x, 1.20x and 1.10x are not."""
    ref, run = load_reference(), site_run()
    steady_runs = [("b", _slower_pinned(run, 1.20)), ("c", _slower_pinned(run, 1.21)), ("d", _slower_pinned(run, 1.19))]
    v = compared(pooled(steady_runs[0][1], steady_runs[1:]), ref)["auto_small.verdict"]
    assert v.runs == 3 and v.order == ">" and v.run_ratios == pytest.approx((1.20, 1.21, 1.19))
    assert v.rounds == 3 * len(run["pairs"]["groups"]["small"]["rounds"])
    moving = [("b", _slower_pinned(run, 0.98)), ("c", _slower_pinned(run, 1.20)), ("d", _slower_pinned(run, 1.10))]
    w = compared(pooled(moving[0][1], moving[1:]), ref)["auto_small.verdict"]
    assert w.runs == 3 and w.undecided and w.reason == "margin"
    # alone, each of those runs decides: the run's processes share its host
    assert [compared(r, ref)["auto_small.verdict"].order for _, r in moving] == [None, ">", ">"]
    assert compared(moving[0][1], ref)["auto_small.verdict"].same


def test_pooling_leaves_the_runs_figures_and_the_loaded_results_alone():
    run, other = site_run(), _slower_pinned(site_run(), 2.0)
    before = copy.deepcopy(run)
    both = pooled(run, [("b", other)])
    assert run == before  # nothing attached to the loaded results
    group = both["pairs"]["groups"]["small"]
    assert group["rounds"] is run["pairs"]["groups"]["small"]["rounds"]
    assert group["run_rounds"] == [run["pairs"]["groups"]["small"]["rounds"], other["pairs"]["groups"]["small"]["rounds"]]
    assert both["variants"]["flash"]["kernel_sum_us"] == run["variants"]["flash"]["kernel_sum_us"]
    assert pooled(run, []) is run


def test_a_verdict_that_rests_on_one_run_does_not_hold_without_each_run():
    def wall(ratios):
        return Paired(">", "wall", 1.1, (1.06, 1.14), 95.0, 5.0, 120, 12, runs=len(ratios), run_ratios=tuple(ratios))
    assert holds_without_each_run(wall([1.10, 1.11, 1.09, 1.10]))
    # undecided across all five, decided without the 1.20x run: the words rest on that run
    assert not holds_without_each_run(wall([1.07, 1.08, 1.09, 1.07, 1.20]))
    assert holds_without_each_run(wall([1.10, 1.11])) is None  # two runs: one left out gives no interval


def test_without_reruns_the_table_says_so():
    assert reruns_table(site_run(), load_reference(), [], "en") == t("reruns.none", "en")


def _wall(order, interval, same=False):
    return Paired(order, "wall", 1.1, interval, 95.0, 5.0, 120, 4, same, None if order or same else "margin")


def test_a_verdict_cell_gives_its_interval_in_the_page_s_number_format():
    assert "0.777×" in with_interval(_wall(None, (0.777, 2.30)), "en")
    assert "0,777×" in with_interval(_wall(None, (0.777, 2.30)), "nb")


def test_the_table_gives_the_verdict_across_the_runs_and_each_run_s_ratio():
    ref, run = load_reference(), site_run()
    reruns = [("b", _slower_pinned(run, 1.20)), ("c", _slower_pinned(run, 1.21))]
    table = reruns_table(run, ref, reruns, "en")
    header = table.splitlines()[0]
    assert t("reruns.across", "en", n=3) in header and "this run, b, c" in header
    across = compared(pooled(run, reruns), ref)["auto_small.verdict"]
    row = next(line for line in table.splitlines() if line.startswith("| `auto_small.verdict`"))
    assert with_interval(across, "en") in row and "1.20× · 1.21×" in row


def test_a_rerun_of_other_measuring_code_is_left_out_and_the_table_says_so():
    """A rerun whose provenance code_sha256 differs from the run's was measured by other
    code: it is not pooled, its figures are not set beside the run's, and a line under the
    table names it."""
    ref, run = load_reference(), site_run()
    same = copy.deepcopy(run)
    other = copy.deepcopy(run)
    other["provenance"]["code_sha256"] = {**other["provenance"]["code_sha256"], "report/trace/analyze.py": "0" * 16}
    reruns = [("b", same), ("c", other)]
    assert other_code(run, reruns) == ["c"]
    assert other_code(run, [("b", same)]) == []
    assert "run_rounds" not in pooled(run, [("c", other)])["pairs"]["groups"]["small"]
    for lang in ("en", "nb"):
        table = reruns_table(run, ref, reruns, lang)
        said = left_out_line(LeftOut("c", "code"), lang)
        assert table == reruns_table(run, ref, [("b", same)], lang).replace(
            rule_lines(pooling(run, [("b", same)]), lang), rule_lines(pooling(run, reruns), lang))
        assert said in table and said not in reruns_table(run, ref, [("b", same)], lang)
        assert ", b)" in table.splitlines()[0] and ", c)" not in table.splitlines()[0]
    # every rerun of other code: no table, only the rule and the line that says why
    assert reruns_table(run, ref, [("c", other)], "en") == rule_lines(pooling(run, [("c", other)]), "en")


def test_under_the_tables_each_run_s_host_pace_in_each_process():
    from report.render.reruns import process_paces
    from report.text.format import fmt_us_sig

    ref, run = load_reference(), site_run()
    slower = copy.deepcopy(run)
    for rnd in slower["pairs"]["groups"]["small"]["rounds"]:
        rnd["blocks_us"]["flash"] = [2 * x for x in rnd["blocks_us"]["flash"]]
    paces = process_paces(run)
    assert len(paces) == len(run["pairs"]["groups"]["small"]["rounds"])
    assert process_paces(slower) == pytest.approx([2 * p for p in paces])
    lines = reruns_table(run, ref, [("b", slower)], "en").splitlines()
    row = next(line for line in lines if line.startswith("| b |"))
    assert row == "| b | " + " · ".join(fmt_us_sig(2 * p, "en") for p in paces) + " |"
