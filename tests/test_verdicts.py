"""benchmarks/verdicts.py: the findings of several runs, numbers masked, and the sentences
whose words differ, on the site's run and a copy with one order reversed: each run on its
own (--each), and pooled with each run in turn left out (the default)."""
import json

import pytest
from factory import SITE_RUN, site_run

from benchmarks import verdicts
from report.results import load_results


def test_masking_keeps_words_and_hides_every_number():
    text = "SDPA cuDNN 7,9\u00a0µs av 65,7\u00a0µs (12\u00a0%); sm90 kernels, 1,284.1 MiB, 1.7× and 2\u00a0048 tokens."
    assert verdicts.mask(text) == "SDPA cuDNN # av # (#); sm90 kernels, #, # and # tokens."
    # a range whose ends round alike is written as one value: the same words
    assert verdicts.mask("5–6% against 3%") == verdicts.mask("5% against 3%") == "# against #"
    assert verdicts.split_sentences("<!-- header -->\n\n- One took 1.5 ms. Two: 3.6e-03.\n- Three.") == \
        ["One took 1.5 ms.", "Two: 3.6e-03.", "Three."]


@pytest.fixture(scope="module")
def reversed_run(tmp_path_factory):
    """A copy of the committed run in which flash and efficient swap their GPU and wall
    times, in every round too, and their blocks in the seed shape's wall-time pairs."""
    folder = tmp_path_factory.mktemp("reversed")
    results = site_run()
    flash, efficient = results["variants"]["flash"], results["variants"]["efficient"]
    for key in ("cuda_time_us", "kernel_sum_us", "wall_time_us"):
        flash[key], efficient[key] = efficient[key], flash[key]
    for fr, er in zip(flash.get("rounds") or [], efficient.get("rounds") or [], strict=True):
        for key in ("cuda_time_us", "kernel_sum_us", "wall_time_us"):
            fr[key], er[key] = er.get(key), fr.get(key)
    for rnd in results["pairs"]["groups"]["seed_wall"]["rounds"]:
        blocks = rnd["blocks_us"]
        blocks["flash"], blocks["efficient"] = blocks["efficient"], blocks["flash"]
    (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")
    return folder


# the findings that read the swapped kernel and wall times: the ranking, the host share
# (host overhead over kernel time), and FlexAttention against flash
READ_KERNEL_TIMES = {"findings-fused", "finding-rec-cpu", "findings-compiled"}


def test_the_reversed_order_is_reported_and_nothing_else(reversed_run, tmp_path):
    runs = {}
    for name, folder in (("committed", SITE_RUN), ("reversed", reversed_run)):
        runs[name] = verdicts.rendered_findings(load_results(folder / "results.json"), tmp_path / name)
    diffs, same = verdicts.differing(runs)
    assert same > 100
    for lang in ("nb", "en"):
        found = [d for d in diffs if d[1] == lang]
        assert {d[0] for d in found} <= READ_KERNEL_TIMES, found
        ranking = sorted((d for d in found if d[0] == "findings-fused"), key=lambda d: sorted(d[3]))
        assert len(ranking) == 2  # the committed run's sentence, and the reversed run's
        (_, _, a, said_a), (_, _, b, said_b) = ranking
        assert list(said_a) == ["committed"] and list(said_b) == ["reversed"]
        swapped = a.replace("flash", "\0").replace("efficient", "flash").replace("\0", "efficient")
        assert swapped == b and a.index("flash") < a.index("efficient")


def test_the_command_prints_both_versions_and_exits_0(reversed_run, capsys):
    assert verdicts.main([str(SITE_RUN), str(reversed_run), "--lang", "en", "--each"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "sentence(s) differ in words between the renderings" in out[-1]
    said = [line for line in out if ": said by " in line]
    assert said and all(line.split(".en: said by")[0] in READ_KERNEL_TIMES for line in said)
    ranked = [line for line in out if "in kernel time: cuDNN" in line and "efficient (" in line]
    assert any(line.index("efficient (") < line.index("flash (") for line in ranked)
    assert any(line.index("efficient (") > line.index("flash (") for line in ranked)


def test_each_run_gets_its_host_pace_and_whether_its_code_is_the_first_runs(reversed_run, tmp_path):
    committed = site_run()
    flash_blocks = [r["blocks_us"]["flash"] for r in committed["pairs"]["groups"]["small"]["rounds"]]
    slower = json.loads(json.dumps(committed))
    for rnd in slower["pairs"]["groups"]["small"]["rounds"]:
        rnd["blocks_us"]["flash"] = [2 * b for b in rnd["blocks_us"]["flash"]]
    slower["provenance"]["code_sha256"] = {"report/measure/run.py": "0" * 16}
    assert verdicts.host_pace(slower) == pytest.approx(tuple(2 * x for x in verdicts.host_pace(committed)))
    median, fastest = verdicts.host_pace(committed)
    assert fastest == min(map(min, flash_blocks)) < median <= max(map(max, flash_blocks))
    lines = verdicts.run_lines({"a": committed, "b": slower, "c": committed})
    assert ["DIFFERS" in line for line in lines] == [False, True, False]
    assert ["pooled" in line for line in lines] == [False, False, True]
    del slower["pairs"]
    assert verdicts.host_pace(slower) is None


def test_a_missing_folder_or_a_file_that_does_not_render_is_one_line_exit_2(tmp_path, capsys):
    assert verdicts.main([str(SITE_RUN), str(tmp_path / "nothing")]) == 2
    assert verdicts.main([str(SITE_RUN), str(SITE_RUN)]) == 2
    results = site_run()
    del results["variants"]["cudnn"]["kernels"]
    (tmp_path / "results.json").write_text(json.dumps(results), encoding="utf-8")
    assert verdicts.main([str(SITE_RUN), str(tmp_path), "--each"]) == 2
    assert verdicts.main([str(SITE_RUN), str(tmp_path)]) == 2  # two runs: none left to pool without one
    err = "".join(line for line in capsys.readouterr().err.splitlines(True) if ": rendering " not in line)
    assert err.count("\n") == 4 and "no results.json there" in err and "given twice" in err
    assert "does not render (KeyError" in err and "at least three" in err


def _copy(folder, results):
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(results), encoding="utf-8")
    return folder


def test_the_command_says_on_stderr_which_rendering_it_is_at(tmp_path, capsys, monkeypatch):
    """Issue 50: with 100 reruns it printed nothing for 150 s. One line per rendering, before it."""
    monkeypatch.setattr(verdicts, "rendered_findings", lambda results, tmp, reruns=(): {})
    results = site_run()
    folders = [str(SITE_RUN)] + [str(_copy(tmp_path / f"r{i}", results)) for i in range(5)]
    assert verdicts.main(folders) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"verdicts.py: rendering {i} of 7: {label} ({n} runs)" for i, (label, n) in enumerate(
        [("all", 6)] + [(f"without {f}", 5) for f in folders], 1)]


def test_pooled_runs_that_agree_keep_every_word_with_any_one_left_out(tmp_path):
    results = site_run()
    folders = [SITE_RUN, _copy(tmp_path / "b", results), _copy(tmp_path / "c", results)]
    runs = verdicts.renderings({str(f): load_results(f / "results.json") for f in folders})
    assert list(runs)[0] == "all" and len(runs) == 4
    diffs, same = verdicts.differing(runs)
    assert diffs == [] and same > 100


def test_a_run_that_reverses_an_order_changes_the_words_when_it_is_left_out(reversed_run, tmp_path):
    """Two runs find flash faster than efficient in wall time, a third the reverse: across
    all three the order is undecided, and without the third it is decided. The check names
    the renderings that say each version."""
    results = site_run()
    loaded = {"a": results, "b": load_results(_copy(tmp_path / "b", results) / "results.json"),
              "r": load_results(reversed_run / "results.json")}
    diffs, _ = verdicts.differing(verdicts.renderings(loaded))
    said = [set(d[3]) for d in diffs if d[0] == "findings-fused" and d[1] == "en"]
    assert {"without r"} in said and any({"all", "without a", "without b"} <= s for s in said)
