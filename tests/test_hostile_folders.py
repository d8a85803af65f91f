"""A contributed results folder cannot reach outside the repository, hang a command, break a
render with a number, or leave a half-swapped folder that the site build accepts.

Each test is one of issue 27's tries against a made-up hostile folder: a link to /etc or to
a folder outside holding a results.json, a link inside a run's folder, a FIFO or a device in
place of results.json, a time of 0, -0.0 or 5e-324, an option far out of range, a render
killed between its two renames. The answer is one line and a non-zero exit before anything
is written, or the old files or the new ones, never a mix the strict build accepts.
"""
from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import textwrap

import pytest
from factory import SITE_RUN, run_main, shape_results
from pagecode import ROOT, gpu_hook
from runfolders import TIMEOUT, fresh_run, listing, one_error_line, render_only_cli

import build_tables
from report.output.folders import MARKER
from report.results import UsageError, load_results, write_results

SLUG = SITE_RUN.name  # fresh_run's folder


@pytest.fixture()
def outside(tmp_path):
    """A folder outside the results, holding a results.json and a secret."""
    folder = tmp_path / "outside"
    folder.mkdir()
    shutil.copy(SITE_RUN / "results.json", folder / "results.json")
    (folder / "secret.txt").write_text("not for the site", encoding="utf-8")
    return folder


# --- --render-only: links, FIFOs and devices are refused before anything is written ----------

@pytest.mark.parametrize("slug", [None, "x"])
def test_a_link_to_a_folder_outside_with_results_is_refused_and_nothing_is_written_there(
        tmp_path, outside, slug):
    generated = tmp_path / "generated"
    fresh_run(generated)
    (generated / "x").symlink_to(outside, target_is_directory=True)
    before, outside_before = listing(generated), listing(outside)
    err = one_error_line(render_only_cli(generated, *(["--slug", slug] if slug else [])))
    assert f"{str(generated / 'x')!r} is a symbolic link to {str(outside)!r}" in err
    assert listing(outside) == outside_before  # no tables/, figures/ or marker written through it
    assert listing(generated) == before


def test_a_link_inside_a_run_is_refused(tmp_path, outside):
    generated = tmp_path / "generated"
    folder = fresh_run(generated)
    (folder / "traces" / "flash.json.gz").unlink()
    (folder / "traces" / "flash.json.gz").symlink_to(outside / "secret.txt")
    before = listing(generated)
    err = one_error_line(render_only_cli(generated, "--slug", SLUG))
    assert "traces/flash.json.gz' is a symbolic link to" in err
    assert listing(generated) == before


def test_a_comparison_that_is_a_link_is_refused(tmp_path, outside):
    generated = tmp_path / "generated"
    fresh_run(generated)
    (generated / "compare").symlink_to(outside, target_is_directory=True)
    before, outside_before = listing(generated), listing(outside)
    err = one_error_line(render_only_cli(generated))
    assert f"{str(generated / 'compare')!r} is a symbolic link" in err
    assert listing(outside) == outside_before and listing(generated) == before


def special_file(path, kind):
    if kind == "fifo":
        os.mkfifo(path)
    elif os.geteuid() != 0:
        pytest.skip("making a device takes root")
    else:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # what /dev/null is


@pytest.mark.parametrize("kind, says", [("fifo", "is a FIFO"), ("device", "is a character device")])
@pytest.mark.parametrize("slug", [None, "y"])
def test_a_fifo_or_device_for_results_json_is_one_line_never_a_hang(tmp_path, kind, says, slug):
    generated = tmp_path / "generated"
    fresh_run(generated)
    (generated / "y").mkdir()
    special_file(generated / "y" / "results.json", kind)
    before = listing(generated)
    err = one_error_line(render_only_cli(generated, *(["--slug", slug] if slug else [])))  # TIMEOUT: no hang
    assert f"y/results.json' {says}" in err
    assert listing(generated) == before


@pytest.mark.parametrize("slug", [None, SLUG])
@pytest.mark.parametrize("where", ["notes.txt", "traces/flash.json.gz", "results.json"])
def test_a_hard_link_in_a_run_is_refused_before_anything_is_written(tmp_path, outside, slug, where):
    generated = tmp_path / "generated"
    folder = fresh_run(generated)
    (folder / where).unlink(missing_ok=True)
    os.link(outside / "secret.txt", folder / where)  # `ln /etc/passwd folder/notes.txt`
    before, outside_before = listing(generated), listing(outside)
    err = one_error_line(render_only_cli(generated, *(["--slug", slug] if slug else [])))
    assert f"{SLUG}/{where}' is a hard link (one file under 2 names)" in err
    assert listing(generated) == before and listing(outside) == outside_before


def test_a_link_for_results_json_is_refused(tmp_path, outside):
    generated = tmp_path / "generated"
    (generated / "y").mkdir(parents=True)
    (generated / "y" / "results.json").symlink_to(outside / "results.json")
    err = one_error_line(render_only_cli(generated))
    assert "y/results.json' is a symbolic link to" in err
    assert sorted(os.listdir(generated / "y")) == ["results.json"]


# --- the site build: the run it shows, and what docs/ may hold -------------------------------

def test_the_site_refuses_a_run_that_is_or_holds_a_link_or_a_fifo(tmp_path, outside):
    hook = gpu_hook()
    generated = tmp_path / "generated"
    fresh_run(generated)
    (generated / "x").symlink_to(outside, target_is_directory=True)
    with pytest.raises(hook.SettingError, match=r"'.*/x' is a symbolic link to"):
        hook.resolve("x", generated)
    assert hook.gpu_folders(generated) == [SLUG]  # never offered as a run to show
    (generated / SLUG / "tables" / "headline.en.md").symlink_to("/etc/passwd")
    with pytest.raises(hook.SettingError, match=r"headline\.en\.md' is a symbolic link to '/etc/passwd'"):
        hook.resolve(SLUG, generated)
    with pytest.raises(hook.SettingError, match="is a symbolic link"):  # also as a path (a preview)
        hook.resolve(str(generated / SLUG), generated / "elsewhere")
    (generated / SLUG / "tables" / "headline.en.md").unlink()
    os.link(outside / "secret.txt", generated / SLUG / "tables" / "headline.en.md")
    for setting, where in ((SLUG, generated), (str(generated / SLUG), generated / "elsewhere")):
        with pytest.raises(hook.SettingError, match=r"headline\.en\.md' is a hard link \(one file under 2 names\)"):
            hook.resolve(setting, where)


def test_the_site_refuses_a_fifo_for_the_runs_results_json_without_waiting(tmp_path):
    (tmp_path / "z").mkdir()
    os.mkfifo(tmp_path / "z" / "results.json")
    code = textwrap.dedent(f"""
        import importlib.util, sys
        from pathlib import Path
        spec = importlib.util.spec_from_file_location("gpu", {str(ROOT / "hooks" / "gpu.py")!r})
        hook = importlib.util.module_from_spec(spec); spec.loader.exec_module(hook)
        try:
            hook.resolve("z", Path({str(tmp_path)!r}))
        except hook.SettingError as err:
            sys.exit(str(err))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 1 and "z/results.json' is a FIFO" in proc.stderr
    assert proc.stderr.count("\n") == 1


def tiny_site(tmp_path):
    """A MkDocs project of one page with the hook that keeps the site to docs/'s own files."""
    project = tmp_path / "project"
    (project / "docs" / "generated").mkdir(parents=True)
    (project / "docs" / "index.md").write_text("# Hello\n", encoding="utf-8")
    (project / "mkdocs.yml").write_text(textwrap.dedent(f"""
        site_name: tiny
        strict: true
        hooks:
          - {ROOT / "hooks" / "docs_files.py"}
    """), encoding="utf-8")
    return project


def mkdocs_build(project):
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--site-dir", str(project / "site")],
                          cwd=project, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=TIMEOUT)


def published(project):
    site = project / "site"
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()) if site.exists() else []


@pytest.mark.parametrize("make, says", [
    (lambda g, outside: (g / "x").symlink_to("/etc", target_is_directory=True), "'docs/generated/x' is a symbolic link to '/etc'"),
    (lambda g, outside: (g / "x").symlink_to(outside, target_is_directory=True), "'docs/generated/x' is a symbolic link to"),
    (lambda g, outside: (g / SLUG / "traces" / "a.json.gz").symlink_to(outside / "secret.txt"), "a.json.gz' is a symbolic link"),
    (lambda g, outside: os.mkfifo(g / SLUG / "results.json.fifo"), "results.json.fifo' is a FIFO"),
    (lambda g, outside: os.link(outside / "secret.txt", g / SLUG / "notes.txt"),
     f"'docs/generated/{SLUG}/notes.txt' is a hard link (one file under 2 names)"),
], ids=["link-to-etc", "link-to-a-folder-with-results", "link-to-a-file", "fifo", "hard-link"])
def test_the_site_build_stops_in_one_line_and_publishes_nothing_from_outside(tmp_path, outside, make, says):
    project = tiny_site(tmp_path)
    fresh_run(project / "docs" / "generated")
    make(project / "docs" / "generated", outside)
    proc = mkdocs_build(project)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr and "SpecialFileError" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 1 and says in errors[0], proc.stderr
    assert published(project) == []


def test_the_site_build_publishes_a_folder_of_regular_files(tmp_path):
    project = tiny_site(tmp_path)
    fresh_run(project / "docs" / "generated")
    proc = mkdocs_build(project)
    assert proc.returncode == 0, proc.stderr
    assert f"generated/{SLUG}/results.json" in published(project)


def test_files_that_are_links_or_fifos_are_left_out_of_the_site(tmp_path, outside, caplog):
    """on_files, should a link or a FIFO appear after on_config looked: left out, with a warning."""
    import importlib.util

    from mkdocs.config import load_config
    from mkdocs.structure.files import get_files

    project = tiny_site(tmp_path)
    folder = fresh_run(project / "docs" / "generated")
    config = load_config(str(project / "mkdocs.yml"))
    spec = importlib.util.spec_from_file_location("docs_files", ROOT / "hooks" / "docs_files.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    hook.on_config(config)
    (folder / "traces" / "a.json.gz").symlink_to(outside / "secret.txt")
    os.mkfifo(folder / "traces" / "b.json.gz")
    os.link(outside / "secret.txt", folder / "traces" / "c.json.gz")
    (project / "docs" / "notes.md").hardlink_to(project / "docs" / "index.md")  # outside generated/: kept
    (folder / "linked").symlink_to(outside, target_is_directory=True)
    files = hook.on_files(get_files(config), config)
    run = f"generated/{SLUG}"
    own = {f"{run}/{p.relative_to(SITE_RUN).as_posix()}" for p in (SITE_RUN / "traces").rglob("*.json.gz")}
    kept = sorted(f.src_uri for f in files if f.inclusion.is_included() and f.src_uri not in own)
    assert kept == [f"{run}/results.json", "index.md", "notes.md"]  # the run's own kept traces aside
    said = sorted(r.getMessage().split("'")[1:4:2] for r in caplog.records if r.levelname == "WARNING")
    assert said == [[f"{run}/linked/results.json", f"{run}/linked"],
                    [f"{run}/linked/secret.txt", f"{run}/linked"],
                    [f"{run}/traces/a.json.gz", f"{run}/traces/a.json.gz"],
                    [f"{run}/traces/b.json.gz", f"{run}/traces/b.json.gz"],
                    [f"{run}/traces/c.json.gz", f"{run}/traces/c.json.gz"]]


# --- numbers: a time a renderer divides by ----------------------------------------------------

@pytest.mark.parametrize("value", [0.0, -0.0, 5e-324, 1e-300])
@pytest.mark.parametrize("where, noun", [
    (("variants", "flash", "kernel_sum_us", "median"), "duration"),    # findings/fused.py: gpu_busy
    (("variants", "flash", "wall_time_us", "median"), "duration"),
    (("shapes", "points", 0, "kernel_sum_us", "median"), "duration"),  # render/shape_points.py: gb_per_s
    (("roof", "median_ms"), "duration"),
    (("shapes", "copy_roof", "gb_per_s"), "size or rate"),              # findings/decode_findings.py
    (("shapes", "points", 0, "io_bytes"), "size or rate"),              # render/page_models.py
])
def test_a_time_or_rate_too_small_to_divide_by_is_refused_with_its_path(tmp_path, value, where, noun):
    data = shape_results()
    target = data
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    write_results(data, tmp_path / "results.json")
    path = "results." + ".".join(map(str, where))
    with pytest.raises(UsageError, match=rf"{path}: {value!r} is below 1e-06, no real {noun} "):
        load_results(tmp_path / "results.json")


def test_a_spread_of_zero_and_a_count_of_zero_are_real_figures(tmp_path):
    data = shape_results()
    data["variants"]["flash"]["wall_time_us"]["iqr"] = 0.0
    data["variants"]["flash"]["host_time_us"] = {**data["variants"]["flash"]["host_time_us"], "gpu_kept_busy": 0}
    write_results(data, tmp_path / "results.json")
    load_results(tmp_path / "results.json")
    data["variants"]["flash"]["rel_error"] = 5e-324
    write_results(data, tmp_path / "results.json")
    with pytest.raises(UsageError, match=r"rel_error: 5e-324 is subnormal"):
        load_results(tmp_path / "results.json")


def at_extremes(data):
    """data with every time and every size or rate set to the least the schema allows and
    every other figure to zero: what the renderers must take without a division failing."""
    from report import schema_check

    leaves = []
    real = schema_check._number

    def note(value, where, most, what, least=0.0, noun="figure"):
        leaves.append((where, least))

    schema_check._number = note
    try:
        schema_check.check(data)
    finally:
        schema_check._number = real
    for where, least in leaves:
        *parents, last = where.split(".")[1:]
        target = data
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        key = int(last) if isinstance(target, list) else last
        target[key] = least if least or isinstance(target[key], float) else 0  # a whole number stays one
    schema_check.check(data)
    return data


def test_the_smallest_figures_the_schema_allows_render(tmp_path):
    from report.paths import MODEL_TRACE
    from report.render.site import render_all
    from report.results import load_reference

    render_all(at_extremes(shape_results()), load_reference(), tmp_path / "tables", tmp_path / "figures",
               SITE_RUN / "traces", MODEL_TRACE)
    assert (tmp_path / "tables" / "headline.en.md").is_file()


def test_render_only_of_a_zero_time_is_one_line(tmp_path, capsys):
    folder = fresh_run(tmp_path / "generated")
    data = load_results(folder / "results.json")
    data["variants"]["flash"]["kernel_sum_us"]["median"] = 0
    write_results(data, folder / "results.json")
    before = listing(folder)
    code, out = run_main(["--render-only", "--out", str(folder.parent)], capsys)
    assert code == 2 and out.err.count("\n") == 1
    assert "results.variants.flash.kernel_sum_us.median: 0 is below 1e-06, no real duration" in out.err
    assert listing(folder) == before


# --- options: bounded before any work ----------------------------------------------------------

@pytest.mark.parametrize("argv, says", [
    (["--timer-seconds", "1e308"], "argument --timer-seconds: 1e+308 s is more than 600 s"),
    (["--sweep-timer-seconds", "1e308"], "argument --sweep-timer-seconds: 1e+308 s is more than 600 s"),
    (["--steps", str(10**23)], "argument --steps: 100,000,000,000,000,000,000,000 is more than 10,000"),
    (["--host-calls", "9" * 5000], "argument --host-calls: '99999"),
    (["--rounds", str(10**6)], "argument --rounds: 1,000,000 is more than 100"),
    (["--batch", str(10**9)], "argument --batch: 1,000,000,000 is more than 4,096"),
    (["--sweep-max-seq", str(2**40)], "argument --sweep-max-seq"),
    (["--slug", "a" * 250], "argument --slug: is 250 characters long; a folder name has at most 64"),
])
def test_an_option_out_of_range_is_one_line_before_any_work(argv, says, tmp_path, capsys, monkeypatch):
    from report.output import checks

    monkeypatch.setattr(checks, "before_measuring", lambda *a: pytest.fail("work started"))
    code, out = run_main(["--device", "cpu", "--out", str(tmp_path / "out"), *argv], capsys)
    assert code == 2 and out.err.count("\n") == 1 and says in out.err and len(out.err) < 300
    assert not (tmp_path / "out").exists()


def test_the_longest_slug_fits_with_its_staging_and_old_names(tmp_path):
    from report.paths import MAX_SLUG

    slug = "a" * MAX_SLUG
    assert build_tables.slug_name(slug) == slug
    for name in (f".{slug}-abcd1234", f"{slug}.old"):
        (tmp_path / name).mkdir()  # below the file system's name limit


# --- a render killed between its two renames ---------------------------------------------------

KILL_AT_THE_SECOND_RENAME = """
import os, signal, sys
from pathlib import Path
import build_tables
real = Path.rename
def rename(self, target):
    if self.name == "tables" and self.parent.name.startswith(".render-"):
        os.kill(os.getpid(), signal.SIGKILL)  # tables/ is tables.old/ now; the new one never arrives
    return real(self, target)
Path.rename = rename
sys.exit(build_tables.main(["--render-only", "--out", sys.argv[1], "--slug", sys.argv[2]]))
"""


def test_a_render_killed_mid_swap_fails_the_site_build_and_the_next_render_mends_it(tmp_path):
    generated = tmp_path / "generated"
    folder = generated / SLUG
    shutil.copytree(SITE_RUN, folder)
    proc = subprocess.run([sys.executable, "-c", KILL_AT_THE_SECOND_RENAME, str(generated), SLUG], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL
    assert not (folder / "tables").exists() and (folder / "tables.old").is_dir()
    with pytest.raises(gpu_hook().SettingError, match=r"has a results.json but no tables/ .*--render-only"):
        gpu_hook().resolve(SLUG, generated)
    proc = render_only_cli(generated, "--slug", SLUG)
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(folder)) == [MARKER, "figures", "results.json", "tables", "traces"]
    assert sorted(os.listdir(folder / "tables")) == sorted(os.listdir(SITE_RUN / "tables"))
    gpu_hook().resolve(SLUG, generated)


def test_staging_and_old_folders_are_git_ignored():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    paths = [".site-build-123-abcdef/", ".site-old-123-abcdef/", f"docs/generated/{SLUG}/.render-abcd1234/",
             f"docs/generated/.{SLUG}-abcd1234/", f"docs/generated/{SLUG}/tables.old/", "docs/generated/a100.old/"]
    proc = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=ROOT, capture_output=True, text=True)
    assert sorted(proc.stdout.split()) == sorted(paths)
    kept = subprocess.run(["git", "check-ignore", "--no-index", f"docs/generated/{SLUG}/{MARKER}",
                           f"docs/generated/{SLUG}/tables/"], cwd=ROOT, capture_output=True, text=True)
    assert kept.stdout == ""
