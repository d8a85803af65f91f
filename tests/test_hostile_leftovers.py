"""A render removes only what it left itself (issue 50, item 2).

Each test is one of issue 50's tries against a made-up folder that looks like a leftover of
build_tables.py: a staging-shaped folder (`.<slug>-xxxxxxxx`, `.render-xxxxxxxx`) holding a
marker typed by hand or copied and a file of the user's, a folder `X.old` without `X`, and a
plain backup `gpu1.old` beside `gpu1`. Each is left as it is and named in one line on
stderr; what a killed render or run really left (its own marker, every file listed,
unchanged, or set aside by its swap) is still removed or put back.
"""
from __future__ import annotations

import json
import shutil

import pytest
from factory import SITE_RUN, run_main
from runfolders import fresh_run, listing, render_only_cli

from report.output.checks import check_folder
from report.output.folders import MARKER, clean_leftovers, mark, replace_dir
from report.output.marker import LEGACY_FORMAT, mark_aside
from report.results import UsageError

SLUG = SITE_RUN.name
TYPED_BY_HAND = json.dumps({"written_by": "build_tables.py", "marker_format": LEGACY_FORMAT})


def users_folder(path, marker_text=None, marker_from=None):
    """A folder of the user's: notes.txt, and a marker typed by hand or copied."""
    path.mkdir(parents=True)
    (path / "notes.txt").write_text("mine, not build_tables.py's", encoding="utf-8")
    if marker_from is not None:
        shutil.copy(marker_from / MARKER, path / MARKER)
    else:
        (path / MARKER).write_text(marker_text, encoding="utf-8")
    return path


def own_leftover(path):
    """What a killed render really leaves: its files, then its marker listing them."""
    path.mkdir(parents=True)
    (path / "tables").mkdir()
    (path / "tables" / "headline.en.md").write_text("x", encoding="utf-8")
    mark(path)
    return path


@pytest.fixture(scope="module")
def after_render(tmp_path_factory):
    """--render-only over an output folder holding every try at once: (out, the listing of
    each try before, exit code, stderr lines)."""
    out = tmp_path_factory.mktemp("leftovers") / "generated"
    run = fresh_run(out)
    tries = {
        "backup01": users_folder(out / ".gpu1-backup01", TYPED_BY_HAND),  # the issue's own try
        "copied-marker": users_folder(out / ".render-abcd1234", marker_from=SITE_RUN),
        "other-kind": own_leftover(out / ".gpu2-abcd1234"),  # a run's, not this render's kind
        "inside-run": users_folder(run / ".render-efgh5678", marker_from=SITE_RUN),
        "old-without-x": out / "gpu1.old",
        "plain-backup": out / f"{SLUG}.old",
    }
    shutil.copytree(SITE_RUN, tries["old-without-x"])
    shutil.copytree(SITE_RUN, tries["plain-backup"])
    own = own_leftover(out / ".render-zzzz1111")
    before = {name: listing(path) for name, path in tries.items()}
    proc = render_only_cli(out)
    assert not own.exists()  # a render's own leftover, every file listed: removed
    return out, tries, before, proc.returncode, proc.stderr.splitlines()


@pytest.mark.parametrize("name", ["backup01", "copied-marker", "other-kind", "inside-run", "old-without-x",
                                  "plain-backup"])
def test_a_folder_shaped_like_a_leftover_is_left_and_named_in_one_line(after_render, name):
    out, tries, before, code, lines = after_render
    assert code == 0
    assert listing(tries[name]) == before[name]  # every file still there, unchanged
    said = [line for line in lines if f"left {tries[name]} as it is" in line]
    assert len(said) == 1, lines


def test_the_issue_s_backup01_keeps_its_notes(after_render):
    out, tries, *_ = after_render
    assert (out / ".gpu1-backup01" / "notes.txt").read_text(encoding="utf-8") == "mine, not build_tables.py's"


def test_an_old_folder_without_its_folder_is_not_renamed_into_the_comparison(after_render):
    out, tries, before, code, lines = after_render
    assert not (out / "gpu1").exists()
    compared = "".join(p.read_text(encoding="utf-8") for p in (out / "compare" / "tables").glob("*.en.md"))
    assert "gpu1" not in compared
    assert any("no gpu1 is beside it" in line for line in lines)


def test_nothing_else_is_said(after_render):
    *_, lines = after_render
    assert len([line for line in lines if line.startswith("build_tables.py:")]) == 6, lines


def test_a_run_kind_s_own_leftover_is_removed_by_its_own_kind_only(tmp_path, capsys):
    own = own_leftover(tmp_path / ".gpu1-abcd1234")
    clean_leftovers(tmp_path, ".render-")
    assert own.exists() and capsys.readouterr().err.count("\n") == 1
    clean_leftovers(tmp_path, ".gpu1-")
    assert not own.exists()


def test_a_staging_folder_whose_listed_file_changed_is_left(tmp_path, capsys):
    own = own_leftover(tmp_path / ".render-abcd1234")
    (own / "tables" / "headline.en.md").write_text("edited by the user", encoding="utf-8")
    clean_leftovers(tmp_path, ".render-")
    assert (own / "tables" / "headline.en.md").read_text(encoding="utf-8") == "edited by the user"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "headline.en.md" in err and "changed" in err


def test_a_set_aside_folder_a_swap_left_is_removed_or_put_back(tmp_path, capsys):
    for name in ("a100", "l4"):
        shutil.copytree(SITE_RUN, tmp_path / f"{name}.old")
        mark_aside(tmp_path / f"{name}.old", f"{name}.old")
    shutil.copytree(SITE_RUN, tmp_path / "a100")
    clean_leftovers(tmp_path, ".render-")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a100", "l4"]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "l4.old" in err  # the one put back is said


def test_a_run_refuses_a_backup_beside_its_folder_before_measuring(tmp_path):
    shutil.copytree(SITE_RUN, tmp_path / SLUG)
    shutil.copytree(SITE_RUN, tmp_path / f"{SLUG}.old")
    with pytest.raises(UsageError, match=rf"{SLUG}\.old is not a folder build_tables.py set aside .*nothing"):
        check_folder(tmp_path, SLUG)
    staging = tmp_path / f".{SLUG}-abcd1234"
    shutil.copytree(SITE_RUN, staging)
    before = listing(tmp_path / f"{SLUG}.old")
    with pytest.raises(UsageError, match="set aside"):  # and the swap itself, should it get there
        replace_dir(staging, tmp_path / SLUG)
    assert listing(tmp_path / f"{SLUG}.old") == before


def test_a_copy_of_a_run_s_tables_as_tables_old_is_refused_and_kept(tmp_path, capsys):
    folder = tmp_path / "generated" / SLUG
    shutil.copytree(SITE_RUN, folder)
    shutil.copytree(folder / "tables", folder / "tables.old")  # cp -r tables tables.old: every file listed
    before = listing(folder)
    code, out = run_main(["--render-only", "--out", str(folder.parent), "--slug", SLUG], capsys)
    assert code == 2 and out.err.count("\n") == 1 and "tables.old is not a folder build_tables.py set aside" in out.err
    assert listing(folder) == before
