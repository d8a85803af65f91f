"""report/render/page_models.py: the model on occupancy, scaling, today's shapes and
training, worked out from the run and checked against it, with verdicts that follow the
data (never the GPU's name)."""
import copy

import pytest

from report.paths import DEFAULT_OUT as GENERATED
from report.render import page_models as pm
from report.results import load_results
from report.text.catalog import t

H200 = load_results(GENERATED / "h200" / "results.json")
MISSING = {lang: t("finding.missing", lang) for lang in ("en", "nb")}


def test_occupancy_model_redoes_flash_by_hand():
    text = pm.occupancy_model(H200, "en")
    # 255 registers × 128 threads, 8,192 per warp after rounding: 32,768; 65,536 / 32,768 = 2 blocks
    assert "255 × 128 gives 32,768 registers per block" in text
    assert "room for 2 blocks per SM" in text and "8 of 64 warps, 12.5%" in text
    assert "| SDPA flash | 255 × 128 → 32,768 | 2 | 2 | 8/64 | 12.5% |" in text
    assert "Modelled, not measured" in text


def test_occupancy_check_rounds_half_up_like_kineto():
    # Kineto shows 13 % for 12.5 %: the model agrees with it for all three fused kernels
    assert "for 3 of 3 fused kernels" in pm.occupancy_check(H200, "en")
    other = copy.deepcopy(H200)
    other["variants"]["flash"]["kernels"][0]["kineto_occupancy_pct"] = 50
    text = pm.occupancy_check(other, "en")
    assert "for 2 of 3" in text and "Different for: SDPA flash." in text


def test_scaling_model_predicts_math_running_out_and_naive_fitting():
    text = pm.scaling_model(H200, "en")
    assert "64.0 GiB at 16,384" in text and "The GPU has 139.8 GiB" in text
    assert "| 16,384 | 64.0 GiB |" in text and "out of memory |" in text
    check = pm.scaling_check(H200, "en")
    assert "SDPA math: the model and the measurement agree: out of memory at sequence length 16,384." in check
    assert "naive (`masked_fill`): the model and the measurement agree: room at every length of the sweep." in check


def test_scaling_verdict_follows_the_gpu_memory():
    small = copy.deepcopy(H200)
    small["provenance"]["gpu_memory_gib"] = 40.0  # naive's 2.1 score matrices pass 40 GiB at 16,384
    check = pm.scaling_check(small, "en")
    assert ("naive (`masked_fill`): the model says out of memory at sequence length 16,384, the measurement "
            "room at every length of the sweep.") in check


def test_decode_model_floor_is_bytes_over_the_measured_bandwidth():
    text = pm.decode_model(H200, "en")
    bandwidth = H200["shapes"]["copy_roof"]["gb_per_s"] * 1e3  # bytes per µs
    floor = 16793600 / bandwidth  # batch 1, KV 1,024: the bytes of the point
    assert f"| 1 | 1 | 1,024 | 16.0 MiB | {floor:.1f} µs |" in text
    check = pm.decode_check(H200, "en")
    assert "At 4 of 8 points with a measured host overhead" in check


def test_decode_cpu_count_follows_the_data():
    fast_cpu = copy.deepcopy(H200)
    for p in fast_cpu["shapes"]["points"]:
        if p.get("host_time_us"):
            p["host_time_us"]["median"] = 0.1
    assert "At 0 of 8 points" in pm.decode_check(fast_cpu, "en")


def test_training_model_and_check():
    text = pm.training_model(H200, "en")
    assert "17.2 GFLOP" in text and "51.6 GFLOP" in text and "256.0 MiB" in text
    check = pm.training_check(H200, "en")
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
    bare = copy.deepcopy(H200)
    for key in ("sweep", "shapes", "backward"):
        bare.pop(key, None)
    bare["variants"] = {}
    bare["provenance"].pop("gpu_memory_gib", None)
    assert fn(bare, lang) == MISSING[lang]
