"""report/render/findings/ask_order.py: the backend SDPA would take on another GPU
generation, derived from a condition's recorded answers and PyTorch's priority rule
(sdp_utils.cpp: priority_order, check_prefer_cudnn_attention, select_sdp_backend), on
made-up conditions (tests/madeup_eligibility.py)."""
import pytest
from factory import found, site_run
from madeup_eligibility import DTYPE, HEAD_DIM, HEADS, MASK, condition, eligibility, no, yes

from report.render.findings import ask_findings
from report.render.findings.ask_order import (
    CUDNN_FIRST,
    DEFAULT,
    derivable,
    derive,
    derived,
    prefers_cudnn,
    run_order,
    shown_generations,
)
from report.render.keyed import NAMES

H100 = {"cudnn": "9.19.0", "compute_capability": "9.0", "cuda": "13.0"}


@pytest.mark.parametrize("versions, prefers", [
    (H100, True),
    ({**H100, "cudnn": "9.15.0"}, False),  # newer than 9.15.0 only
    ({**H100, "cudnn": 91501}, True),  # the integer form
    ({**H100, "compute_capability": "8.0"}, False),  # an A100
    ({**H100, "compute_capability": "8.9"}, False),  # an L4, RTX 40
    ({**H100, "compute_capability": "12.0"}, False),  # an RTX 50
    ({**H100, "compute_capability": "10.0"}, True),  # a B200
    ({**H100, "compute_capability": "10.3"}, True),
    ({**H100, "compute_capability": "10.1", "cuda": "12.9"}, False),  # below CUDA 13, only x.0 and x.3
    ({**H100, "compute_capability": "10.1"}, True),
    ({**H100, "cudnn": None}, None),
])
def test_cudnn_comes_first_only_on_sm90_and_sm100_with_a_new_cudnn(versions, prefers):
    assert prefers_cudnn(versions) is prefers


def the_run(conditions, **versions):
    run = site_run()
    run["eligibility"] = eligibility(conditions)
    run["eligibility"]["versions"].update({**H100, **versions})
    return run


GQA_MASK = condition("gqa_mask", "cudnn", 90.0, kv_heads=4, enable_gqa=True, mask="bool_padding",
                     can_use={"flash": no(MASK), "efficient": no(HEADS), "cudnn": yes()})
PLAIN = condition("baseline", "cudnn", 100.0)
FP32 = condition("float32", "efficient", 900.0, dtype="float32",
                 can_use={"flash": no(DTYPE), "efficient": yes(), "cudnn": no(DTYPE)})
FP16 = condition("float16", "cudnn", 100.0, dtype="float16")
D512 = condition("head_dim_512", "efficient", 900.0, head_dim=512,
                 can_use={"flash": no(HEAD_DIM), "efficient": yes(), "cudnn": no("head_dim should be no more than 256")})


def test_where_flash_comes_first_math_runs_before_cudnn_is_asked():
    # masked GQA: flash and efficient refuse, cuDNN accepts; with cuDNN behind math it never runs unpinned
    assert derive(GQA_MASK, "cudnn_first") == "cudnn" and derive(GQA_MASK, "flash_first") == "math"
    assert derive(PLAIN, "flash_first") == "flash" and derive(D512, "flash_first") == "efficient"


def test_before_sm80_efficient_takes_no_bf16():
    assert derive(PLAIN, "before_sm80") == "math"  # bf16
    assert derive(FP16, "before_sm80") == "efficient" and derive(FP32, "before_sm80") == "efficient"
    odd = condition("f32_d102", "math", 900.0, dtype="float32", head_dim=102,
                    can_use={"flash": no(DTYPE), "efficient": no("divisible by 4"), "cudnn": no(DTYPE)})
    assert derive(odd, "before_sm80") is None  # efficient's float32 alignment is looser there: not decided


def test_only_unpinned_sdpa_calls_whose_answers_give_what_ran_are_derived():
    run = the_run([PLAIN, FP32, GQA_MASK, D512])
    assert run_order(run) == CUDNN_FIRST
    assert all(derivable(run, c) for c in run["eligibility"]["conditions"])
    pinned = condition("baseline_pinned_flash", "flash", 120.0, pinned="flash")
    mha = condition("mha_need_weights", "math", 800.0, api="mha_need_weights", can_use=None)
    # ran flash although cuDNN, first here, said yes: this call chose its kernel outside the order
    elsewhere = condition("nested_jagged", "flash", 100.0, layout="nested_jagged")
    run = the_run([pinned, mha, elsewhere])
    assert [derived(run, c) for c in run["eligibility"]["conditions"]] == [None, None, None]


def test_a_run_where_flash_came_first_derives_before_sm80_only():
    run = the_run([condition("baseline", "flash", 100.0)], compute_capability="8.0")
    assert run_order(run) == DEFAULT and shown_generations(run) == ("before_sm80",)
    assert shown_generations(the_run([PLAIN])) == ("flash_first", "before_sm80")
    assert shown_generations(the_run([condition("baseline", "efficient", 100.0)], compute_capability="7.5")) == ()


def test_the_answer_counts_each_generation_and_what_moves():
    run = the_run([PLAIN, FP32, GQA_MASK, D512, FP16])
    flash_first, before = found(ask_findings.answer_ask_orders, run).generations
    assert flash_first.generation == "flash_first" and flash_first.n == 5
    assert dict(flash_first.picks) == {"flash": 2, "efficient": 2, "math": 1}
    assert flash_first.math == ((("gqa", 4, 16), ("mask", "bool_padding")),) and flash_first.moved == 3
    assert dict(before.picks) == {"efficient": 2, "math": 3}


def test_every_generation_has_its_words():
    from report.render.findings.ask_order import GENERATIONS
    assert NAMES["ask.gen."] == GENERATIONS and NAMES["ask.gen_short."] == GENERATIONS
