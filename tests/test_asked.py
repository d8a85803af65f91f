"""The trace doctor's copy of the recorded eligibility tables (report/doctor/rules/asked.json,
written when build_tables.py renders docs/generated/): what it keeps, that the committed file
is what the committed runs render, and that each trace the GPU run recorded for a condition
(traces/ask-<id>.json.gz) gets that condition's reason."""
import json

import pytest
from factory import results
from madeup import condition, eligibility_results

from report.doctor.explain import explain, load_trace
from report.doctor.rules import asked_table, why
from report.output.asked_file import asked_text, write_asked
from report.output.folders import result_folders
from report.paths import DEFAULT_OUT
from report.results import load_results


def run_folder(tmp_path, data, slug="h200"):
    folder = tmp_path / slug
    folder.mkdir(parents=True)
    (folder / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_the_doctor_keeps_each_condition_and_says_whose_table_it_is(tmp_path):
    data = eligibility_results([condition("seed", "cudnn"), condition("mask", "efficient", no=("cudnn", "flash"),
                                                                      mask="bool_padding")], **results())
    run_folder(tmp_path, data)
    target = write_asked(tmp_path, tmp_path / "asked.json")
    runs = asked_table.load(target)
    assert [c["id"] for c in runs[0]["conditions"]] == ["seed", "mask"]
    assert runs[0]["conditions"][1]["can_use"]["cudnn"]["ok"] is False
    assert "kernel_time_us" not in runs[0]["conditions"][0]  # no measurement beyond the answers
    who = asked_table.whose(runs[0])
    assert "2.11.0" in who and "NVIDIA H200" in who and data["provenance"]["date"] in who
    assert asked_table.MARK in target.read_text(encoding="utf-8")
    assert asked_table.order(runs[0])[0] == "cudnn"  # the unpinned seed ran cudnn with every backend eligible


def test_a_run_without_a_table_leaves_the_file_alone(tmp_path):
    run_folder(tmp_path, results())
    target = tmp_path / "asked.json"
    target.write_text("kept", encoding="utf-8")
    assert write_asked(tmp_path, target) is None and target.read_text(encoding="utf-8") == "kept"


def test_the_committed_file_is_what_the_committed_runs_render():
    text = asked_text(DEFAULT_OUT)
    if text is None:
        assert not asked_table.FILE.exists(), "asked.json is left from a run no committed results.json holds"
    else:
        assert asked_table.FILE.read_text(encoding="utf-8") == text, "run python build_tables.py --render-only"


def expected(setting, shape):
    """The reason key the doctor must give a condition's trace, from its recorded setting."""
    if setting["layout"] == "5d":
        return "not_4d"
    if setting["layout"] == "last_dim_strided":
        return "last_dim_stride"
    if setting["dtype"] == "float32":
        return "dtype"
    if setting["head_dim"] > 256:
        return "head_dim_too_large"
    if setting["head_dim"] % 8:
        return "head_dim_alignment"
    if setting["kv_heads"] != shape["heads"] and not setting["enable_gqa"]:
        return "gqa_heads"
    if setting["mask"] != "none":
        return "mask"
    if setting["pinned"]:
        return "pinned"
    return None


def committed_tables():
    runs = [(f, load_results(f / "results.json")) for f in result_folders(DEFAULT_OUT)]
    return [(f, r) for f, r in runs if (r.get("eligibility") or {}).get("conditions")]


@pytest.mark.skipif(not committed_tables(), reason="no committed run has an eligibility table yet")
def test_each_recorded_ask_trace_gets_its_conditions_reason(monkeypatch, tmp_path):
    for folder, run in committed_tables():
        assert sorted((folder / "traces").glob("ask-*.json.gz")), f"{folder.name}: an eligibility table, no ask traces"
        table = tmp_path / f"{folder.name}.json"
        table.write_text(json.dumps(asked_table.document([asked_table.compact(run, folder.name)])))
        monkeypatch.setattr(asked_table, "FILE", table)
        el = run["eligibility"]
        cc = tuple(int(n) for n in el["versions"]["compute_capability"].split("."))
        order = why.order(cc, asked_table.order(asked_table.load(table)[0]))
        for c in el["conditions"]:
            if not c.get("trace"):
                continue
            s, shape = c["setting"], el["shapes"][c["shape"]]
            found = explain(load_trace(folder / c["trace"]))
            if s["api"] == "mha_need_weights":
                assert "mha_need_weights" in {f.rule for f in found.findings}, c["id"]
                continue
            groups = [g for g in found["attention"]["calls"] if g.get("reasons") is not None and g["shapes"]]
            if s["api"] not in ("sdpa", "mha_no_weights") or s["layout"] == "nested_jagged" or not groups:
                continue  # compiled and nested calls hold no aten::scaled_dot_product_attention op
            g = groups[0]
            if s["mask"] in ("float_additive", "float_bias_grad"):
                # whether a float mask requires grad (check_attn_mask_shape reads it) is in no trace:
                # no condition's answer is quoted for it, and cuDNN's absence is said as that unknown
                assert g["source"] == "rule" and not {"pinned", "not_first"} & set(g["reasons"]), c["id"]
                assert ("mask_grad_unknown" in g["reasons"]) == (c["ran"] != order[0]), c["id"]
            else:
                assert g["source"] == "table", c["id"]
            if s["is_causal"] and shape["seq_q"] < shape["seq_k"]:
                assert "causal_top_left" in g["warning_keys"], c["id"]
            key = expected(s, shape)
            if key and c["ran"] != order[0]:  # a backend before it said no, or was pinned away
                assert key in g["reasons"], (c["id"], g["reasons"])
