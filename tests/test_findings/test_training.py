"""report/render/findings/training.py: forward + backward against forward, kernels, memory."""
import pytest
from factory import backward, findings_of, found, kernel, nothing_measured, refused, results, row, site_run

from report.render.findings import FINDINGS, training


@pytest.mark.parametrize("name", findings_of(training))
def test_each_finding_speaks_on_the_site_run_and_is_silent_without_its_data(name):
    assert found(FINDINGS[name], site_run()) is not None
    assert found(FINDINGS[name], nothing_measured()) is None


def test_training_against_forward_its_own_kernels_and_memory():
    bwd = row(300.0, 900.0, kernels=[kernel("flash_bwd_kernel", 200.0, aten_op="aten::_flash_attention_backward"),
                                      kernel("flash_fwd_kernel", 100.0, aten_op="aten::_flash_attention_forward")],
              peak_extra_mib=64.0)
    run = results({"flash": row(100.0, 100.0), "math": row(400.0, 400.0)},
                  backward=backward({"flash": bwd, "math": refused("oom")}))
    # in kernel time (300 against 100), not in the profiler's GPU span (900); math ran out of memory
    assert found(training.train_ratio, run) == (("flash", 3.0),)
    assert found(training.train_kernels, run) == (("flash", ("flash_bwd_kernel",)),)  # the backward ones only
    assert found(training.train_memory, run) == (("flash", 64.0),)


def _training_pairs(blocks_per_round):
    return {"pairs": {"groups": {"training": {"metric": "wall", "rounds": [
        {"blocks_us": blocks} for blocks in blocks_per_round]}}}}


def test_a_training_step_is_compared_in_wall_time_by_its_pairs():
    run = results({"flash": row(100.0, 100.0)})
    auto = [300.0 + i % 7 for i in range(30)]
    run.update(_training_pairs([{"auto": auto, "flash": [1.5 * a for a in auto], "cudnn": [a * 1.01 for a in auto]}] * 3))
    got = found(training.train_pairs, run)
    assert got.auto_us == pytest.approx(303.0)
    rows = {r.name: r for r in got.rows}
    assert rows["flash"].verdict.order == "<" and rows["flash"].verdict.ratio == pytest.approx(1.5)
    assert rows["flash"].step_us == pytest.approx(454.5)
    assert rows["cudnn"].verdict.order is None  # 1 % apart: the same within the rule's ±y
    without = results({"flash": row(100.0, 100.0)})
    assert found(training.train_pairs, without) is None
