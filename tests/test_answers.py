"""report/render/findings/answers.py: the answer each main page opens with."""
import pytest
from factory import h200, nothing_measured, overhead, overhead_row, results, row, stats

from report.render.findings import answers
from report.text.catalog import t

FUNCTIONS = [fn for fns in answers.ANSWERS.values() for fn in fns]


def said(fn, run):
    """What an answer function says of the run, in English, after checking that the
    Norwegian says as many sentences and that both fill every placeholder."""
    en, nb = fn(run, None, "en"), fn(run, None, "nb")
    assert len(en) == len(nb), (fn.__name__, en, nb)
    assert not any("{" in line and "}" in line for line in en + nb), (fn.__name__, en, nb)
    return en


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda fn: fn.__name__)
def test_each_answer_speaks_on_the_h200_run_and_is_silent_without_its_data(fn):
    lines = said(fn, h200())
    assert 1 <= len(lines) <= 4  # two to four sentences (one line may hold two)
    assert said(fn, nothing_measured()) == []


def test_every_answer_file_is_one_paragraph_or_says_the_run_lacks_it():
    for text, _ in answers.answer_files(h200(), None, "en").values():
        assert "\n" not in text and not text.startswith("- ")
    for text, _ in answers.answer_files(nothing_measured(), None, "nb").values():
        assert text == t("finding.answer_missing", "nb")


def test_math_s_fp32_matmuls_count_net_of_the_matmuls_they_replace():
    run = h200()
    math, naive = (run["variants"][n]["attribution"] for n in ("math", "naive_inplace"))
    diffs = dict(answers.math_diffs(run))
    assert "matmul_fp32" not in diffs
    net = math["matmul_fp32"]["us_per_forward"] - naive["matmul"]["us_per_forward"]
    assert diffs["matmul"] == pytest.approx(net)


def test_auto_is_said_to_have_the_least_kernel_time_only_within_noise_of_the_least():
    tied = results({"flash": row(100.0), "cudnn": row(101.0), "auto": row(101.0, backend_ran="cudnn")})
    (line,) = said(answers.answer_fused, tied)[1:2]
    assert "ran cuDNN" in line
    assert "no fused backend had less kernel time" in said(answers.answer_recommendations, tied)[0]
    slower = results({"flash": row(100.0), "cudnn": row(150.0), "auto": row(150.0, backend_ran="cudnn")})
    assert "no fused backend had less kernel time" in said(answers.answer_recommendations, slower)[0]  # no rounds
    for name, us in (("flash", 100.0), ("cudnn", 150.0)):  # the rounds decide kernel time (the paired rule)
        slower["variants"][name]["rounds"] = [{"kernel_sum_us": stats(us * f)} for f in (1.0, 1.01, 0.99)]
    assert "1.5× as much as flash" in said(answers.answer_recommendations, slower)[0]


def test_who_sets_the_pace_follows_the_eager_call_against_the_kernel_time():
    run = results({"flash": row(10.0)},
                  overhead=overhead({"seed": {"flash": overhead_row(100.0, 101.0)},
                                     "small": {"flash": overhead_row(5.0, 40.0, graph_us=7.0)}}))
    run["pairs"] = {"groups": {"small": {"metric": "wall", "rounds": [  # the replay's figures: from the pairs
        {"blocks_us": {"flash": [40.0] * 40, "flash_graph": [7.0] * 40}}]}}}
    seed, small, graph = said(answers.answer_gpu_waits, run)
    assert seed.endswith("so the GPU sets the pace.") and small.endswith("so the CPU sets the pace.")
    assert "7.0 µs per call from a graph against 40.0 µs eager" in graph
