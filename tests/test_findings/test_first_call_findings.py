"""report/render/findings/first_call_findings.py: a fused backend's first call, taken apart."""
import pytest
from factory import findings_of, first_calls, first_calls_row, h200, nothing_measured, refused, results, said

from report.render.findings import FINDINGS, first_call_findings


@pytest.mark.parametrize("name", findings_of(first_call_findings))
def test_each_finding_speaks_on_the_h200_run_and_is_silent_without_its_data(name):
    assert said(FINDINGS[name], h200())
    assert said(FINDINGS[name], nothing_measured()) == []


def test_a_new_shape_pays_again_only_when_its_first_call_is_ten_times_its_second():
    run = results(first_calls=first_calls({
        "cudnn": first_calls_row(900.0, new_shape_ms=400.0, new_again_ms=0.1),
        "flash": first_calls_row(50.0, new_shape_ms=0.5, new_again_ms=0.1),
        "efficient": refused()}))
    cudnn, flash = said(first_call_findings.first_calls, run)
    assert cudnn.startswith("SDPA cuDNN: the first call in the process took 900.0 ms") and "pays again" in cudnn
    assert "sequence length 2,048" in cudnn
    assert flash.startswith("SDPA flash") and "costs little extra" in flash


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
    line_cudnn, line_flash = said(first_call_findings.first_calls, run)
    assert line_cudnn.startswith("SDPA cuDNN, in 3 fresh processes: the first call took 1.00 s in the run's first")
    assert "103–110 ms in the later ones" in line_cudnn and "pays again" in line_cudnn
    assert "a plan of its own" in line_cudnn and "41.0–45.0 ms" in line_cudnn
    assert line_flash.startswith("SDPA flash, in 2 fresh processes") and "found what the first thread" in line_flash
    from report.render.extra_tables import first_calls_table
    table = first_calls_table(run["first_calls"], "en")
    assert "| First process | Later processes |" in table and "| SDPA cuDNN | 1.00 s | 103–110 ms |" in table


def test_the_seed_claim_of_a_new_kernel_per_call_is_answered_from_cudnn_s_fresh_processes():
    run = h200()
    (line,) = said(first_call_findings.first_calls_per_call, run)
    assert "once per shape" in line and "not on every call" in line
    for r in run["first_calls"]["rows"]["cudnn"]["rounds"]:
        r["same_shape_again_ms"] = r["first_new_shape_ms"]  # every call as dear as a new shape's first
    (line,) = said(first_call_findings.first_calls_per_call, run)
    assert "does not tell the claim from its opposite" in line
    run["first_calls"]["rows"].pop("cudnn")
    assert said(first_call_findings.first_calls_per_call, run) == []
