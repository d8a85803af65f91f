"""report/'s layers import downward only, and only the measurement layer imports torch."""
import ast

from report.paths import PACKAGE

# what each part of report/ may import from report/ (itself included)
ALLOWED = {
    "paths": set(),
    "limits": set(),
    "one_line": set(),
    "locale_numbers": set(),
    "variants": set(),
    "schema_types": set(),
    "schema_ask": {"schema_types"},
    "schema": {"schema_ask", "schema_types"},
    "schema_check": {"schema"},
    "rows": {"schema"},
    "snippets": {"paths"},
    "stats": set(),
    "trace": {"trace", "snippets", "paths", "variants", "limits", "stats"},
    "derive": {"derive", "rows", "trace", "snippets", "paths", "variants", "limits", "stats"},
    "doctor": {"doctor", "trace", "snippets", "paths", "variants", "limits", "one_line", "locale_numbers", "stats"},
    "results": {"paths", "variants", "schema", "schema_check", "limits", "derive"},
    "text": {"text", "locale_numbers"},
    "verdict": {"verdict", "rows"},
    "measure": {"measure", "results", "schema", "variants", "snippets", "paths", "stats"},
    "collect": {"collect", "measure"},
    "render": {"render", "rows", "verdict", "text", "trace", "doctor", "schema", "variants", "stats"},
    "output": {"output", "render", "rows", "measure", "results", "paths", "variants", "limits", "one_line"},
}


def module_name(path):
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts), parts[-1] == "__init__"


def imports(path):
    """Absolute names of every module the file imports, at any depth (also inside functions)."""
    name, is_package = module_name(path)
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            found.add(target)
            found |= {f"{target}.{a.name}" for a in node.names}  # `from . import seed`
    return found


def part_of(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_module_belongs_to_a_known_layer():
    for path in PACKAGE.rglob("*.py"):
        name, _ = module_name(path)
        assert name == "report" or part_of(name) in ALLOWED, name


def test_layers_import_downward_only():
    for path in PACKAGE.rglob("*.py"):
        name, _ = module_name(path)
        if name == "report":
            continue
        own = part_of(name)
        for target in imports(path):
            if target.startswith("report.") and part_of(target) in ALLOWED:
                assert part_of(target) in ALLOWED[own], f"{name} imports {target}"


# report/doctor/'s layers, lowest first: each imports from its own and those before it only.
# reading/ is only the opening of a reader's file (trace_file.py); the trace format itself is
# read by report/trace/reading/, below the whole doctor (and used by measurement too)
DOCTOR_LAYERS = ("shown", "reading", "model", "rules", "output", "top")


def doctor_layer(module):
    """The layer of a module (or sub-package) of report.doctor: its sub-package, else "top"
    (explain, cli, ask_torch)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[2] in DOCTOR_LAYERS else "top"


def upward(own, target):
    """Whether module `own` importing `target` (both of report.doctor) goes up a layer."""
    rank = {name: i for i, name in enumerate(DOCTOR_LAYERS)}
    return rank[doctor_layer(target)] > rank[doctor_layer(own)]


def test_the_doctor_has_its_layers_and_nothing_else():
    doctor = PACKAGE / "doctor"
    subs = {p.name for p in doctor.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert subs == set(DOCTOR_LAYERS) - {"top"}
    assert {p.stem for p in doctor.glob("*.py")} == {"__init__", "explain", "cli", "ask_torch"}
    assert not list((PACKAGE / "trace").glob("explain*.py"))  # the doctor lives in report/doctor/ alone
    # the doctor's reading/ opens a reader's file; the format's one reader is report/trace/reading/
    assert {p.stem for p in (doctor / "reading").glob("*.py")} == {"__init__", "trace_file"}


def test_the_trace_formats_reader_lies_below_the_doctor():
    """report/trace/reading/ is the one reader of torch.profiler's format, used by measurement
    and by the doctor alike: it imports nothing of report/doctor/ (nor of measurement)."""
    reading = PACKAGE / "trace" / "reading"
    assert {p.stem for p in reading.glob("*.py")} == {"__init__", "events", "stream", "kineto_layout",
                                                       "msgspec_decoder"}
    for path in reading.glob("*.py"):
        name, _ = module_name(path)
        bad = {t for t in imports(path) if t.startswith(("report.doctor", "report.measure", "report.render"))}
        assert not bad, (name, bad)
    # both sides use it
    assert "report.trace.reading.stream" in imports(PACKAGE / "trace" / "analyze.py")
    assert "report.trace.reading.stream" in imports(PACKAGE / "doctor" / "reading" / "trace_file.py")


def test_the_doctors_layers_import_downward_only():
    seen = set()
    for path in (PACKAGE / "doctor").rglob("*.py"):
        name, _ = module_name(path)
        for target in imports(path):
            if target.startswith("report.doctor.") and _module_exists(target):
                assert not upward(name, target), f"{name} imports {target}"
                seen.add((doctor_layer(name), doctor_layer(target)))
    assert {("top", "output"), ("output", "model"), ("rules", "model"), ("output", "reading"),
            ("top", "reading"), ("reading", "shown")} <= seen
    # the model reads the reader's events, not the doctor's file opening
    assert ("model", "reading") not in seen


def test_the_layer_check_sees_an_upward_import():
    assert upward("report.doctor.model.timeline", "report.doctor.rules.why")
    assert upward("report.doctor.output.svg", "report.doctor.explain")
    assert upward("report.doctor.reading.trace_file", "report.doctor.model")  # `from ..model import x`
    assert not upward("report.doctor.cli", "report.doctor.output.svg")
    assert not upward("report.doctor.rules.why", "report.doctor.rules.mha")


def _module_exists(dotted):
    base = PACKAGE.parent.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


# the trace doctor's --ask-torch, on the reader's machine, imports torch when asked (and only then)
ASKS_TORCH = {"report.doctor.ask_torch"}


def test_only_measurement_imports_torch():
    for path in PACKAGE.rglob("*.py"):
        name, _ = module_name(path)
        uses_torch = any(t == "torch" or t.startswith("torch.") for t in imports(path))
        assert not uses_torch or part_of(name) in ("measure", "collect") or name in ASKS_TORCH, name


def test_the_doctor_imports_torch_only_inside_the_function_that_asks():
    for name in ASKS_TORCH:
        tree = ast.parse((PACKAGE.parent / (name.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert not any(a.name.split(".")[0] == "torch" for n in top for a in n.names), name


def test_no_module_passed_around_as_a_parameter():
    root = PACKAGE.parent
    for path in [root / "build_tables.py", *PACKAGE.rglob("*.py")]:
        assert "sys.modules[__name__]" not in path.read_text(encoding="utf-8"), path


def test_the_parser_sees_relative_and_function_level_imports():
    found = imports(PACKAGE / "measure" / "run.py")
    assert "torch" in found  # imported inside run_measurements
    assert {"report.measure.seed", "report.results", "report.measure.provenance"} <= found


def test_no_two_modules_share_a_name():
    """A module is named by its role: no two files of report/ and snippets/ share a name."""
    files = [*PACKAGE.rglob("*.py"), *(PACKAGE.parent / "snippets").glob("*.py"), PACKAGE.parent / "build_tables.py"]
    stems = [p.stem for p in files if p.name != "__init__.py"]
    assert sorted({s for s in stems if stems.count(s) > 1}) == []


def test_no_private_name_is_imported_from_another_module():
    for path in [PACKAGE.parent / "build_tables.py", *PACKAGE.rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, (path.name, node.module, private)


TESTS = PACKAGE.parent / "tests"


def test_no_test_module_imports_another():
    """Shared helpers live in the test libraries (pagecode.py, factory.py, nbterms.py)."""
    for path in TESTS.rglob("test_*.py"):
        assert not {n for n in imports(path) if n.split(".")[0].startswith("test_")}, path.name


def test_every_findings_module_has_its_test_module():
    from report.render import findings

    modules = {fn.__module__.rsplit(".", 1)[-1] for fn in findings.FINDINGS.values()}
    tested = {p.stem.removeprefix("test_") for p in (TESTS / "test_findings").glob("test_*.py")}
    assert modules == tested


def test_the_functions_contributing_names_exist():
    """CONTRIBUTING's path of one number names files and functions: they must be there."""
    import re

    root = PACKAGE.parent
    named = re.findall(r"`([\w/]+\.py): (\w+)`", (root / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    assert len(named) >= 4
    for path, name in named:
        assert f"\ndef {name}(" in (root / path).read_text(encoding="utf-8"), (path, name)
