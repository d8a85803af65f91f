"""report/text/catalog.toml: both languages, the same placeholders, Norwegian as the term
list has it, and every key used: written out where the code uses it (so a search finds it),
or built from a name in the data in report/render/keyed.py alone."""
import re
import tomllib

import pytest
from nbterms import check_nb

from report.paths import PACKAGE, ROOT
from report.render.keyed import NAMES
from report.text.catalog import CATALOG_FILE, catalog, placeholders, t
from report.text.display import LANGS

# the code, and the findings' templates (a label there is t("value.oom")); the trace doctor
# (report/doctor/) has its own catalog, standard library only (tests/test_doctor_words.py)
CODE = [*(p for p in PACKAGE.rglob("*.py") if p.relative_to(PACKAGE).parts[0] != "doctor"), *PACKAGE.rglob("*.j2"),
        ROOT / "build_tables.py", *(ROOT / "hooks").glob("*.py")]
GROUPS = sorted({key.split(".")[0] for key in catalog()})
KEY = re.compile(r"""["']((?:""" + "|".join(GROUPS) + r""")\.[a-z0-9_]+)["']""")
KEYED = ROOT / "report" / "render" / "keyed.py"


def literal_keys(paths=CODE):
    """Every string of the code that is a key of one of the catalog's groups (the prefixes
    of keyed.py are no keys)."""
    return {m.group(1) for p in paths for m in KEY.finditer(p.read_text(encoding="utf-8"))} - set(NAMES)


def keyed_keys():
    return {prefix + name for prefix, names in NAMES.items() for name in names}


def used_keys():
    return literal_keys() | keyed_keys()


def test_catalog_has_both_languages_with_the_same_placeholders():
    with CATALOG_FILE.open("rb") as fh:
        tomllib.load(fh)  # valid TOML
    entries = catalog()
    assert len(entries) > 100
    for key, texts in entries.items():
        assert set(texts) == set(LANGS), key
        assert texts["nb"].strip() and texts["en"].strip(), key
        assert placeholders(texts["nb"]) == placeholders(texts["en"]), key


def test_a_catalog_entry_missing_a_language_is_not_a_string():
    # _flatten only takes tables with exactly nb and en as strings: a lone nb is no entry
    assert "col.variant" in catalog() and "col" not in catalog()
    with pytest.raises(KeyError):
        t("col.no_such_column", "nb")


def missing(used, entries):
    """The keys used that the catalog lacks, or has without a text in one language."""
    return {key for key in used if key not in entries or not all(entries[key].get(lang, "").strip() for lang in LANGS)}


def unused(used, entries):
    return set(entries) - set(used)


def test_every_key_the_code_uses_is_in_the_catalog_in_both_languages():
    assert len(literal_keys()) > 200  # the search finds them (249 once the sentences moved to templates)
    assert missing(used_keys(), catalog()) == set()


def test_no_key_of_the_catalog_goes_unused():
    assert unused(used_keys(), catalog()) == set()


def test_the_check_sees_an_unused_key_and_a_missing_one(tmp_path):
    code = tmp_path / "made_up.py"
    code.write_text('t("col.variant", lang)\nt("finding.no_such_key", lang)\nkeyed("variant.", n, lang)\n')
    used = literal_keys([code])
    assert used == {"col.variant", "finding.no_such_key"}
    assert missing(used, catalog()) == {"finding.no_such_key"}
    assert missing({"col.variant"}, {"col.variant": {"nb": "", "en": "x"}}) == {"col.variant"}
    assert "value.none" in unused(used, catalog()) and "col.variant" not in unused(used, catalog())


def test_no_key_is_built_from_parts_outside_keyed_py():
    built = re.compile(r"""\bt\(\s*f["']|\bt\(\s*["'][a-z_]+\.[a-z0-9_]*["']\s*\+|\bf["'](?:"""
                       + "|".join(GROUPS) + r""")\.[a-z0-9_]*\{""")
    for path in CODE:
        if path != KEYED:
            found = built.findall(path.read_text(encoding="utf-8"))
            assert not found, (path.relative_to(ROOT).as_posix(), found)
    prefixes = {m.group(1) for p in CODE for m in re.finditer(r"""\bkeyed\(\s*["']([a-z_.]+)["']""", p.read_text())}
    assert prefixes and prefixes <= set(NAMES)


def test_catalog_norwegian_follows_the_term_list():
    problems = [p for key, texts in catalog().items() for p in check_nb(texts["nb"], key)]
    assert problems == []
