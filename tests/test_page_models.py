"""report/render/page_models.py: the model on occupancy, scaling, today's shapes and
training, worked out from the run and checked against it, with verdicts that follow the
data (never the GPU's name)."""
import copy

import pytest
from factory import site_run

from report.render import page_models as pm
from report.text.catalog import t

RUN = site_run()
MISSING = {lang: t("finding.missing", lang) for lang in ("en", "nb")}


def test_occupancy_model_redoes_flash_by_hand():
    text = pm.occupancy_model(RUN, "en")
    # 255 registers × 128 threads, 8,192 per warp after rounding: 32,768; 65,536 / 32,768 = 2 blocks
    assert "255 × 128 gives 32,768 registers per block" in text
    assert "room for 2 blocks per SM" in text and "8 of 64 warps, 12.5%" in text
    assert "| SDPA flash | 255 × 128 → 32,768 | 2 | 2 | 8/64 | 12.5% |" in text
    assert "Modelled, not measured" in text


def test_occupancy_check_rounds_half_up_like_kineto():
    # Kineto shows 13 % for 12.5 %: the model agrees with it for all three fused kernels
    assert "for 3 of 3 fused kernels" in pm.occupancy_check(RUN, "en")
    other = copy.deepcopy(RUN)
    other["variants"]["flash"]["kernels"][0]["kineto_occupancy_pct"] = 50
    text = pm.occupancy_check(other, "en")
    assert "for 2 of 3" in text and "Different for: SDPA flash." in text


SCORE_BYTES = {"naive": 2, "math": 4}  # naive's scores in the input's bfloat16, math's in FP32
LABEL = {"naive": "naive (`masked_fill`)", "math": "SDPA math"}


def sweep_point(variant, n):
    sweep = RUN["sweep"]
    return next(p for p in sweep["points"] if p["variant"] == variant and p["seq_len"] == n
                and p["head_dim"] == sweep["head_dims"][0])


def at(n):
    return f"out of memory at sequence length {n:,}" if n else "room at every length of the sweep"


def said(variant, predicted, measured):
    """The check's line for a variant (model-scaling-check.en.md.j2)."""
    if predicted == measured:
        return f"{LABEL[variant]}: the model and the measurement agree: {at(predicted)}."
    return f"{LABEL[variant]}: the model says {at(predicted)}, the measurement {at(measured)}."


def measured_oom(variant):
    return next((n for n in RUN["sweep"]["seq_lens"] if sweep_point(variant, n)["status"] == "oom"), None)


def test_scaling_model_redoes_by_hand_where_each_quadratic_variant_runs_out():
    """Each variant's score matrices held at the seed's length (its measured peak over one
    matrix's bytes), grown with L², against the GPU's memory; the measurement beside it."""
    text = pm.scaling_model(RUN, "en")
    memory = RUN["provenance"]["gpu_memory_gib"]
    assert "64.0 GiB at 16,384" in text and f"The GPU has {memory:.1f} GiB" in text  # the sweep's B 8, H 16, bf16
    assert "| 16,384 | 64.0 GiB |" in text and "out of memory |" in text
    sweep, ref = RUN["sweep"], RUN["config"]["seq_len"]
    check = pm.scaling_check(RUN, "en")
    for variant, size in SCORE_BYTES.items():
        def score(n, size=size):
            return sweep["batch"] * sweep["heads"] * n * n * size
        held = sweep_point(variant, ref)["peak_extra_mib"] * 2**20 / score(ref)
        predicted = next((n for n in sweep["seq_lens"] if held * score(n) > memory * 2**30), None)
        assert said(variant, predicted, measured_oom(variant)) in check


def test_scaling_verdict_follows_the_gpu_memory():
    for memory, predicted in ((1e6, None), (1e-3, RUN["sweep"]["seq_lens"][0])):  # room everywhere; at the first
        other = copy.deepcopy(RUN)
        other["provenance"]["gpu_memory_gib"] = memory
        check = pm.scaling_check(other, "en")
        for variant in SCORE_BYTES:
            assert said(variant, predicted, measured_oom(variant)) in check, (memory, variant)


def test_decode_model_floor_is_bytes_over_the_measured_bandwidth():
    text = pm.decode_model(RUN, "en")
    bandwidth = RUN["shapes"]["copy_roof"]["gb_per_s"] * 1e3  # bytes per µs
    floor = 16793600 / bandwidth  # batch 1, KV 1,024: the bytes of the point
    assert f"| 1 | 1 | 1,024 | 16.0 MiB | {floor:.1f} µs |" in text
    check = pm.decode_check(RUN, "en")
    assert "At 4 of 8 points with a measured host overhead" in check


def test_decode_cpu_count_follows_the_data():
    fast_cpu = copy.deepcopy(RUN)
    for p in fast_cpu["shapes"]["points"]:
        if p.get("host_time_us"):
            p["host_time_us"]["median"] = 0.1
    assert "At 0 of 8 points" in pm.decode_check(fast_cpu, "en")


def test_training_model_and_check():
    text = pm.training_model(RUN, "en")
    assert "17.2 GFLOP" in text and "51.6 GFLOP" in text and "256.0 MiB" in text
    check = pm.training_check(RUN, "en")
    (flash,) = [line for line in check.splitlines() if line.startswith("| SDPA flash |")]
    forward, step, ratio = (cell.strip() for cell in flash.split("|")[2:5])

    def us(text):  # "94.3 µs" or "1.063 ms" as µs
        value, name = text.replace(",", "").split()
        return float(value) * (1000 if name == "ms" else 1)
    assert abs(float(ratio.rstrip("×")) - us(step) / us(forward)) < 0.06  # the ratio of the row's own times
    assert "Above: SDPA flash" in check and "Below: naive (`masked_fill`), SDPA math" in check
    assert "Within 2.5 to 4 times" not in check  # no variant in the range: no empty list


@pytest.mark.parametrize("lang", ["en", "nb"])
@pytest.mark.parametrize("fn", [pm.occupancy_model, pm.occupancy_check, pm.scaling_model, pm.scaling_check,
                                pm.decode_model, pm.decode_check, pm.training_model, pm.training_check])
def test_a_run_without_the_data_gets_the_missing_line(fn, lang):
    bare = copy.deepcopy(RUN)
    for key in ("sweep", "shapes", "backward"):
        bare.pop(key, None)
    bare["variants"] = {}
    bare["provenance"].pop("gpu_memory_gib", None)
    assert fn(bare, lang) == MISSING[lang]
