"""The derive step (report/derive/): a collected run's figures are read off its kept traces
each time it is loaded, by today's analysis; the run names a trace only inside its own
folder; a run of the older schema is loaded as it was stored."""
import json
import shutil

import pytest

from report.derive import kept, sections
from report.results import COLLECTED, UsageError, load_results


def _copy(cpu_run, tmp_path):
    run = tmp_path / "cpu"
    shutil.copytree(cpu_run, run)
    return run


def test_a_run_collects_traces_and_blocks_and_no_figure_a_trace_shows(cpu_run):
    raw = json.loads((cpu_run / "results.json").read_text(encoding="utf-8"))
    assert raw["schema_version"] == COLLECTED
    math = raw["variants"]["math"]
    assert math["trace"] == "traces/math.json.gz" and math["range"] == "math_fwd"
    assert not {"cpu_time_us", "kernel_sum_us", "kernels", "backend_ran", "tflops"} & set(math)
    assert len(math["wall_time_us"]["blocks_us"]) == math["wall_time_us"]["runs"]  # every block
    for r in math["rounds"]:
        assert r["trace"].startswith("traces/profiles/") and "cpu_time_us" not in r
        assert (cpu_run / r["trace"]).is_file()


def test_loading_derives_every_figure_from_the_kept_traces(cpu_run):
    results = load_results(cpu_run / "results.json")
    math = results["variants"]["math"]
    assert math["cpu_time_us"]["n"] == math["steps"] and math["kernel_sum_us"] is None  # no GPU
    assert math["tflops"] > 0 and math["backend_ran"] is None
    assert all(r["cpu_time_us"]["median"] > 0 for r in math["rounds"])


def test_a_change_to_the_analysis_rederives_the_committed_run(cpu_run, monkeypatch):
    """What the pages show follows the analysis as it is now, with no new measurement: here
    the steps' median replaced by their mean, as an edit of report/stats.py would."""
    import statistics

    from report.trace import analyze

    before = load_results(cpu_run / "results.json")["variants"]["math"]["cpu_time_us"]
    real = analyze.stats

    def mean_as_median(values):
        out = real(values)
        return out and {**out, "median": statistics.fmean(float(v) for v in values)}
    monkeypatch.setattr(analyze, "stats", mean_as_median)
    kept._analysis.cache_clear()
    try:
        after = load_results(cpu_run / "results.json")["variants"]["math"]["cpu_time_us"]
    finally:
        kept._analysis.cache_clear()
    assert after["median"] == pytest.approx(before["mean"]) and after["mean"] == before["mean"]


@pytest.mark.parametrize("name", ["../../../etc/passwd", "/etc/passwd", "traces/../results.json",
                                  "traces/profiles/zz.json.gz", "traces/x.json", 7])
def test_a_trace_that_is_not_one_of_the_runs_own_is_refused_in_one_line(cpu_run, tmp_path, name):
    run = _copy(cpu_run, tmp_path)
    raw = json.loads((run / "results.json").read_text(encoding="utf-8"))
    raw["variants"]["math"]["trace"] = name
    (run / "results.json").write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(UsageError) as err:
        load_results(run / "results.json")
    assert "\n" not in str(err.value) and "not one of a run's kept traces" in str(err.value)


def test_a_missing_or_damaged_trace_is_named_with_what_to_do(cpu_run, tmp_path):
    run = _copy(cpu_run, tmp_path)
    raw = json.loads((run / "results.json").read_text(encoding="utf-8"))
    first_round = raw["variants"]["math"]["rounds"][0]["trace"]
    (run / first_round).unlink()
    with pytest.raises(UsageError, match="which is not there: restore the run's traces/ folder"):
        load_results(run / "results.json")
    (run / first_round).write_bytes(b"not gzip")
    with pytest.raises(UsageError, match="cannot be read as its profile"):
        load_results(run / "results.json")


def test_the_ask_backend_is_read_off_kernel_names_and_inductors_kernels_are_other():
    assert sections.ask_backend([]) is None
    assert sections.ask_backend(["triton_per_fused_0", "sm90_xmma_gemm_bf16"]) == "other"


def test_a_trace_that_is_a_link_a_fifo_or_a_gzip_bomb_is_refused_without_reading_it(cpu_run, tmp_path):
    """A stranger's run folder: a kept trace that links outside, a FIFO (opening it would hang),
    or a small file that unpacks to more than any profile: each one line, nothing followed."""
    import gzip
    import os

    run = _copy(cpu_run, tmp_path)
    name = json.loads((run / "results.json").read_text(encoding="utf-8"))["variants"]["math"]["trace"]
    secret = tmp_path / "secret.json.gz"
    shutil.copy(run / name, secret)
    (run / name).unlink()
    (run / name).symlink_to(secret)
    with pytest.raises(UsageError, match="not a plain file"):
        load_results(run / "results.json")
    (run / name).unlink()
    os.mkfifo(run / name)
    with pytest.raises(UsageError, match="not a plain file"):
        load_results(run / "results.json")
    (run / name).unlink()
    with gzip.open(run / name, "wt") as fh:  # 70 MB of spaces in about 70 KB
        fh.write('{"traceEvents": [' + " " * (kept.MAX_KEPT_CHARS + 2**20) + "]}")
    assert (run / name).stat().st_size < kept.MAX_KEPT_BYTES
    kept._analysis.cache_clear()
    with pytest.raises(UsageError, match="cannot be read as its profile"):
        load_results(run / "results.json")
