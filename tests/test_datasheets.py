"""report/render/datasheets.py: the vendor's figures beside the measured roofs, and the
sentence for a GPU the table does not have."""
import re

from factory import site_run

from report.render.datasheets import DATASHEETS, beside_copy, beside_matmul, datasheet, memory_share
from report.render.shape_tables import method
from report.render.tables import details


def test_every_entry_names_its_product_and_an_nvidia_source():
    for name, sheet in DATASHEETS.items():
        assert name.startswith("NVIDIA "), name  # as torch.cuda.get_device_name() reports it
        assert sheet.url.startswith("https://www.nvidia.com/"), name
        assert 0.1 < sheet.memory_tb_s < 10 and 50 < sheet.bf16_dense_tflops < 2000, name
    assert len({s.product for s in DATASHEETS.values()}) == len(DATASHEETS)


def figure(value):
    """A datasheet figure as a page writes it in either language (3.35 or 3,35)."""
    return re.escape(f"{value:g}").replace(r"\.", "[.,]")


def test_the_site_runs_gpu_is_in_the_table_and_its_measured_roofs_stay_below_the_datasheet():
    run = site_run()
    sheet = datasheet(run["provenance"]["gpu_name"])
    assert sheet is not None
    _, copy_share = memory_share(run, run["shapes"]["copy_roof"]["gb_per_s"])
    assert 50 < copy_share < 100  # a measured copy below the vendor's peak
    assert run["roof"]["tflops"] < sheet.bf16_dense_tflops
    for lang in ("nb", "en"):
        text = beside_copy(run, lang) + beside_matmul(run, lang)
        assert sheet.url in text and sheet.product in text
        assert re.search(rf"{figure(sheet.memory_tb_s)}\sTB/s", text)
        assert re.search(rf"{figure(sheet.bf16_dense_tflops)}\sTFLOP/s", text)


def test_a_gpu_not_in_the_table_is_said_to_be_missing_with_no_figure_guessed():
    run = site_run()
    run["provenance"]["gpu_name"] = "NVIDIA GeForce RTX 4090"
    for lang in ("nb", "en"):
        for text in (beside_copy(run, lang), beside_matmul(run, lang)):
            assert "NVIDIA GeForce RTX 4090" in text and "datasheets.py" in text
            assert "TB/s" not in text and "TFLOP/s" not in text
        assert "datasheets.py" in method(run, lang) and "datasheets.py" in details(run, lang)


def test_a_roof_measured_in_another_dtype_gets_no_bf16_datasheet_figure():
    run = site_run()
    run["roof"]["dtype"] = "float16"
    assert beside_matmul(run, "en") == "" and "989" not in details(run, "en")


def test_the_pages_that_show_a_measured_roof_show_the_datasheet_beside_it():
    run = site_run()
    for lang in ("nb", "en"):
        assert beside_copy(run, lang) in method(run, lang)
        assert beside_matmul(run, lang) in method(run, lang)
        assert beside_matmul(run, lang) in details(run, lang)
