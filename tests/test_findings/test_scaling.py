"""report/render/findings/scaling.py: the --all sweep: out of memory, growth, the fastest,
auto against the fastest pinned backend."""
import pytest
from factory import findings_of, found, h200, nothing_measured, results, said, speaks, stats, sweep, sweep_point

from report.render.extra_tables import auto_vs_best as auto_vs_best_rows
from report.render.findings import FINDINGS, scaling


@pytest.mark.parametrize("name", findings_of(scaling))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert speaks(FINDINGS[name], h200())
    assert not speaks(FINDINGS[name], nothing_measured())


def point(variant, seq, median, lo, hi, ran=None):
    p = sweep_point(variant, seq, median, backend_ran=ran)
    p["kernel_sum_us"] = {**stats(median), "min": lo, "max": hi}
    return p


def test_auto_is_called_slower_only_beyond_noise():
    run = results(sweep=sweep([point("auto", 256, 12.0, 11.5, 12.5, "cudnn"), point("flash", 256, 10.0, 9.5, 10.5),
                               point("auto", 512, 10.4, 10.0, 10.8, "cudnn"), point("flash", 512, 10.0, 9.6, 10.6),
                               point("auto", 1024, 12.0, 11.5, 12.5, "flash"),
                               point("flash", 1024, 10.0, 9.5, 10.5)]))
    rows = {s: slower for s, _, _, slower in auto_vs_best_rows(run["sweep"], 64)}
    # 512: the ranges overlap, so within noise; 1024: auto ran flash itself, the same kernels
    assert rows == {256: True, 512: False, 1024: False}
    assert found(scaling.auto_vs_best, run) == (scaling.HeadDimSlower(64, (scaling.Slower(256, 12.0, 10.0, "flash"),)),)


def test_time_growth_is_over_the_last_doubling_and_skips_a_variant_that_did_not_run_at_both():
    run = results(sweep=sweep([point("naive", 1024, 100.0, 99, 101), point("naive", 2048, 320.0, 318, 322),
                               point("flash", 1024, 10.0, 9, 11), point("flash", 2048, 39.0, 38, 40),
                               point("math", 1024, 50.0, 49, 51), sweep_point("math", 2048, 0, status="oom")]))
    (en,) = said(scaling.time_growth, run)
    assert "From sequence length 1,024 to 2,048" in en
    assert "naive (`masked_fill`) 3.2×, SDPA flash 3.9×." in en and "math" not in en
    assert "causal triangle grows 4.0×" in en
    assert said(scaling.time_growth, results(sweep=None)) == []


def test_out_of_memory_names_the_last_length_that_fit_and_fits_all_the_rest():
    run = results(sweep=sweep([sweep_point("math", 1024, 50.0), sweep_point("math", 2048, 0, status="oom"),
                               sweep_point("flash", 1024, 10.0), sweep_point("flash", 2048, 30.0)]))
    (line,) = said(scaling.oom, run)
    assert line.startswith("SDPA math runs out of memory at sequence length 2,048") and "at 1,024 it used" in line
    (line,) = said(scaling.fits_all, run)
    assert "SDPA flash ran at every sequence length up to 2,048" in line and "math" not in line


def test_auto_is_never_the_winner_of_its_own_backend():
    """Auto and the pinned backend it ran are one entry: the winner is the pinned one,
    named with auto, even where auto's TFLOP/s came out a rounding higher."""
    points = [sweep_point("cudnn", 4096, 100.0), sweep_point("flash", 4096, 150.0),
              sweep_point("auto", 4096, 99.9, backend_ran="cudnn")]
    points[0]["tflops"], points[1]["tflops"], points[2]["tflops"] = 500.0, 330.0, 500.5
    (line,) = said(scaling.best_tflops, results(sweep=sweep(points)))
    assert line.startswith("Highest throughput in the sweep: SDPA cuDNN (which auto ran there too) at 500.0")
    points[2]["backend_ran"] = "flash"
    (line,) = said(scaling.best_tflops, results(sweep=sweep(points)))
    assert "SDPA cuDNN at 500.0" in line and "auto" not in line


def test_the_fastest_is_said_once_with_the_exceptions_by_name():
    all_cudnn = scaling.fastest(h200(), None, "en")
    assert all_cudnn == ["Fastest at every sequence length of the sweep (256 to 16,384), at head dimension 64, 128: "
                         "cuDNN."]
    run = results(sweep=sweep([point("flash", 256, 10.0, 9.5, 10.5), point("cudnn", 256, 12.0, 11.5, 12.5),
                               point("flash", 512, 20.0, 19.0, 21.0), point("cudnn", 512, 15.0, 14.0, 16.0),
                               point("flash", 1024, 40.0, 39.0, 41.0), point("cudnn", 1024, 30.0, 29.0, 31.0)]))
    (line,) = scaling.fastest(run, None, "en")
    assert "most sequence lengths" in line and line.endswith("cuDNN. The exceptions: head dimension 64, "
                                                             "sequence length 256: flash.")
