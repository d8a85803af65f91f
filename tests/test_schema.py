"""report/schema.py and load_results: results.json is checked field by field, each number
finite, non-negative and of a real size, and a bad field is named by its dotted path."""
import json

import pytest
from factory import host, kernel, refused, results, row, shape_results, site_run, stats, sweep, sweep_point

from report.results import UsageError, load_results, write_results
from report.schema import MAX_TIME, HostStats, Kernel, ShapePoint, Stats
from report.schema_check import SchemaError, check


def test_the_committed_run_and_the_factory_have_the_schema():
    check(site_run())
    check(shape_results())
    check(results({"flash": row(100.0, host_us=20.0), "math": refused("oom", "out of memory")},
                  sweep=sweep([sweep_point("flash", 256, 10.0), sweep_point("math", 512, 0, status="oom")])))


@pytest.mark.parametrize("change, message", [
    (lambda r: r["variants"]["flash"]["cuda_time_us"].update(median="x"),
     "results.variants.flash.cuda_time_us.median: expected a number, got 'x'"),
    (lambda r: r["variants"]["flash"]["cuda_time_us"].update(median=1e308),
     "results.variants.flash.cuda_time_us.median: 1e+308 is larger than"),
    (lambda r: r["variants"]["flash"].update(first_call_ms=-1.0), "results.variants.flash.first_call_ms: -1.0 is negative"),
    (lambda r: r["variants"]["cudnn"]["kernel_sum_us"].update(min=float("nan")),
     "results.variants.cudnn.kernel_sum_us.min: nan is not a finite number"),
    (lambda r: r["variants"]["auto"].update(peak_extra_mib=float("inf")), "peak_extra_mib: inf is not a finite"),
    (lambda r: r["variants"]["math"]["kernels"][0].update(block="128"), "results.variants.math.kernels.0.block: "
                                                                       "expected a list"),
    (lambda r: r["shapes"]["points"][3].update(kv_len=2.5), "results.shapes.points.3.kv_len: expected a whole number"),
    (lambda r: r["shapes"]["points"][0].pop("family"), "results.shapes.points.0: missing family"),
    (lambda r: r["sweep"]["points"][1].update(status=None), "results.sweep.points.1.status: expected a string"),
    (lambda r: r.update(variants=[]), "results.variants: expected an object, got []"),
    (lambda r: r["variants"]["flash"].update(host_time_us={"median": True}), "host_time_us.median: expected a number"),
])
def test_a_bad_field_is_named_by_its_path(change, message, tmp_path):
    data = shape_results()
    change(data)
    with pytest.raises(SchemaError) as err:
        check(data)
    assert message in str(err.value), str(err.value)
    path = tmp_path / "results.json"
    write_results(data, path)
    with pytest.raises(UsageError, match="the file is damaged") as err:
        load_results(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_a_time_up_to_the_bound_and_none_for_what_was_not_measured_load(tmp_path):
    data = site_run()
    data["variants"]["flash"]["cuda_time_us"]["max"] = MAX_TIME
    data["variants"]["flash"]["host_time_us"] = None
    data["variants"]["flash"]["rel_error"] = 0
    path = tmp_path / "results.json"
    write_results(data, path)
    assert load_results(path)["variants"]["flash"]["cuda_time_us"]["max"] == MAX_TIME


def test_an_old_file_with_fewer_keys_still_loads(tmp_path):
    """Every key but the top-level ones is optional; keys the schema does not know are kept."""
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"schema_version": 1, "provenance": {"gpu_name": "NVIDIA H200"},
                                "config": {"batch": 1}, "roof": {"tflops": 1.0},
                                "variants": {"naive": {}, "math": {"status": "ok", "an_old_key": [1, "x"]}}}),
                    encoding="utf-8")
    assert load_results(path)["variants"]["math"]["an_old_key"] == [1, "x"]


def test_write_results_leaves_no_partial_file(tmp_path):
    path = tmp_path / "results.json"
    write_results(results({"flash": row(10.0)}), path)
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]
    assert load_results(path)["variants"]["flash"]["kernel_sum_us"] == stats(10.0)


def test_the_factory_rows_have_their_types():
    check(host(12.0), HostStats)
    check(kernel(), Kernel)
    assert set(stats(1.0)) <= set(Stats.__annotations__)
    assert {"family", "variant", "status"} <= ShapePoint.__required_keys__
    with pytest.raises(SchemaError, match=r"^stats\.median: -1 is negative"):
        check({"median": -1}, Stats, "stats")
