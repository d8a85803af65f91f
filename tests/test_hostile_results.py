"""A contributed results.json cannot smuggle what a terminal, an SVG or a page would act on:
a string holding a control or bidi character, or a whole number too long for Python to read,
is refused in one line that names the field's path, before anything is written; a run's own
error text holding one is written out, so the file it writes loads.
"""
from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest
from factory import SITE_RUN, run_main, site_run
from pagecode import ROOT
from runfolders import fresh_run, listing

from report.paths import MODEL_TRACE
from report.render.site import render_all
from report.results import UsageError, load_reference, load_results, write_results
from report.schema_check import UNSAFE

PLACEHOLDER = 123456789


def write_raw(path, data, number=None):
    """data as JSON, without write_results' care; `number` (a string of digits) in place of
    every PLACEHOLDER."""
    text = json.dumps(data)
    if number is not None:
        text = text.replace(str(PLACEHOLDER), number)
    path.write_text(text, encoding="utf-8")


def refused_render(tmp_path, capsys, change, number=None):
    """--render-only of a run whose results.json `change` made hostile: (exit code, stderr);
    asserts that nothing under the folder changed."""
    folder = fresh_run(tmp_path / "generated")
    data = site_run()
    change(data)
    write_raw(folder / "results.json", data, number)
    before = listing(folder)
    code, out = run_main(["--render-only", "--out", str(folder.parent)], capsys)
    assert listing(folder) == before
    return code, out.err


@pytest.mark.parametrize("digits", [31, 5000, 100_000])
def test_a_whole_number_of_thousands_of_digits_is_named_by_its_path(tmp_path, capsys, digits):
    code, err = refused_render(tmp_path, capsys,
                               lambda d: d["variants"]["flash"]["kernels"][0].update(calls=PLACEHOLDER),
                               number="9" * digits)
    assert code == 2 and err.count("\n") == 1
    assert f"results.variants.flash.kernels.0.calls is a whole number of {digits:,} digits" in err


def test_a_whole_number_up_to_thirty_digits_is_read_and_judged_by_the_schema(tmp_path):
    data = site_run()
    data["variants"]["flash"]["kernels"][0]["calls"] = PLACEHOLDER
    write_raw(tmp_path / "results.json", data, "9" * 30)
    with pytest.raises(UsageError, match=r"kernels\.0\.calls: 9{30} is larger than 1e\+18"):
        load_results(tmp_path / "results.json")


UNSAFE_TEXT = {"esc": ("NVIDIA \x1b]0;owned\x07H200", "a control character (U+001B) at character 8"),
               "cr": ("H200\rA100", "a control character (U+000D) at character 5"),
               "nul": ("H\x00200", "a control character (U+0000) at character 2"),
               "c1": ("H\x9b2J", "a control character (U+009B) at character 2"),
               "rlo": ("H200\u202e001A", "a bidi control (U+202E) at character 5"),
               "isolate": ("\u2066H200", "a bidi control (U+2066) at character 1"),
               "mark": ("H200\u200f", "a bidi control (U+200F) at character 5"),
               "arabic-mark": ("\u061cH200", "a bidi control (U+061C) at character 1"),
               "surrogate": ("H200\ud800", "a lone surrogate (U+D800) at character 5")}


@pytest.mark.parametrize("name", UNSAFE_TEXT)
def test_a_string_with_a_control_or_bidi_character_is_refused_with_its_path(tmp_path, capsys, name):
    text, says = UNSAFE_TEXT[name]
    code, err = refused_render(tmp_path, capsys, lambda d: d["provenance"].update(gpu_name=text))
    assert code == 2 and err.count("\n") == 1
    assert f"results.provenance.gpu_name holds {says}" in err
    assert not UNSAFE.search(err)  # the terminal never gets the character itself


def test_a_key_with_a_bidi_control_is_refused_and_shown_written_out(tmp_path, capsys):
    def change(data):
        data["variants"]["fl\u202eash"] = data["variants"].pop("flash")

    code, err = refused_render(tmp_path, capsys, change)
    assert code == 2 and "results.variants: the key 'fl\\u202eash' holds a bidi control (U+202E)" in err
    assert not UNSAFE.search(err)


def test_a_field_of_any_type_is_checked_too(tmp_path):
    data = site_run()
    data["config"]["note"] = "\x1b[2J"  # config is dict[str, Any]: the schema checks no type there
    write_raw(tmp_path / "results.json", data)
    with pytest.raises(UsageError, match=r"results\.config\.note holds a control character \(U\+001B\)"):
        load_results(tmp_path / "results.json")


def test_line_breaks_and_tabs_are_what_real_strings_hold(tmp_path):
    data = site_run()
    assert "\n" in data["variants"]["math"]["profiler_table"]  # torch.profiler's table has lines
    data["variants"]["math"]["reason"] = "RuntimeError: no kernel\n\tat line 2"  # a traceback's
    write_raw(tmp_path / "results.json", data)
    assert load_results(tmp_path / "results.json")["variants"]["math"]["reason"].endswith("\tat line 2")


def test_a_runs_own_error_text_with_an_escape_is_written_out_and_loads(tmp_path):
    data = site_run()
    data["rounds_error"] = "CompilationError: \x1b[31merror\x1b[0m in \u202ekernel\ud800"
    data["config"]["\u2066note"] = 1  # a key too
    write_results(data, tmp_path / "results.json")
    loaded = load_results(tmp_path / "results.json")
    assert loaded["rounds_error"] == "CompilationError: \\x1b[31merror\\x1b[0m in \\u202ekernel\\ud800"
    assert "\\u2066note" in loaded["config"]
    assert not UNSAFE.search((tmp_path / "results.json").read_text(encoding="utf-8"))


def well_formed(svg):
    """The SVG's root element, parsed as XML (ParseError where it is not well-formed)."""
    root = ElementTree.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", svg
    return root


def test_every_committed_figure_is_well_formed_xml():
    svgs = sorted((ROOT / "docs").rglob("*.svg"))
    figures = sorted((SITE_RUN / "figures").glob("*.svg"))
    assert figures and set(figures) <= set(svgs)  # the site's run's figures among them
    for svg in svgs:
        well_formed(svg)


def test_freshly_rendered_figures_are_well_formed_xml_whatever_the_strings_hold(tmp_path):
    """The committed run with its GPU's name holding what XML escapes and a line break (which
    results.json may hold): every figure it renders parses. (With an ESC there, which the
    schema now refuses, 18 of the 26 did not.)"""
    data = site_run()
    data["provenance"]["gpu_name"] = 'NVIDIA <H200> & "co"\nx'
    written = render_all(data, load_reference(), tmp_path / "tables", tmp_path / "figures",
                         SITE_RUN / "traces", MODEL_TRACE)
    svgs = [p for p in written if p.suffix == ".svg"]
    assert sorted(p.name for p in svgs) == sorted(p.name for p in (SITE_RUN / "figures").glob("*.svg"))
    for svg in svgs:
        well_formed(svg)
