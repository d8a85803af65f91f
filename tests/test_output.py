"""report/output: staging folders, the swap into place, atomic results.json, what a run may
replace, and the refusals that come before anything is measured."""
import json
import os
import shutil
import stat
import tempfile

import pytest
from factory import SITE_RUN, copy_run

from report.output import signals
from report.output.checks import check_writable
from report.output.folders import (
    MARKER,
    clean_leftovers,
    mark,
    owned,
    protected,
    refuse_replacing,
    replace_dir,
    result_folders,
    staged,
)
from report.output.marker import mark_aside
from report.output.write import MAX_ERROR, render_comparison, render_only, short_error
from report.paths import DEFAULT_OUT as GENERATED
from report.paths import ROOT
from report.render import compare
from report.results import UsageError, load_reference, load_results, write_results

RESULTS = SITE_RUN / "results.json"
SLUG = SITE_RUN.name  # a GPU's folder name


def test_write_results_replaces_the_file_atomically_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "results.json"
    write_results({"a": 1}, path)
    write_results({"a": 2}, path)
    assert json.loads(path.read_text(encoding="utf-8")) == {"a": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]
    assert stat.S_IMODE(path.stat().st_mode) & 0o044  # readable by others, as write_text made it


def test_a_write_that_fails_keeps_the_old_results_json(tmp_path, monkeypatch):
    path = tmp_path / "results.json"
    write_results({"a": 1}, path)

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_results({"a": 2}, path)
    assert json.loads(path.read_text(encoding="utf-8")) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_replace_dir_swaps_in_the_new_folder_and_removes_the_old(tmp_path):
    final = tmp_path / SLUG
    final.mkdir()
    (final / "old.txt").write_text("old")
    mark(final)  # after writing: the marker lists old.txt
    staging = tmp_path / f".{SLUG}-new"
    staging.mkdir()
    (staging / "new.txt").write_text("new")
    replace_dir(staging, final)
    assert sorted(p.name for p in final.iterdir()) == ["new.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [SLUG]


def test_staged_removes_what_the_body_left_on_success_and_failure(tmp_path):
    with staged(tmp_path, ".x-") as staging:
        (staging / "f").write_text("x")
    with pytest.raises(OSError), staged(tmp_path, ".x-"):
        raise OSError("disk full")
    assert list(tmp_path.iterdir()) == []


def test_staged_turns_a_rendering_error_into_one_line_when_asked(tmp_path):
    with pytest.raises(UsageError, match=r"R is damaged .*KeyError.*nothing changed"), \
            staged(tmp_path, ".x-", ("R", "nothing changed")):
        raise KeyError("variants")
    with pytest.raises(KeyError), staged(tmp_path, ".x-"):
        raise KeyError("variants")


def test_result_folders_lists_folders_with_results_by_name(tmp_path):
    for name in ("b", "a"):
        (tmp_path / name).mkdir()
        write_results(load_results(RESULTS), tmp_path / name / "results.json")
    (tmp_path / "empty").mkdir()
    assert [d.name for d in result_folders(tmp_path)] == ["a", "b"]
    assert result_folders(tmp_path / "missing") == []


def test_check_writable_refuses_a_file_and_a_read_only_folder(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="is not a folder"):
        check_writable(tmp_path / "file" / "sub")
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o555)
    with pytest.raises(UsageError, match="cannot write in"):
        check_writable(ro / "new")


# --- a run deletes only what it made -----------------------------------------------------

def unmarked(tmp_path, name="notes"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "mine.txt").write_text("the user's own file")
    return folder


@pytest.mark.parametrize("name", ["notes", SLUG])
def test_a_folder_without_the_marker_is_never_replaced(tmp_path, name):
    folder = unmarked(tmp_path, name)
    (folder / "results.json").write_text("{}")  # even one that holds a results.json
    staging = tmp_path / ".new"
    staging.mkdir()
    with pytest.raises(UsageError, match="not written by build_tables.py"):
        replace_dir(staging, folder)
    assert (folder / "mine.txt").read_text() == "the user's own file" and staging.exists()


@pytest.mark.parametrize("where", [ROOT, ROOT / "snippets", ROOT / "docs", ROOT / "report",
                                   ROOT / "tests", GENERATED, ROOT.parent])
def test_source_folders_are_protected_even_with_a_marker(where):
    assert protected(where)
    with pytest.raises(UsageError, match="never replaces"):
        refuse_replacing(where)


def test_home_is_protected(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert protected(tmp_path) and protected(tmp_path.parent) and not protected(tmp_path / "runs")


def test_a_marker_must_be_ours_a_file_and_small(tmp_path):
    folder = tmp_path / SLUG
    folder.mkdir()
    (folder / MARKER).write_text('{"written_by": "someone else", "marker_format": 1}')
    assert not owned(folder)
    (folder / MARKER).write_text("x" * 10_000)
    assert not owned(folder)
    (folder / MARKER).unlink()
    (folder / MARKER).symlink_to(SITE_RUN / MARKER)
    assert not owned(folder)
    link = tmp_path / "link"
    link.symlink_to(SITE_RUN)
    assert owned(SITE_RUN) and not owned(link)


def test_a_symlink_target_is_refused(tmp_path):
    (tmp_path / "cpu").symlink_to(tmp_path / "missing")
    with pytest.raises(UsageError, match="symbolic link"):
        refuse_replacing(tmp_path / "cpu")


def test_staging_folders_are_readable_by_others_and_marked(tmp_path):
    with staged(tmp_path, f".{SLUG}-") as staging:
        assert stat.S_IMODE(staging.stat().st_mode) & 0o055 == 0o055 & ~umask()
        assert owned(staging)
        clean_leftovers(tmp_path, f".{SLUG}-")  # a live staging folder is another run's: kept
        assert staging.exists()


def umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_leftovers_of_a_killed_run_are_cleaned_and_a_cut_swap_is_put_back(tmp_path, capsys):
    leftover = tmp_path / f".{SLUG}-abcd1234"
    leftover.mkdir()
    (leftover / "results.json").write_text("{}")
    mark(leftover)  # a run killed after its staging folder was written and marked
    foreign = tmp_path / ".notes-abcd1234"  # the same shape of name, no marker: untouched, unnamed
    foreign.mkdir()
    cut = tmp_path / "cpu.old"  # killed between the two renames of replace_dir
    cut.mkdir()
    mark(cut)
    mark_aside(cut, "cpu.old")
    both = tmp_path / "a100.old"  # killed before the set-aside folder was removed
    both.mkdir()
    mark(both)
    mark_aside(both, "a100.old")
    (tmp_path / "a100").mkdir()
    clean_leftovers(tmp_path, f".{SLUG}-")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".notes-abcd1234", "a100", "cpu"]
    assert owned(tmp_path / "cpu")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path / 'cpu.old'}" in err  # the one put back is named


def test_readers_of_results_never_see_staging_old_or_the_comparison(tmp_path):
    for name in (SLUG, f".{SLUG}-abcd1234", f"{SLUG}.old", ".render-abcd1234", "compare", "CAPS"):
        (tmp_path / name).mkdir()
        write_results(load_results(RESULTS), tmp_path / name / "results.json")
    assert [d.name for d in result_folders(tmp_path)] == [SLUG]


def test_the_comparison_ignores_a_leftover_with_results(tmp_path):
    shutil.copytree(SITE_RUN, tmp_path / SLUG)
    leftover = load_results(RESULTS)
    leftover["provenance"]["gpu_name"] = "Phantom GPU"
    (tmp_path / f".{SLUG}-leftover").mkdir()
    write_results(leftover, tmp_path / f".{SLUG}-leftover" / "results.json")
    final = render_comparison(tmp_path, load_reference())
    assert "Phantom" not in "".join(p.read_text("utf-8") for p in final.iterdir())


def test_a_comparison_folder_not_ours_is_not_replaced(tmp_path):
    shutil.copytree(SITE_RUN, tmp_path / SLUG)
    (tmp_path / "compare" / "tables").mkdir(parents=True)
    (tmp_path / "compare" / "tables" / "notes.md").write_text("mine")
    with pytest.raises(UsageError, match="not written by build_tables.py"):
        render_comparison(tmp_path, load_reference())
    assert (tmp_path / "compare" / "tables" / "notes.md").read_text() == "mine"


def test_a_contributed_results_json_renders_but_foreign_tables_stay(tmp_path):
    folder = copy_run(tmp_path / "a100")
    render_only(tmp_path, "a100", progress=lambda line: None)
    assert owned(folder) and (folder / "tables").is_dir()
    other = copy_run(tmp_path / "l4")
    (other / "tables").mkdir()
    (other / "tables" / "notes.md").write_text("mine")
    with pytest.raises(UsageError, match="not written by build_tables.py"):
        render_only(tmp_path, "l4", progress=lambda line: None)
    assert (other / "tables" / "notes.md").read_text() == "mine"


def test_render_only_is_all_or_nothing_over_the_gpus_and_the_comparison(tmp_path, monkeypatch):
    shutil.copytree(SITE_RUN, tmp_path / SLUG)
    before = {p: p.read_bytes() for p in (tmp_path / SLUG).rglob("*") if p.is_file()}
    (tmp_path / SLUG / "tables" / "headline.en.md").unlink()  # a render that went through would write it again
    del before[tmp_path / SLUG / "tables" / "headline.en.md"]

    def broken(*args):
        raise KeyError("sweep")

    monkeypatch.setattr(compare, "render_compare", broken)
    with pytest.raises(UsageError, match="was not changed"):
        render_only(tmp_path, progress=lambda line: None)
    after = {p: p.read_bytes() for p in (tmp_path / SLUG).rglob("*") if p.is_file()}
    assert after == before  # the GPU's tables were not rewritten either
    assert sorted(p.name for p in (tmp_path / SLUG).iterdir() if p.name.startswith(".")) == [MARKER]


def test_render_only_on_a_read_only_output_is_one_line(tmp_path, monkeypatch):
    shutil.copytree(SITE_RUN, tmp_path / SLUG)

    def read_only(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / SLUG))

    monkeypatch.setattr(tempfile, "mkdtemp", read_only)
    with pytest.raises(UsageError, match=r"cannot render into .*Permission denied.*nothing was changed"):
        render_only(tmp_path, progress=lambda line: None)


def test_render_only_of_the_comparison_slug_says_what_to_do(tmp_path):
    with pytest.raises(UsageError, match="without --slug"):
        render_only(GENERATED, "compare")


def test_a_long_shutil_error_is_shortened():
    err = shutil.Error([(f"/src/traces/{i}.json.gz", f"/dst/{i}", "[Errno 28] No space left on device")
                        for i in range(40)])
    assert len(short_error(err)) <= MAX_ERROR and "\n" not in short_error(err)
    assert short_error(OSError(28, "No space left on device", "/x")) == "No space left on device: /x"


# --- signals ---------------------------------------------------------------------------------

@pytest.fixture()
def handlers():
    import signal

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signals.install()
    yield signal
    for s, handler in saved.items():
        signal.signal(s, handler)


def test_the_handlers_go_back_to_what_they_were_after_the_block():
    import signal

    mine = lambda signum, frame: None  # noqa: E731
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        signal.signal(signal.SIGTERM, mine)
        with signals.installed():
            assert signal.getsignal(signal.SIGTERM) is not mine
            with pytest.raises(signals.Terminated):
                os.kill(os.getpid(), signal.SIGTERM)
        assert signal.getsignal(signal.SIGTERM) is mine
        assert signal.getsignal(signal.SIGINT) is saved[signal.SIGINT]
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)


def test_sigterm_is_an_exception_that_clean_up_sees(handlers, tmp_path):
    with pytest.raises(signals.Terminated):
        with staged(tmp_path, f".{SLUG}-"):
            os.kill(os.getpid(), handlers.SIGTERM)
    assert list(tmp_path.iterdir()) == [] and signals.received() == handlers.SIGTERM


def test_ctrl_c_during_an_import_waits_for_its_end(handlers):
    done = []
    with pytest.raises(KeyboardInterrupt):
        with signals.deferred():
            os.kill(os.getpid(), handlers.SIGINT)
            done.append("the import finished")  # not cut short halfway
    assert done == ["the import finished"]


def test_the_renderer_is_imported_with_ctrl_c_held_back(handlers, monkeypatch):
    import sys

    from report.output import write

    monkeypatch.delitem(sys.modules, "report.render.site", raising=False)
    seen = []

    class Finder:
        def find_spec(self, name, path=None, target=None):
            if name == "report.render.site":
                os.kill(os.getpid(), handlers.SIGINT)  # Ctrl-C while the render layer imports
                seen.append(name)
            return None

    monkeypatch.setattr(sys, "meta_path", [Finder(), *sys.meta_path])
    with pytest.raises(KeyboardInterrupt):
        write._renderer()
    assert seen and "report.render.site" in sys.modules  # the import ran to its end first
