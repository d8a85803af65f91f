"""report/output: staging folders, the swap into place, atomic results.json, what a run may
replace, and the refusals that come before anything is measured."""
import json
import os
import stat

import pytest

from report.output.checks import check_writable
from report.output.folders import mark, replace_dir, result_folders, staged
from report.paths import DEFAULT_OUT as GENERATED
from report.results import UsageError, load_results, write_results

H200 = GENERATED / "h200" / "results.json"


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
    final = tmp_path / "h200"
    final.mkdir()
    mark(final)
    (final / "old.txt").write_text("old")
    staging = tmp_path / ".h200-new"
    staging.mkdir()
    (staging / "new.txt").write_text("new")
    replace_dir(staging, final)
    assert sorted(p.name for p in final.iterdir()) == ["new.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h200"]


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
        write_results(load_results(H200), tmp_path / name / "results.json")
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
