"""The trace reader installs as a command of its own (issue 31, item 6): the wheel built from
pyproject.toml, installed in a clean venv under a temporary folder, runs `trace-doctor` and
`python -m sdpa_trace_doctor.doctor.cli` on a committed trace from another folder, with the
standard library alone (the venv has nothing else: no torch, no msgspec). pip fetches the
build backend (setuptools) from the package index."""
import json
import shutil
import subprocess
import sys
import venv

import pytest
from pagecode import ROOT

from report.doctor.explain import explain_file

TRACE = ROOT / "tests" / "fixtures" / "corpus" / "sdpa_train.json.gz"


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("install")
    src = tmp / "src"  # the files the wheel is built from, copied: the build writes beside them
    src.mkdir()
    shutil.copy(ROOT / "pyproject.toml", src)
    shutil.copytree(ROOT / "report", src / "report", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "snippets", src / "snippets", ignore=shutil.ignore_patterns("__pycache__"))
    env = tmp / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env)
    py = env / "bin" / "python"
    wheels = tmp / "wheels"
    subprocess.run([py, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", wheels, src], check=True, timeout=600)
    wheel = next(wheels.glob("sdpa_trace_doctor-*.whl"))
    subprocess.run([py, "-m", "pip", "install", "--quiet", "--no-deps", wheel], check=True, timeout=300)
    away = tmp / "elsewhere"  # not the clone: the command must not find report/ beside it
    away.mkdir()
    return env, away


def test_the_installed_command_prints_what_build_tables_explain_prints(installed):
    env, away = installed
    done = subprocess.run([env / "bin" / "trace-doctor", TRACE], capture_output=True, text=True, cwd=away,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == explain_file(TRACE)


def test_the_installed_module_writes_the_json_result_with_the_standard_library_alone(installed):
    env, away = installed
    py = env / "bin" / "python"
    done = subprocess.run([py, "-m", "sdpa_trace_doctor.doctor.cli", TRACE, "--format", "json"], capture_output=True,
                          text=True, cwd=away, timeout=120)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["schema"] == "sdpa-trace-doctor" and doc["pace"]["verdict"] == "CPU-bound"
    # nothing but the reader and what venv puts in every venv (pip; setuptools before Python 3.12)
    listed = subprocess.run([py, "-m", "pip", "list", "--format", "json"], capture_output=True, text=True, check=True)
    names = {p["name"] for p in json.loads(listed.stdout)}
    assert "sdpa-trace-doctor" in names and names <= {"pip", "setuptools", "sdpa-trace-doctor"}
    loaded = subprocess.run([py, "-c", "import sys, sdpa_trace_doctor.doctor.cli; print(sorted(m for m in sys.modules "
                             "if m in ('torch', 'numpy', 'msgspec')))"], capture_output=True, text=True, cwd=away)
    assert loaded.stdout.strip() == "[]"


def test_the_installed_command_refuses_a_missing_file_in_one_line(installed):
    env, away = installed
    done = subprocess.run([env / "bin" / "trace-doctor", "missing.json"], capture_output=True, text=True, cwd=away)
    assert done.returncode == 2 and done.stderr == "trace-doctor: error: missing.json: no such file\n"


def test_python_runs_the_command_module_here_too():
    done = subprocess.run([sys.executable, "-m", "report.doctor.cli", TRACE], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0 and done.stdout == explain_file(TRACE)


def test_the_wheel_installs_one_package_of_the_projects_own_name(installed):
    """Issue 38: nothing called `report` or `snippets` lands in site-packages (it would collide with
    anything else of that name); snippets/ travels inside the package and the reader loads
    occupancy.py from there, not from a folder beside it."""
    env, away = installed
    py = env / "bin" / "python"
    done = subprocess.run([py, "-c", "import sysconfig, pathlib, json; p = pathlib.Path(sysconfig.get_paths()['purelib']); "
                           "print(json.dumps(sorted(x.name for x in p.iterdir())))"],
                          capture_output=True, text=True, check=True, cwd=away)
    ours = {n for n in json.loads(done.stdout) if not n.startswith(("pip", "setuptools", "_distutils", "distutils",
                                                                    "pkg_resources", "__pycache__"))}
    assert ours == {"sdpa_trace_doctor", "sdpa_trace_doctor-1.0.0.dist-info"}
    where = subprocess.run([py, "-c", "from sdpa_trace_doctor import snippets, paths; "
                            "print(snippets.load('occupancy').__file__); print(paths.SNIPPETS)"],
                           capture_output=True, text=True, check=True, cwd=away).stdout.split()
    assert where[0].endswith("sdpa_trace_doctor/_snippets/occupancy.py")
    assert where[1].endswith("sdpa_trace_doctor/_snippets")
