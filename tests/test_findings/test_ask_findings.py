"""report/render/findings/ask_findings.py and report/render/ask_table.py: "When SDPA refuses
a backend", on a made-up "eligibility" section (tests/madeup_eligibility.py): which backend
ran, PyTorch's reasons as the data words them, the cost by the one-run rule, and "not
measured" without the section."""
import pytest
from factory import findings_of, found, site_run
from madeup_eligibility import HEAD_DIM, MASK, NO_KERNEL, condition, eligibility, no, skipped_condition, yes

from report.render import ask_table
from report.render.findings import FINDINGS, ask_findings
from report.render.findings.ask_common import best_pinned, cost, refused
from report.render.markdown import safe_provenance
from report.text.catalog import t


def run_with(section=None):
    run = site_run()
    run["eligibility"] = eligibility() if section is None else section
    return run


def by_id(run, cid):
    return next(c for c in run["eligibility"]["conditions"] if c["id"] == cid)


@pytest.mark.parametrize("name", findings_of(ask_findings))
def test_each_finding_speaks_with_the_section_and_is_silent_without_it(name):
    assert found(FINDINGS[name], run_with()) is not None
    assert found(FINDINGS[name], without()) is None  # a run without the eligibility section
    assert found(FINDINGS[name], run_with({"error": "CUDA not available"})) is None


def test_the_answer_counts_unpinned_sdpa_calls_only_by_what_they_change():
    fact = found(ask_findings.answer_ask, run_with())
    assert fact.n == 10  # not the pinned rows, not nn.MultiheadAttention's (which never calls SDPA)
    assert dict(fact.fused) == {"flash": 3, "efficient": 2, "cudnn": 2}
    assert set(fact.math) == {(("dtype", "float32"),), (("dtype", "float32"), ("gqa", 4, 16)), (("head_dim", 512),)}
    assert fact.raised == ()  # the one that raised was pinned


def test_a_condition_no_list_names_is_shown_as_the_data_has_it():
    conditions = eligibility()["conditions"] + [condition("made_up_new_one", "math", 500.0, fix="baseline")]
    fact = found(ask_findings.answer_ask, run_with(eligibility(conditions)))
    assert (("plain",),) in fact.math
    summary = _item(ask_table.ask_table(run_with(eligibility(conditions)), "en"), "made_up_new_one").splitlines()[1]
    assert "**`made_up_new_one`** · a plain call · ran **math**" in summary


def test_refused_backends_keep_pytorchs_reasons_word_for_word():
    run = run_with()
    assert refused(by_id(run, "causal_mask")) == (("flash", (MASK,)),)
    assert dict(refused(by_id(run, "head_dim_512")))["flash"] == (HEAD_DIM,)
    assert refused(by_id(run, "baseline")) == ()


def test_the_best_pinned_baseline_is_the_fastest_fused_backend_at_the_plain_setting():
    run = run_with()
    assert best_pinned(run, "seed")["id"] == "baseline_pinned_cudnn"
    by_id(run, "baseline_pinned_flash")["kernel_time_us"] = {"median": 80.0, "steps": [79.0, 80.0, 81.0]}
    assert best_pinned(run, "seed")["id"] == "baseline_pinned_flash"
    assert best_pinned(run, "decode") is None  # nothing pinned at the decode shape


def test_the_cost_is_against_the_fix_where_it_has_a_time_and_by_the_one_run_rule():
    run = run_with()
    ref, cmp = cost(run, by_id(run, "causal_mask"))
    assert ref["id"] == "causal" and not cmp.even and cmp.ratio == pytest.approx(3.0)
    ref, cmp = cost(run, by_id(run, "head_dim_512"))  # no fix: the best pinned fused backend
    assert ref["id"] == "baseline_pinned_cudnn" and cmp.ratio == pytest.approx(24.0)
    ref, cmp = cost(run, by_id(run, "baseline"))  # 100 µs against 100 µs: within noise
    assert cmp.even
    assert cost(run, by_id(run, "pinned_flash_float32")) is None  # raised: no kernel time
    assert cost(run, by_id(run, "baseline_pinned_cudnn")) is None  # the reference itself
    assert cost(run, by_id(run, "mha_need_weights"))[0]["id"] == "mha_no_weights"  # its fix
    assert cost(run, by_id(run, "mha_no_weights")) is None  # its time holds the projections: no SDPA call to compare


def test_steps_far_apart_make_a_gap_the_same_within_noise():
    run = run_with()
    c = by_id(run, "causal_mask")
    c["kernel_time_us"] = {"median": 66.0, "steps": [20.0, 66.0, 140.0]}  # 10 % above causal, steps far apart
    assert cost(run, c)[1].even


def test_the_answer_names_the_costliest_fallback():
    fact = found(ask_findings.answer_ask_cost, run_with())
    assert fact.n == 3 and fact.slower == 3  # nn.MultiheadAttention's need_weights path is no SDPA call
    assert fact.worst == (("head_dim", 512),) and fact.worst_ratio == pytest.approx(24.0)


def test_the_causal_alignment_check_is_reported_as_recorded():
    top_left, lower_right = found(ask_findings.ask_causal_alignment, run_with())
    assert top_left.id == "decode_causal" and top_left.how == "is_causal" and top_left.ran == "efficient"
    assert (top_left.seq_q, top_left.seq_k) == (1, 1024)
    assert (top_left.vs_first, top_left.vs_all) == (0.0, 0.42)  # the query saw the first key alone
    assert lower_right.how == "causal_lower_right" and lower_right.vs_all == 0.0
    run = run_with()
    c = by_id(run, "decode_causal")
    del c["check"]
    c["check_error"] = "CUDA error: an illegal memory access"
    fact = found(ask_findings.ask_causal_alignment, run)[0]
    assert fact.vs_first is None and fact.error == "CUDA error: an illegal memory access"


def test_a_skipped_condition_is_not_measured_not_raised():
    section = eligibility()
    section["conditions"].append(skipped_condition("head_dim_72", head_dim=72))
    run = run_with(section)
    assert "head_dim_72" not in found(ask_findings.answer_ask, run).raised
    item = _item(ask_table.ask_table(run, "en"), "head_dim_72")
    assert _summary(item).split(" · ")[2] == t("ask.skipped", "en") and "90 s were spent" in item


def test_a_cpu_run_has_no_answer_but_its_table():
    section = eligibility()
    for c in section["conditions"]:
        c.update(ran=None, kernels=[], kernel_time_us=None, trace=None)
    run = run_with(section)
    assert found(ask_findings.answer_ask, run) is None
    assert ask_table.ask_table(run, "en") != t("finding.missing", "en")


def test_the_recommendations_find_their_conditions_by_setting_not_by_id():
    rules = {r.kind: r for r in found(ask_findings.rec_ask_rules, run_with())}
    assert set(rules) == {"is_causal", "dtype", "head_dim", "gqa"}
    assert rules["gqa"].id == "float32_gqa" and rules["gqa"].ran == "math" and rules["gqa"].against == "gqa"
    assert rules["dtype"].against == "baseline" and rules["dtype"].cost.ratio == pytest.approx(9.0)
    renamed = eligibility()
    for c in renamed["conditions"]:
        c["id"] = "x_" + c["id"]
        c["fix"] = "x_" + c["fix"] if c["fix"] else None
    rules = {r.kind: r for r in found(ask_findings.rec_ask_rules, run_with(renamed))}
    assert rules["is_causal"].id == "x_causal_mask" and rules["is_causal"].against == "x_causal"


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_the_table_shows_each_condition_its_backend_and_pytorchs_words(lang):
    table = ask_table.ask_table(safe_provenance(run_with()), lang)
    assert "| " not in table  # blocks, not a table: they read on a phone without scrolling sideways
    assert table.count('<details class="sdpa-ask" markdown>') == table.count("</details>") == 16
    mask_item = _item(table, "causal_mask")
    assert "non-null attn\\_mask" in mask_item  # PyTorch's text, as plain text
    assert "3,0×" in mask_item if lang == "nb" else "3.0×" in mask_item
    assert NO_KERNEL in _item(table, "pinned_flash_float32")
    assert t("ask_fix.mha_need_weights", lang) in _item(table, "mha_need_weights")


def _item(table, cid):
    """The block of condition `cid`, from its <details> to its </details>."""
    start = table.index(f"<summary markdown>**`{cid}`**")
    return table[table.rindex("<details", 0, start):table.index("</details>", start) + len("</details>")]


def _summary(item):
    """A block's summary line, without its tags."""
    return item.split("<summary markdown>", 1)[1].split("</summary>", 1)[0]


def test_a_wrong_result_shows_no_speed():
    run = run_with()
    item = _item(ask_table.ask_table(run, "en"), "decode_causal")  # its check: the query saw the first key alone
    assert t("ask.item_wrong", "en") in item and "µs" not in item
    assert "µs" in _item(ask_table.ask_table(run, "en"), "decode_causal_lower_right")


@pytest.mark.parametrize("lang", ["nb", "en"])
def test_without_the_section_the_table_says_not_measured(lang):
    assert ask_table.ask_table(without(), lang) == t("finding.missing", lang)


def without():
    """The site's run less its eligibility section (as a run without --ask has it)."""
    return {k: v for k, v in site_run().items() if k != "eligibility"}


def test_a_reason_cannot_inject_markup():
    section = eligibility([condition("odd", "math", 10.0, can_use={"flash": no("<b>x</b> | `y` [z](u)"),
                                                                     "efficient": yes(), "cudnn": yes()})])
    item = _item(ask_table.ask_table(run_with(section), "en"), "odd")
    assert "<b>" not in item and "](" not in item.replace("\\](", "") and "`y\\`" in item


def test_a_cpu_run_recommends_nothing_it_did_not_see_run():
    section = eligibility()
    for c in section["conditions"]:
        c.update(ran=None, kernels=[], kernel_time_us=None, trace=None)
    assert found(ask_findings.rec_ask_rules, run_with(section)) is None
