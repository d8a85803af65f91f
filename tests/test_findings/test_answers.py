"""report/render/findings/answers.py: the answer each main page opens with, as facts; the
templates (answer-<page>.<lang>.md.j2) write them as one paragraph (findings.answer_files)."""
import pytest
from factory import nothing_measured, overhead, overhead_row, results, row, site_run, stats

from report.render import findings
from report.render.findings import answers
from report.render.findings.naive_math import math_diffs
from report.render.findings.registry import FINDINGS
from report.text.catalog import t

ANSWERS = [name for names in findings.ANSWER_FILES.values() for name in names]


@pytest.mark.parametrize("name", ANSWERS)
def test_each_answer_has_its_fact_on_the_site_run_and_none_without_its_data(name):
    assert FINDINGS[name](site_run(), None) is not None
    assert FINDINGS[name](nothing_measured(), None) is None


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_every_answer_file_is_one_paragraph_of_two_to_four_sentences_or_says_the_run_lacks_it(lang):
    files = findings.answer_files(site_run(), None, lang)
    assert set(files) == set(findings.ANSWER_FILES)
    for text, _ in files.values():
        assert "\n" not in text and not text.startswith("- ") and "{" not in text
        assert 1 <= text.count(". ") + 1 <= 5  # two to four sentences (a list or a version may hold a dot)
    for text, _ in findings.answer_files(nothing_measured(), None, lang).values():
        assert text == t("finding.answer_missing", lang)


def test_math_s_fp32_matmuls_count_net_of_the_matmuls_they_replace():
    run = site_run()
    math, naive = (run["variants"][n]["attribution"] for n in ("math", "naive_inplace"))
    diffs = dict(math_diffs(run))
    assert "matmul_fp32" not in diffs
    net = math["matmul_fp32"]["us_per_forward"] - naive["matmul"]["us_per_forward"]
    assert diffs["matmul"] == pytest.approx(net)
    causes = answers.answer_home_math(run, None).causes
    assert causes == tuple(math_diffs(run)[:2]) and causes[0][1] >= causes[1][1]


def test_auto_is_said_to_have_the_least_kernel_time_only_within_noise_of_the_least():
    tied = results({"flash": row(100.0), "cudnn": row(101.0), "auto": row(101.0, backend_ran="cudnn")})
    assert answers.answer_fused(tied, None).auto == "cudnn"
    assert answers.answer_rec_auto(tied, None).best is None
    slower = results({"flash": row(100.0), "cudnn": row(150.0), "auto": row(150.0, backend_ran="cudnn")})
    assert answers.answer_rec_auto(slower, None).best is None  # no rounds: kernel time is not ranked
    with_rounds(slower, flash=100.0, cudnn=150.0)
    a = answers.answer_rec_auto(slower, None)
    assert (a.backend, a.best, a.ratio) == ("cudnn", "flash", pytest.approx(1.5))


def test_the_fused_ranking_reads_less_only_beyond_noise():
    run = results({"flash": row(150.0), "cudnn": row(100.0), "efficient": row(151.0)})
    with_rounds(run, flash=150.0, cudnn=100.0, efficient=151.0)
    ranking = answers.answer_fused(run, None).ranking
    assert [(r.name, r.less) for r in ranking] == [("cudnn", False), ("flash", True), ("efficient", False)]


def test_who_sets_the_pace_follows_the_eager_call_against_the_kernel_time():
    run = results({"flash": row(10.0)},
                  overhead=overhead({"seed": {"flash": overhead_row(100.0, 101.0)},
                                     "small": {"flash": overhead_row(5.0, 40.0, graph_us=7.0)}}))
    seed, small = answers.answer_waits(run, None)
    assert (seed.shape, seed.cpu, small.shape, small.cpu) == ("seed", False, "small", True)
    assert small.lo == pytest.approx(8.0)
    assert answers.answer_waits_graph(run, None) is None  # a replay's figures come from the pairs alone
    run["pairs"] = {"groups": {"small": {"metric": "wall", "rounds": [
        {"blocks_us": {"flash": [40.0] * 40, "flash_graph": [7.0] * 40}}]}}}
    g = answers.answer_waits_graph(run, None)
    assert (g.variant, g.eager_us, g.graph_us) == ("flash", pytest.approx(40.0), pytest.approx(7.0))


def test_the_graph_replay_comes_from_the_pairs_where_the_run_has_them():
    run = site_run()
    small = run["pairs"]["groups"]["small"]
    g = answers.answer_rec_graph(run, None)
    assert g.variant in ("flash", "efficient", "cudnn")
    replays = [x for rnd in small["rounds"] for x in rnd["blocks_us"][f"{g.variant}_graph"]]
    assert g.graph_us == pytest.approx(sorted(replays)[len(replays) // 2], rel=0.05)
    del run["pairs"]
    assert answers.answer_rec_graph(run, None) is None  # a run without pairs: no replay is ranked


def with_rounds(run, **kernel_us):
    """Three rounds of kernel time per variant, 1 % apart: what the paired rule reads."""
    for name, us in kernel_us.items():
        run["variants"][name]["rounds"] = [{"kernel_sum_us": stats(us * f)} for f in (1.0, 1.01, 0.99)]


def test_math_s_training_memory_is_broken_down_only_as_far_as_the_shape_tells():
    run = site_run()
    a = answers.answer_training(run, None)
    c = run["config"]
    assert a.weights_bytes == c["batch"] * c["heads"] * c["seq_len"] ** 2 * 4  # the FP32 weight matrix
    assert a.math_bytes == run["backward"]["rows"]["math"]["peak_extra_mib"] * 2**20
    assert a.least_bytes / 2**20 == run["backward"]["rows"][a.least]["peak_extra_mib"]
    assert a.weights_bytes < a.math_bytes and a.memory_ratio == pytest.approx(a.math_bytes / a.least_bytes)
