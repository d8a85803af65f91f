"""report/measure/ncu.py: the metrics read beside occupancy, chosen from what this GPU's ncu
knows, and the fall-back when ncu refuses them; ncu is a fake script here."""
import stat

from report.measure import ncu

KERNEL = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<64>>(pytorch_flash::Flash_fwd_params)"
HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
          '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def csv_row(section, metric, unit, value):
    return (f'"3","802","python3.12","127.0.0.1","{KERNEL}","1","7","(128, 1, 1)","(8, 8, 16)","0","9.0",'
            f'"{section}","{metric}","{unit}","{value}"')


DETAILS = "\n".join([
    "==PROF== Connected to process 802 (/usr/bin/python3.12)", HEADER,
    csv_row("Occupancy", "Theoretical Occupancy", "%", "12.5"),
    csv_row("Occupancy", "Achieved Occupancy", "%", "11.98"),
    csv_row("Command line profiler metrics", "dram__bytes_read.sum", "byte", "12,582,912"),
    csv_row("Command line profiler metrics", "dram__bytes_write.sum", "byte", "4,194,304"),
    csv_row("Command line profiler metrics",
            "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", "%", "41.5"),
])
QUERY = """Device NVIDIA H200 (GH100)
------------------------------------------------------------------------------
Metric Name                                  Metric Type   Metric Description
dram__bytes_read                             Counter       # of bytes read from DRAM
dram__bytes_write                            Counter       # of bytes written to DRAM
sm__pipe_tensor_op_hmma_cycles_active        Counter       # of cycles where HMMA tensor pipe was active
sm__inst_executed_pipe_xu                    Counter       # of warp instructions executed by xu pipe
"""


def test_the_extra_metrics_are_read_per_kernel_in_base_units():
    (name, m), = ncu.parse(DETAILS).items()
    assert name == KERNEL and m["theoretical_pct"] == 12.5
    assert m["dram_read_bytes"] == 12_582_912 and m["dram_write_bytes"] == 4_194_304
    assert m["tensor_hmma_pct"] == 41.5 and "tensor_pct" not in m


def test_the_metrics_ncu_lists_are_found_by_name():
    assert ncu.known_metrics(QUERY) == {"dram__bytes_read", "dram__bytes_write",
                                        "sm__pipe_tensor_op_hmma_cycles_active", "sm__inst_executed_pipe_xu"}
    assert ncu.known_metrics('"dram__bytes_read","Counter"\nMetric Name  x\n') == {"dram__bytes_read"}


def fake_ncu(tmp_path, query=QUERY, refuse_metrics=""):
    """An `ncu` that lists QUERY, and prints DETAILS for a profile (or refuses a command
    line that holds refuse_metrics)."""
    (tmp_path / "query.txt").write_text(query)
    (tmp_path / "details.txt").write_text(DETAILS)
    (tmp_path / "args.txt").write_text("")
    refuse = (f'  *{refuse_metrics}*) echo "==ERROR== Failed to find metric {refuse_metrics}" >&2; exit 1;;'
              if refuse_metrics else "")
    exe = tmp_path / "ncu"
    exe.write_text(f"""#!/bin/sh
echo "$*" >> {tmp_path}/args.txt
case "$*" in
  *--query-metrics*) cat {tmp_path}/query.txt; exit 0;;
{refuse}
esac
cat {tmp_path}/details.txt
""")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return str(exe)


def test_only_the_metrics_this_gpu_knows_are_asked_for_and_the_others_are_named(tmp_path):
    exe = fake_ncu(tmp_path)
    found, missing = ncu.choose_metrics(exe)
    assert set(found) == {"dram_read_bytes", "dram_write_bytes", "tensor_hmma_pct", "xu_pct"}
    assert set(missing) == {"tensor_pct", "gmma_inst"}
    assert "sm__pipe_tensor_cycles_active" in missing["tensor_pct"]
    row = ncu.ncu_row(exe, "flash", {"batch": 1}, found)
    assert row["status"] == "ok" and row["kernels"][KERNEL]["dram_read_bytes"] == 12_582_912
    profiled = (tmp_path / "args.txt").read_text().splitlines()[-1]
    assert "--print-units base" in profiled and "dram__bytes_read.sum" in profiled
    assert "gmma" not in profiled and "sm__pipe_tensor_cycles_active" not in profiled


def test_hoppers_tensor_pipe_is_asked_for_by_names_its_ncu_lists(tmp_path):
    """H200's ncu lists no sm__pipe_tensor_op_gmma_cycles_active (an H200 run's
    metrics_missing); the whole tensor pipe and the wgmma instructions are asked for by
    the names it does list."""
    query = QUERY + ("sm__pipe_tensor_cycles_active                Counter       # of cycles where tensor pipe was active\n"
                     "sm__inst_executed_pipe_tensor_op_gmma        Counter       # of warp instructions executed by tensor pipe\n")
    found, missing = ncu.choose_metrics(fake_ncu(tmp_path, query=query))
    assert not missing and found["tensor_pct"].startswith("sm__pipe_tensor_cycles_active.")
    assert found["gmma_inst"].startswith("sm__inst_executed_pipe_tensor_op_gmma.")
    assert not any("gmma_cycles" in m for m in ncu.EXTRA.values())


def test_a_gpu_whose_ncu_refuses_the_metrics_still_gets_its_occupancy(tmp_path):
    exe = fake_ncu(tmp_path, refuse_metrics="--metrics")
    row = ncu.ncu_row(exe, "flash", {"batch": 1}, dict(ncu.EXTRA))
    assert row["status"] == "ok" and row["kernels"][KERNEL]["theoretical_pct"] == 12.5
    assert "Failed to find metric" in row["metrics_error"] and set(row["metrics_dropped"]) == set(ncu.EXTRA)


def test_a_new_metric_ncu_refuses_does_not_cost_the_ones_a_run_has_read(tmp_path):
    exe = fake_ncu(tmp_path, refuse_metrics="sm__pipe_tensor_cycles_active")
    row = ncu.ncu_row(exe, "flash", {"batch": 1}, dict(ncu.EXTRA))
    assert row["status"] == "ok" and row["kernels"][KERNEL]["dram_read_bytes"] == 12_582_912
    assert set(row["metrics_dropped"]) == set(ncu.EXTRA) - set(ncu.VERIFIED)
    asked = (tmp_path / "args.txt").read_text().splitlines()[-1]
    assert "sm__pipe_tensor_op_hmma_cycles_active" in asked and "sm__pipe_tensor_cycles_active" not in asked


def test_an_ncu_that_cannot_list_its_metrics_is_asked_for_all_of_them(tmp_path):
    assert ncu.choose_metrics(fake_ncu(tmp_path, query="")) == (dict(ncu.EXTRA), {})



def test_the_table_shows_dram_bytes_and_the_busier_tensor_pipe_where_the_run_has_them():
    from factory import site_run

    from report.render import tables

    run = site_run()
    run["ncu"].pop("metrics", None)  # a run from before Nsight Compute's metrics were read
    for row in run["ncu"]["rows"].values():
        for kernel in (row.get("kernels") or {}).values():
            for key in ncu.EXTRA:
                kernel.pop(key, None)
    old = {lang: tables.ncu_occupancy(run, lang) for lang in ("nb", "en")}
    assert "DRAM" not in old["en"]  # a run without the metrics: the table as before
    run["ncu"]["rows"]["math"] = {"status": "ok", "kernels": {"void at::native::elementwise_kernel<128, 2>()": {
        "theoretical_pct": 100.0, "dram_read_bytes": 1e9, "dram_write_bytes": 1e9}}}
    assert tables.ncu_occupancy(run, "en") == old["en"]  # math's kernels are for the findings, not this table
    flash = next(iter(run["ncu"]["rows"]["flash"]["kernels"].values()))
    flash.update(dram_read_bytes=12_582_912, dram_write_bytes=4_194_304, tensor_hmma_pct=41.5, gmma_inst=0.0)
    run["ncu"]["metrics"] = {"dram_read_bytes": "dram__bytes_read.sum",
                             "tensor_hmma_pct": ncu.EXTRA["tensor_hmma_pct"]}
    en, nb = tables.ncu_occupancy(run, "en"), tables.ncu_occupancy(run, "nb")
    flash_line = next(line for line in en.splitlines() if line.startswith("| SDPA flash"))
    assert flash_line.rstrip(" |").endswith("| 12.6 / 4.2")  # the tensor pipes: a table of their own
    cudnn_line = next(line for line in en.splitlines() if line.startswith("| SDPA cuDNN"))
    assert cudnn_line.rstrip(" |").endswith("| –")  # not measured for this kernel
    assert "`dram__bytes_read.sum`" in en and "`dram__bytes_read.sum`" in nb
    assert "12,6 / 4,2" in nb and "DRAM" in en.splitlines()[0] and "DRAM" in nb.splitlines()[0]
