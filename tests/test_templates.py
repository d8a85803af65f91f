"""report/text/templates/: the findings' sentences, one template per file and language, over
the facts the findings return (report/render/prose.py). Both languages read the same facts;
a string from results.json reaches a page only escaped; a number only formatted."""
import jinja2
import pytest
from factory import site_run
from jinja2 import meta, nodes

from report.render import findings, prose
from report.render.findings.registry import FILE_OF
from report.render.header import written_by
from report.text.display import LANGS

TEMPLATED = sorted(f for f in set(FILE_OF.values()) if prose.has_template(f))
NAMES = {**findings.FILES, **findings.EXTRA_FILES, **findings.ANSWER_FILES}  # file -> its findings, in order
PROSE = ["model", "model-hand-written", "model-fused", "model-ceilings",  # the models before the measurement: memory_model.py
         *(f"model-{page}{check}" for page in ("occupancy", "scaling", "decode", "training")
           for check in ("", "-check"))]  # and page_models.py
SHARED = sorted({p.name.split(".")[0] for p in prose.TEMPLATES.glob("_*.j2")})
COMPARE = ["compare-findings"]  # every GPU side by side: compare.py, over compare_findings.compare_findings


def facts_read(source):
    """Every name a template reads from its context, and every attribute path it reads off
    one (home_math.vs_naive.ratio), aliases and loop variables included."""
    tree = prose.environment("en").parse(source)
    read = set(meta.find_undeclared_variables(tree))
    for node in tree.find_all(nodes.Getattr):
        path = []
        while isinstance(node, nodes.Getattr):
            path.append(node.attr)
            node = node.node
        if isinstance(node, nodes.Name):
            read.add(".".join([node.name, *reversed(path)]))
    return read


def source(name, lang):
    return (prose.TEMPLATES / prose.template_name(name, lang)).read_text(encoding="utf-8")


def test_every_findings_file_is_written_from_a_template():
    assert set(TEMPLATED) == set(NAMES) and "_verdicts" in SHARED


@pytest.mark.parametrize("name", TEMPLATED + PROSE + SHARED + COMPARE)
def test_both_languages_read_the_same_facts(name):
    assert facts_read(source(name, "nb")) == facts_read(source(name, "en"))


def test_the_check_sees_a_fact_one_language_lacks():
    assert facts_read("{{ a.b|us }} {% for x in c %}{{ x.d }}{% endfor %}") == {"a", "c", "a.b", "x.d"}
    assert facts_read("{{ a.b|us }}") != facts_read("{{ a.c|us }}")


@pytest.mark.parametrize("name", TEMPLATED)
def test_a_template_reads_only_the_findings_of_its_file(name):
    own = {n for n, f in FILE_OF.items() if f == name}
    for lang in LANGS:
        tree = prose.environment(lang).parse(source(name, lang))
        aliases = {a.target.name for a in tree.find_all((nodes.Assign, nodes.AssignBlock))}
        top = meta.find_undeclared_variables(tree) - aliases  # {% set m = home_math %} in an {% if %}
        assert top <= own, (name, lang, top - own)


def test_every_template_is_a_findings_files_a_pages_prose_or_shared():
    for path in prose.TEMPLATES.iterdir():
        stem, lang, *rest = path.name.split(".")
        assert rest == ["md", "j2"] and lang in LANGS, path.name
        assert stem in TEMPLATED or stem in PROSE or stem in SHARED or stem in COMPARE, path.name


def test_the_comparisons_template_reads_only_its_fact():
    for lang in LANGS:
        tree = prose.environment(lang).parse(source("compare-findings", lang))
        aliases = {a.target.name for a in tree.find_all((nodes.Assign, nodes.AssignBlock))}
        assert meta.find_undeclared_variables(tree) - aliases == {"compare_findings"}


def test_a_data_string_is_printed_only_escaped_and_a_number_only_formatted():
    env = prose.environment("en")
    gpu = prose.Data("<img src=x>*em*\n# h")
    assert env.from_string("{{ g|text }}").render(g=gpu) == "&lt;img src=x&gt;\\*em\\* \\# h"
    assert env.from_string("{{ g|code }}").render(g=prose.Data("a`b")) == "`a'b`"
    for bare in ("{{ g }}", "{{ 1.5 }}", "{{ none }}"):
        with pytest.raises(TypeError):
            env.from_string(bare).render(g=gpu)
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ g.no_such_fact }}").render(g=gpu)


def test_a_strangers_gpu_name_reaches_the_findings_escaped():
    plain = site_run()
    plain["provenance"]["gpu_name"] = "<img src=x onerror=alert(1)>[x](javascript:y)"
    for lang in LANGS:
        body = findings.render_findings("findings-home", NAMES["findings-home"], plain, None, lang)
        assert "<img" not in body and "&lt;img src=x onerror=alert(1)&gt;\\[x\\](javascript:y)" in body


def test_the_header_names_the_functions_and_the_template():
    names = NAMES["findings-home"]
    assert written_by(findings.writers("findings-home", names, "nb")) == (
        "report/render/findings/home.py: home_auto, home_math, home_cpu, home_pin; "
        "report/text/templates/findings-home.nb.md.j2")
