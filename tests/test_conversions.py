"""SDPA math's dtype conversions told apart in a trace (report/render/conversions.py), and
the attribution table's rows for them (report/render/attribution.py)."""
import gzip
import json

from factory import SITE_RUN

from report.render.attribution import attribution_table, splits
from report.render.conversions import conversion_split
from report.results import load_results

CONFIG = {"seq_len": 1024, "head_dim": 64, "dtype": "bfloat16"}
COPY = "void at::native::vectorized_elementwise_kernel<8, bfloat16_copy>"
UPCAST = "void at::native::unrolled_elementwise_kernel<direct_copy>"


class Trace:
    """A made-up trace of `math_fwd` steps: each call adds an op stack with one launch."""

    def __init__(self):
        self.events, self.corr, self.ts = [], 0, 0.0

    def step(self, calls):
        start = self.ts
        for call in calls:
            call()
        self.events.append({"ph": "X", "cat": "user_annotation", "name": "math_fwd", "ts": start,
                            "dur": self.ts - start + 1, "tid": 1})
        self.ts += 10

    def launch(self, ops, name, dur, grid=(1, 1, 1), block=(128, 1, 1)):
        t0 = self.ts
        for depth, op in enumerate(ops):  # nested: each op inside the one before it
            self.events.append({"ph": "X", "cat": "cpu_op", "name": op, "ts": t0 + depth, "dur": 20 - 2 * depth,
                                "tid": 1})
        self.corr += 1
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": t0 + len(ops),
                            "dur": 1, "tid": 1, "args": {"correlation": self.corr}})
        self.events.append({"ph": "X", "cat": "kernel", "name": name, "ts": 10_000 + t0, "dur": dur,
                            "args": {"correlation": self.corr, "grid": list(grid), "block": list(block)}})
        self.ts += 25

    def write(self, path):
        with gzip.open(path, "wt", encoding="utf-8") as f:
            json.dump({"traceEvents": self.events}, f)


TO = ["aten::to", "aten::_to_copy", "aten::copy_"]


def math_step(trace, weights_grid=(131072, 1, 1), output_grid=(8192, 1, 1), weights_us=180.0):
    upcasts = [lambda: trace.launch(TO, UPCAST, 26.0, (16384, 1, 1)) for _ in range(3)]
    matmul = [lambda: trace.launch(["aten::matmul", "aten::bmm"], "sm80_xmma_gemm_f32f32", 500.0)]
    back = [lambda: trace.launch(TO, COPY, weights_us, weights_grid),
            lambda: trace.launch(["aten::matmul", "aten::bmm"], "sm80_xmma_gemm_f32f32", 400.0),
            lambda: trace.launch(TO, COPY, 12.0, output_grid)]
    trace.step(upcasts + matmul + back)


def row_of(us, activities=5.0):
    return {"attribution": {"dtype_conversion": {"us_per_forward": us, "activities_per_forward": activities},
                            "matmul_fp32": {"us_per_forward": 900.0, "activities_per_forward": 2.0}}}


def test_the_inputs_the_output_and_the_weights_are_told_apart(tmp_path):
    trace = Trace()
    math_step(trace, weights_us=180.0)
    math_step(trace, weights_us=190.0)
    trace.write(tmp_path / "math.json.gz")
    split = conversion_split("math", row_of(3 * 26 + 12 + 185), tmp_path, CONFIG)
    assert list(split) == ["inputs", "output", "weights"]
    assert split["inputs"]["activities_per_forward"] == 3 and split["inputs"]["us_per_forward"] == 78.0
    assert split["output"]["us_per_forward"] == 12.0
    assert split["weights"]["us_per_forward"] == 185.0  # the mean of the two steps
    assert (split["weights"]["us"]["min"], split["weights"]["us"]["max"]) == (180.0, 190.0)


def test_two_conversions_back_whose_sizes_are_not_s_over_d_stay_together(tmp_path):
    trace = Trace()
    math_step(trace, output_grid=(65536, 1, 1))  # twice, not sixteen times: not L×S against L×D
    trace.write(tmp_path / "math.json.gz")
    split = conversion_split("math", row_of(3 * 26 + 12 + 180), tmp_path, CONFIG)
    assert list(split) == ["inputs", "back"] and split["back"]["activities_per_forward"] == 2


def test_no_split_where_the_parts_do_not_add_up_to_the_row_or_there_is_no_trace(tmp_path):
    trace = Trace()
    math_step(trace)
    trace.write(tmp_path / "math.json.gz")
    assert conversion_split("math", row_of(3 * 26 + 12 + 180), tmp_path, CONFIG) is not None
    assert conversion_split("math", row_of(100.0), tmp_path, CONFIG) is None  # another run's trace
    assert conversion_split("math", row_of(270.0, activities=4.0), tmp_path, CONFIG) is None
    assert conversion_split("math", row_of(270.0), tmp_path / "nowhere", CONFIG) is None
    assert conversion_split("math", row_of(270.0), None, CONFIG) is None


def test_steps_with_a_different_number_of_conversions_give_no_split(tmp_path):
    trace = Trace()
    math_step(trace)
    trace.step([lambda: trace.launch(TO, UPCAST, 26.0, (16384, 1, 1)),
                lambda: trace.launch(["aten::matmul", "aten::bmm"], "sm80_xmma_gemm_f32f32", 500.0)])
    trace.write(tmp_path / "math.json.gz")
    # the row's figures are those of the two steps (5 and 1 conversions): still no split
    assert conversion_split("math", row_of((270 + 26) / 2, activities=3.0), tmp_path, CONFIG) is None


def test_the_committed_run_splits_math_into_its_three_parts_and_the_table_shows_them():
    folder = SITE_RUN
    results = load_results(folder / "results.json")
    split = splits(results, folder / "traces")
    whole = results["variants"]["math"]["attribution"]["dtype_conversion"]
    assert set(split["math"]) == {"inputs", "output", "weights"}
    assert [split["math"][p]["activities_per_forward"] for p in ("inputs", "output", "weights")] == [3, 1, 1]
    assert abs(sum(p["us_per_forward"] for p in split["math"].values()) - whole["us_per_forward"]) < 1e-6
    # the weight matrix is S/D times the output's elements: it must take longer than the output
    assert split["math"]["weights"]["us"]["min"] > split["math"]["output"]["us"]["max"]
    for lang in ("nb", "en"):
        with_split = attribution_table(results, lang, split)
        without = attribution_table(results, lang)
        assert with_split.count("\n| ") == without.count("\n| ") + 2  # one row became three
        assert "(L×S)" in with_split and "(L×S)" not in without
