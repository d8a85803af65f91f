"""report/render/reruns.py and report/output/rerun_files.py: every comparison the findings decide, across the committed run
and the reruns committed beside it (data/reruns/<gpu>/)."""
import copy
import json

from factory import site_run

from report.output.rerun_files import rerun_results
from report.paths import DEFAULT_OUT, RERUNS
from report.render.findings.common import Paired
from report.render.reruns import (
    by_other_code,
    compared,
    contradicting,
    reruns_table,
    scatter_explains,
    steady,
    with_interval,
)
from report.results import load_reference, load_results
from report.text.catalog import t


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
    assert contradicting([a["auto_small.verdict"], b["auto_small.verdict"]])  # faster, then the same


def test_undecided_in_one_run_and_decided_in_another_is_no_contradiction():
    """Issue 39: FlexAttention against flash in wall time, undecided where a run's processes
    scattered (0.94x-2.1x) and faster where they did not: the runs differ in words, but
    neither says what the other denies."""
    def paired(order, same=False):
        return Paired(order, "wall", 1.1, (1.0, 1.2), 95.0, 5.0, 120, 4, same, None if order or same else "margin")
    assert not contradicting([paired(None), paired(">"), paired(">")])
    assert not steady([paired(None), paired(">")])
    assert contradicting([paired(">"), paired("<")]) and contradicting([paired(None, same=True), paired("<")])


def test_without_reruns_the_table_says_so():
    assert reruns_table(site_run(), load_reference(), [], "en") == t("reruns.none", "en")


def _wall(order, interval, same=False):
    return Paired(order, "wall", 1.1, interval, 95.0, 5.0, 120, 4, same, None if order or same else "margin")


def test_scatter_explains_a_difference_only_where_every_undecided_interval_is_the_wider():
    """The committed runs' FlexAttention against flash: undecided in runs whose processes
    scattered (0.777x-2.30x, 0.804x-1.35x), decided where they did not (1.12x-1.15x)."""
    flex = [_wall(None, (0.777, 2.30)), _wall("<", (1.13, 1.14)), _wall(None, (0.804, 1.35)), _wall("<", (1.12, 1.15))]
    assert scatter_explains(flex)
    # undecided with a narrow interval near the margin's edge (1.04x-1.09x) while a decided
    # run's is wider (1.05x-1.16x): its centre, not its scatter, left it undecided
    near_edge = [_wall(">", (1.05, 1.16)), _wall(None, (1.04, 1.09)), _wall(">", (1.07, 1.10))]
    assert not scatter_explains(near_edge)
    assert not scatter_explains([_wall("<", (1.1, 1.2))] * 2)  # nothing undecided: nothing to explain


def test_a_row_whose_words_differ_shows_each_runs_interval_and_the_note_says_why_where_it_can():
    cell = with_interval(_wall(None, (0.777, 2.30)), "en")
    assert "0.777×" in cell and "2.30×" in cell
    assert "0,777×" in with_interval(_wall(None, (0.777, 2.30)), "nb")
    run = site_run()
    table = reruns_table(run, load_reference(), [("b", run)], "en")
    assert t("reruns.note_differ", "en") not in table  # the same run twice: no words differ
    assert "0.777×" not in table


def test_a_rerun_of_other_measuring_code_is_left_out_and_the_table_says_so():
    """A rerun whose provenance code_sha256 differs from the run's was measured by other
    code: its figures are not set beside the run's, and a line under the table names it."""
    ref, run = load_reference(), site_run()
    same = copy.deepcopy(run)
    other = copy.deepcopy(run)
    other["provenance"]["code_sha256"] = {**other["provenance"]["code_sha256"], "report/trace/analyze.py": "0" * 16}
    reruns = [("b", same), ("c", other)]
    assert by_other_code(run, reruns) == ["c"]
    assert by_other_code(run, [("b", same)]) == []
    for lang in ("en", "nb"):
        table = reruns_table(run, ref, reruns, lang)
        assert table == reruns_table(run, ref, [("b", same)], lang) + " " + t("reruns.other_code", lang, names="c")
        header = table.splitlines()[0]
        assert "| b |" in header and "| c |" not in header
    # every rerun of other code: no table, only the line that says why
    assert reruns_table(run, ref, [("c", other)], "en") == t("reruns.other_code", "en", names="c")
