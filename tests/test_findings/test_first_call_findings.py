"""report/render/findings/first_call_findings.py: a fused backend's first call, taken apart."""
import pytest
from factory import findings_of, first_calls, first_calls_row, found, nothing_measured, refused, results, site_run

from report.render.findings import FINDINGS, first_call_findings


@pytest.mark.parametrize("name", findings_of(first_call_findings))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_a_new_shape_pays_again_only_when_its_first_call_is_ten_times_its_second():
    run = results(first_calls=first_calls({
        "cudnn": first_calls_row(900.0, new_shape_ms=400.0, new_again_ms=0.1),
        "flash": first_calls_row(50.0, new_shape_ms=0.5, new_again_ms=0.1),
        "efficient": refused()}))
    cudnn, flash = found(first_call_findings.first_calls, run)  # efficient refused: no entry
    assert (cudnn.variant, cudnn.first_us, cudnn.seq, cudnn.pays) == ("cudnn", 900_000.0, 2048, True)
    assert (flash.variant, flash.pays) == ("flash", False)


def fresh(first_ms, again_ms=0.2, new_ms=40.0, new_again_ms=0.3, thread_ms=None):
    """One fresh process's first calls (report/measure/first_call_child.py)."""
    r = {"status": "ok", "first_call_ms": first_ms, "same_shape_again_ms": again_ms,
         "first_new_shape_ms": new_ms, "new_shape_again_ms": new_again_ms}
    if thread_ms is not None:
        r["new_thread_first_ms"], r["new_thread_again_ms"] = thread_ms, again_ms
    return r


def test_fresh_processes_give_the_first_process_apart_and_ranges_for_the_rest():
    cudnn = first_calls_row(683.0)
    cudnn["rounds"] = [fresh(1000.0, thread_ms=45.0), fresh(103.0, thread_ms=41.0), fresh(110.0, thread_ms=44.0)]
    flash = first_calls_row(10.0)
    flash["rounds"] = [fresh(11.0, new_ms=0.4, thread_ms=0.21), fresh(10.0, new_ms=0.35, thread_ms=0.2),
                       {"status": "error", "reason": "a process that died"}]
    run = results(first_calls=first_calls({"cudnn": cudnn, "flash": flash}))
    c, f = found(first_call_findings.first_calls, run)
    assert (c.n, c.first_us, c.later, c.pays) == (3, 1_000_000.0, (103_000.0, 110_000.0), True)
    assert (c.thread, c.thread_pays) == ((41_000.0, 45_000.0), True)  # cuDNN's plans are per thread
    assert (f.n, f.thread_pays) == (2, False)  # the process that died is no round
    from report.render.extra_tables import first_calls_table
    table = first_calls_table(run["first_calls"], "en")
    assert "| First process | Later processes |" in table and "| SDPA cuDNN | 1.00 s | 103–110 ms |" in table


def test_the_seed_claim_of_a_new_kernel_per_call_is_answered_from_cudnn_s_fresh_processes():
    run = site_run()
    assert found(first_call_findings.first_calls_per_call, run).once
    for r in run["first_calls"]["rows"]["cudnn"]["rounds"]:
        r["same_shape_again_ms"] = r["first_new_shape_ms"]  # every call as dear as a new shape's first
    assert not found(first_call_findings.first_calls_per_call, run).once
    run["first_calls"]["rows"].pop("cudnn")
    assert found(first_call_findings.first_calls_per_call, run) is None
