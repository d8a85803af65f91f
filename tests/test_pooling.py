"""Which reruns are pooled into a run (issue 50 item 5, issue 51 item 4): report/verdict/across_runs.py
`pooling`, Reproduce's words about it and the render's line per rerun.

A rerun of other software versions (torch, CUDA, cuDNN, driver as provenance records them)
or whose host pace lies far outside the other runs' is never pooled: left out, and said in
the render's output and on Reproduce. Runs whose provenance names one host are one unit.
The committed reruns are all pooled.
"""
import copy
import shutil

import pytest
from factory import SITE_RUN, run_main, site_run
from runfolders import fresh_run

from report.output import write
from report.output.rerun_files import rerun_lines, rerun_results
from report.paths import RERUNS
from report.render.reruns import compared, left_out_line, reruns_table
from report.results import load_reference, load_results, write_results
from report.verdict import PACE_FACTOR, VERSIONS, host_pace, pooled, pooling

COMMITTED = RERUNS / SITE_RUN.name


def flash_times(run, factor):
    """A copy of the run with every flash block of every pair group `factor` times longer,
    its provenance (code_sha256 among it) kept: the issue's tampered copy."""
    out = copy.deepcopy(run)
    for group in out["pairs"]["groups"].values():
        for rnd in group["rounds"]:
            if "flash" in rnd.get("blocks_us", {}):
                rnd["blocks_us"]["flash"] = [factor * x for x in rnd["blocks_us"]["flash"]]
    return out


def test_the_committed_runs_are_all_pooled_with_room_to_spare():
    """Runs A-I (docs/generated/<gpu>, data/reruns/<gpu>/b..i): none left out; the slowest
    host's pace is well inside PACE_FACTOR of the others' median."""
    run = load_results(SITE_RUN / "results.json")
    reruns = rerun_results(COMMITTED)
    if not reruns:
        pytest.skip("no reruns committed for the site's GPU")
    chosen = pooling(run, reruns)
    assert chosen.left_out == () and [k.name for k in chosen.kept] == [name for name, _ in reruns]
    paces = [host_pace(run)[0]] + [host_pace(r)[0] for _, r in reruns]
    for i, pace in enumerate(paces):
        others = sorted(paces[:i] + paces[i + 1:])
        centre = (others[len(others) // 2] + others[(len(others) - 1) // 2]) / 2
        assert max(pace / centre, centre / pace) < PACE_FACTOR / 1.4  # 1.97x at most today
    assert len(chosen.units) == len(paces)  # no host recorded: each run its own unit


def test_a_rerun_with_every_flash_block_20_times_is_left_out_and_named():
    ref, run = load_reference(), site_run()
    reruns = [("b", site_run()), ("c", site_run()), ("zz", flash_times(site_run(), 20))]
    chosen = pooling(run, reruns)
    assert [k.name for k in chosen.kept] == ["b", "c"]
    (left,) = chosen.left_out
    assert left.name == "zz" and left.reason == "pace" and left.pace / left.others == pytest.approx(20, rel=0.05)
    assert compared(pooled(run, reruns), ref) == compared(pooled(run, reruns[:2]), ref)  # no word of it counts
    for lang in ("en", "nb"):
        table = reruns_table(run, ref, reruns, lang)
        assert left_out_line(left, lang) in table and ", zz" not in table.splitlines()[0]
    lines = rerun_lines(run, reruns, "data/reruns/gpu")
    assert sum(line.startswith("pooled rerun") for line in lines) == 2
    assert [line for line in lines if "zz" in line] == [
        next(line for line in lines if line.startswith("left out rerun data/reruns/gpu/zz: its host pace"))]


@pytest.mark.parametrize("field", VERSIONS)
def test_a_rerun_of_other_software_is_left_out_and_said(field):
    ref, run = load_reference(), site_run()
    other = site_run()
    other["provenance"][field] = "2.10.0+cu126" if field == "torch" else "0.0-other"
    chosen = pooling(run, [("b", site_run()), ("old", other)])
    (left,) = chosen.left_out
    assert left.reason == "versions" and left.versions == ((field, run["provenance"][field],
                                                             other["provenance"][field]),)
    assert [k.name for k in chosen.kept] == ["b"]
    assert "run_rounds" not in pooled(run, [("old", other)])["pairs"]["groups"]["small"]
    for lang in ("en", "nb"):
        assert left_out_line(left, lang) in reruns_table(run, ref, [("b", site_run()), ("old", other)], lang)
    (line,) = [x for x in rerun_lines(run, [("old", other)], "r") if "old" in x]
    assert line.startswith("left out rerun r/old: other software") and other["provenance"][field] in line


def test_a_version_recorded_by_one_run_and_not_the_other_differs():
    run, other = site_run(), site_run()
    del other["provenance"]["cudnn"]
    assert pooling(run, [("b", other)]).left_out[0].versions == (("cudnn", run["provenance"]["cudnn"], None),)


def test_runs_that_share_a_host_are_one_unit_and_reproduce_says_how_many_record_it():
    ref, run = load_reference(), site_run()
    run["provenance"]["host"] = "h-1"
    b, c, d = site_run(), flash_times(site_run(), 1.5), site_run()
    b["provenance"]["host"] = "h-1"  # run A's machine again
    c["provenance"]["host"] = "h-2"  # d records none
    chosen = pooling(run, [("b", b), ("c", c), ("d", d)])
    assert chosen.units == ((0, 1), (2,), (3,)) and chosen.hosts_recorded == 3
    assert chosen.unit_names("A") == ["A+b", "c", "d"]
    group = pooled(run, [("b", b), ("c", c), ("d", d)])["pairs"]["groups"]["small"]
    assert group["run_rounds"][0] == run["pairs"]["groups"]["small"]["rounds"] + b["pairs"]["groups"]["small"]["rounds"]
    v = compared(pooled(run, [("b", b), ("c", c), ("d", d)]), ref)["auto_small.verdict"]
    assert v.runs == 3 and len(v.run_ratios) == 3
    table = reruns_table(run, ref, [("b", b), ("c", c), ("d", d)], "en")
    assert "this run+b, c, d" in table.splitlines()[0]


def test_a_run_lacking_a_figure_keeps_the_rounds_of_its_host_in_step():
    run, b = site_run(), site_run()
    run["provenance"]["host"] = b["provenance"]["host"] = "h-1"
    del b["variants"]["flash"]["rounds"]
    rounds = pooled(run, [("b", b)])["variants"]["flash"]["run_rounds"]
    count = b["rounds"]["count"]
    assert rounds == [run["variants"]["flash"]["rounds"] + [None] * count]


def test_the_render_names_each_rerun_and_a_tampered_one_changes_no_table_but_reproduce(tmp_path, monkeypatch, capsys):
    """The issue's try: a copy of a committed rerun in data/reruns/<gpu>/zz/ with every flash
    block x20 (its code_sha256 copied). It changed 24 table files without a word; now it is
    left out, the render says so, and only Reproduce's table (which names it) differs."""
    if not COMMITTED.is_dir():
        pytest.skip("no reruns committed for the site's GPU")
    reruns = tmp_path / "reruns"
    shutil.copytree(COMMITTED, reruns / SITE_RUN.name)
    monkeypatch.setattr(write, "RERUNS", reruns)
    rendered = {}
    for label in ("before", "after"):
        if label == "after":
            (reruns / SITE_RUN.name / "zz").mkdir()
            write_results(flash_times(load_results(COMMITTED / "b" / "results.json"), 20),
                          reruns / SITE_RUN.name / "zz" / "results.json")
        folder = fresh_run(tmp_path / label)
        code, out = run_main(["--render-only", "--out", str(folder.parent), "--slug", folder.name], capsys)
        assert code == 0, out.err
        rendered[label] = ({p.name: p.read_text(encoding="utf-8") for p in (folder / "tables").iterdir()}, out.out)
    (before, said_before), (after, said_after) = rendered["before"], rendered["after"]
    assert sorted(name for name in before if before[name] != after[name]) == ["reruns.en.md", "reruns.nb.md"]
    left = [line for line in said_after.splitlines() if line.startswith("left out rerun")]
    assert len(left) == 1 and left[0].startswith(f"left out rerun {reruns / SITE_RUN.name / 'zz'}: its host pace")
    pooled_lines = [line for line in said_before.splitlines() if line.startswith("pooled rerun")]
    assert len(pooled_lines) == len(rerun_results(COMMITTED)) == len(
        [line for line in said_after.splitlines() if line.startswith("pooled rerun")])


def test_a_host_is_a_string_where_provenance_records_one(tmp_path):
    from report.results import UsageError

    run = site_run()
    run["provenance"]["host"] = "a1b2c3d4"
    write_results(run, tmp_path / "results.json")
    assert load_results(tmp_path / "results.json")["provenance"]["host"] == "a1b2c3d4"
    run["provenance"]["host"] = {"name": "gpu-node-17"}
    write_results(run, tmp_path / "results.json")
    with pytest.raises(UsageError, match="provenance.host: expected a string"):
        load_results(tmp_path / "results.json")
