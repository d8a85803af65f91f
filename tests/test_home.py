"""Home gives the answer first (issue 9 §1): the short answer, each line backed by a
generated figure from the current GPU; then the words for time; then a headline table
with fewer columns, whose full version lives on the page that explains it."""

from __future__ import annotations

import copy
import re

import pytest
from pagecode import DOCS, GENERATED, LANGS
from test_vocabulary import table_header

from report.render import findings, tables
from report.results import load_reference, load_results
from report.text.catalog import t

H200 = GENERATED / "h200"
NUMBER = re.compile(r"\d")


def includes(text):
    return re.findall(r'--8<-- "generated/GPU/tables/([\w-]+)\.(?:nb|en)\.md"', text)


def sections(text):
    return re.findall(r"^## .*\{ #([\w-]+) \}", text, flags=re.M)


@pytest.mark.parametrize("lang", LANGS)
def test_home_starts_with_the_answer_then_the_words_then_the_table(lang):
    text = (DOCS / f"index.{lang}.md").read_text(encoding="utf-8")
    assert sections(text)[:3] == ["answer", "vocabulary", "headline"]
    assert includes(text) == ["findings-home", "vocabulary", "headline-home", "measured-on"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_short_answer_has_four_lines_each_with_a_figure(lang):
    text = (H200 / "tables" / f"findings-home.{lang}.md").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    leads = [line.split("**")[1] for line in lines]
    assert leads == {"nb": ["Backend.", "Math.", "CPU-tid.", "Låsing."],
                     "en": ["Backend.", "Math.", "CPU time.", "Pinning."]}[lang]
    assert all(NUMBER.search(line) for line in lines)
    assert "NVIDIA H200" in lines[0]


@pytest.mark.parametrize("lang", LANGS)
def test_home_table_has_fewer_columns_and_the_full_one_has_a_page(lang):
    home, full = (table_header(H200 / "tables" / f"{name}.{lang}.md") for name in ("headline-home", "headline"))
    assert len(home) < len(full) and set(home) <= set(full)
    shown_on = [p.name for p in DOCS.glob(f"*.{lang}.md") if "headline" in includes(p.read_text("utf-8"))]
    assert shown_on == [f"gpu-waits.{lang}.md"]


def kernel(median, lo, hi):
    return {"median": median, "min": lo, "max": hi}


def made_up(math_k, inplace_k, fused_k):
    def row(k):
        return {"status": "ok", "kernel_sum_us": k, "cuda_time_us": k, "kernels": []}
    variants = {"math": row(math_k), "naive_inplace": row(inplace_k)}
    variants.update({n: row(k) for n, k in fused_k.items()})
    return {"provenance": {"gpu_name": "GPU"}, "variants": variants}


def test_math_is_compared_only_beyond_noise():
    results = made_up(kernel(200.0, 190.0, 210.0), kernel(100.0, 95.0, 105.0),
                      {"flash": kernel(10.0, 9.0, 11.0), "cudnn": kernel(10.5, 10.2, 12.0)})
    (line,) = findings.FINDINGS["home_math"](results, {}, "en")
    assert "2.0× as much as the hand-written in-place version" in line
    assert "flash, cuDNN (within noise of each other)" in line
    results = made_up(kernel(101.0, 96.0, 104.0), kernel(100.0, 95.0, 105.0), {"flash": kernel(10.0, 9.0, 11.0)})
    (line,) = findings.FINDINGS["home_math"](results, {}, "en")
    assert "as much as the hand-written in-place version (100.0 µs), within noise" in line
    assert "the fused backend with the least kernel time, flash" in line


def test_a_run_without_the_measurements_gets_no_answer_line():
    results = copy.deepcopy(load_results(H200 / "results.json"))
    for key in ("sweep", "overhead"):
        results.pop(key)
    del results["variants"]["auto"]
    ref = load_reference()
    assert findings.FINDINGS["home_auto"](results, ref, "en") == []
    assert findings.FINDINGS["home_pin"](results, ref, "en") == []
    assert len(findings.FINDINGS["home_cpu"](results, ref, "en")) == 1  # without its small-shape sentence
    assert t("finding.home_cpu_small", "en").split(":")[0] not in findings.FINDINGS["home_cpu"](results, ref, "en")[0]


def test_home_table_rows_of_a_variant_that_did_not_run():
    results = copy.deepcopy(load_results(H200 / "results.json"))
    results["variants"]["efficient"] = {"status": "unsupported", "reason": "no", "label": "efficient"}
    body = tables.headline_home(results, "nb")
    row = next(line for line in body.splitlines() if "efficient" in line)
    header = body.splitlines()[0]
    assert "ikke støttet" in row and row.count("|") == header.count("|")
