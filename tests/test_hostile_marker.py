"""A copied `.build_tables` marker makes no one's own files replaceable (issue 36): a run's
marker lists every file it wrote, by its path and sha256, and a render or a run replaces a
folder only where that folder holds nothing else, unchanged. A marker of the old format (a
constant that listed nothing) counts only where every file a render would replace is one it
writes again by name; the render upgrades it.
"""
from __future__ import annotations

import json
import shutil

import pytest
from factory import SITE_RUN, run_main
from runfolders import fresh_run, listing

import build_tables
from report.output.checks import check_folder
from report.output.folders import MARKER, clean_leftovers, mark
from report.output.marker import LEGACY_FORMAT, MARKER_FORMAT, files_of, mark_aside, read_marker
from report.results import UsageError

LEGACY = json.dumps({"written_by": "build_tables.py", "marker_format": LEGACY_FORMAT, "schema_version": 1})


def own_files(folder):
    """The user's own files, where a render writes tables and figures."""
    (folder / "tables").mkdir(exist_ok=True)
    (folder / "figures").mkdir(exist_ok=True)
    (folder / "tables" / "my-notes.md").write_text("mine", encoding="utf-8")
    (folder / "figures" / "holiday.png").write_bytes(b"\x89PNG mine")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """A folder build_tables.py rendered, with its marker: the committed run, rendered once."""
    out = tmp_path_factory.mktemp("rendered")
    folder = out / SITE_RUN.name
    shutil.copytree(SITE_RUN, folder)
    (folder / MARKER).write_text(LEGACY, encoding="utf-8")  # as committed before issue 36
    assert build_tables.main(["--render-only", "--out", str(out), "--slug", folder.name]) == 0
    return folder


def render(folder, capsys):
    return run_main(["--render-only", "--out", str(folder.parent), "--slug", folder.name], capsys)


def test_a_render_lists_every_file_it_wrote_and_upgrades_the_old_marker(rendered):
    marker = read_marker(rendered)
    assert marker["marker_format"] == MARKER_FORMAT and "swapping" not in marker
    assert marker["files"] == files_of(rendered)
    assert {k.split("/")[0] for k in marker["files"]} == {"results.json", "traces", "tables", "figures"}


@pytest.mark.parametrize("marker", ["legacy", "copied"])
def test_a_copied_marker_never_lets_a_render_remove_the_users_files(tmp_path, capsys, rendered, marker):
    folder = fresh_run(tmp_path / "mine", "s")  # results.json, and the marker copied beside it
    if marker == "copied":
        shutil.copy(rendered / MARKER, folder / MARKER)  # a real run's, listing its own files
    else:
        (folder / MARKER).write_text(LEGACY, encoding="utf-8")
    own_files(folder)
    before = listing(folder)
    code, out = render(folder, capsys)
    assert code == 2 and out.err.count("\n") == 1
    assert "is not a file build_tables.py wrote" in out.err and ("my-notes.md" in out.err or "holiday.png" in out.err)
    assert listing(folder) == before
    assert (folder / "tables" / "my-notes.md").read_text(encoding="utf-8") == "mine"


def test_a_file_changed_since_the_render_is_refused(tmp_path, capsys, rendered):
    folder = tmp_path / "out" / rendered.name
    shutil.copytree(rendered, folder)
    (folder / "tables" / "headline.en.md").write_text("my own words", encoding="utf-8")
    before = listing(folder)
    code, out = render(folder, capsys)
    assert code == 2 and "headline.en.md is not a file build_tables.py wrote (it changed since" in out.err
    assert listing(folder) == before


def test_a_render_of_a_listed_folder_replaces_it_and_lists_the_new_files(tmp_path, capsys, rendered):
    folder = tmp_path / "out" / rendered.name
    shutil.copytree(rendered, folder)
    (folder / "tables" / "headline.en.md").unlink()  # a listed file missing: nothing to lose
    code, _ = render(folder, capsys)
    assert code == 0 and (folder / "tables" / "headline.en.md").is_file()
    assert read_marker(folder)["files"] == files_of(folder)


def test_a_run_refuses_a_folder_holding_a_file_its_marker_does_not_list_before_measuring(tmp_path, rendered):
    folder = tmp_path / "out" / rendered.name
    shutil.copytree(rendered, folder)
    check_folder(folder.parent, folder.name)  # every file listed: a run may replace it
    (folder / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(UsageError, match=r"notes\.txt is not a file build_tables.py wrote \(the folder's "
                                         r"\.build_tables does not list it\)"):
        check_folder(folder.parent, folder.name)


def test_an_old_folder_with_a_copied_marker_is_not_cleaned_away(tmp_path, rendered):
    (tmp_path / rendered.name).mkdir()
    mine = tmp_path / f"{rendered.name}.old"
    mine.mkdir()
    (mine / "thesis.tex").write_text("mine", encoding="utf-8")
    shutil.copy(rendered / MARKER, mine / MARKER)
    clean_leftovers(tmp_path, ".render-")
    assert (mine / "thesis.tex").read_text(encoding="utf-8") == "mine"
    ours = tmp_path / "a100.old"  # a cut swap's: every file listed, and set aside by the swap
    ours.mkdir()
    (ours / "results.json").write_text("{}", encoding="utf-8")
    mark(ours)
    mark_aside(ours, ours.name)
    (tmp_path / "a100").mkdir()
    clean_leftovers(tmp_path, ".render-")
    assert not ours.exists() and mine.exists()
