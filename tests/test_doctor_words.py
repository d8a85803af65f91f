"""The trace doctor speaks two languages (issue 38): its rules return typed facts, every
sentence is a key of one catalog per language (report/doctor/output/words_en.py, words_nb.py),
and `--lang nb` gives the same findings with the same numbers, written as the Norwegian
pages write them."""
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest
from madeup import call, sdpa_args, trace_of
from nbterms import check_nb

import build_tables
from report.doctor import cli
from report.doctor.explain import explain, explain_file, explain_json, explain_path, read_trace, report
from report.doctor.output import said, words_en, words_nb
from report.doctor.rules import facts as F
from report.paths import ROOT

CORPUS = ROOT / "tests" / "fixtures" / "corpus"
TRACES = sorted(CORPUS.glob("*.json.gz"))
EN, NB = words_en.SENTENCES, words_nb.SENTENCES


def fields(template):
    """{placeholder: the name of its spec} of a catalog sentence."""
    return {name: (spec or "").partition(":")[0] for _, name, spec, _ in string.Formatter().parse(template) if name}


def test_every_key_is_in_both_languages_with_the_same_placeholders():
    assert set(EN) == set(NB), sorted(set(EN) ^ set(NB))
    for key in EN:
        assert fields(EN[key]) == fields(NB[key]), key


def test_the_norwegian_sentences_keep_the_sites_norwegian_terms():
    problems = [f"{key}: {p}" for key, text in NB.items() for p in check_nb(text, name=key, markdown=True)]
    assert not problems, problems


def test_a_fact_is_numbers_names_and_cases_never_words():
    for cls in (getattr(F, n) for n in dir(F)):
        if isinstance(cls, type) and hasattr(cls, "__dataclass_fields__"):
            assert cls.__dataclass_params__.frozen, cls.__name__
            assert set(cls.__dataclass_fields__) & {"title", "evidence", "remedy", "text"} == set(), cls.__name__
    assert set(said.WORDERS) == {c for c in vars(F).values() if isinstance(c, type) and c.__module__ == F.__name__}


# --------------------------------------------------------------------------- facts on the corpus

def findings(name):
    return {f.rule: f.fact for f in explain_path(CORPUS / name).findings}


def test_the_rules_return_their_facts_on_the_corpus():
    got = findings("sdpa_train.json.gz")
    bound = got["launch_bound"]
    assert isinstance(bound, F.LaunchBound) and bound.launches_per_range == 1134
    assert bound.graphs_per_range is None and bound.decode_calls == 0 and bound.launch_delay_us < 50
    assert findings("head_dim_100.json.gz")["head_dim"] == F.HeadDim(100, 8, pytest.approx(530.396))
    mask = findings("sliding_window.json.gz")["bool_mask"]
    assert (mask.calls, mask.mask, mask.pattern) == (8, (4, 1, 1024, 1024), "padding")
    assert findings("learned_bias_train.json.gz")["bias_in_training"] == F.BiasInTraining(2)
    gemm = findings("gpt2_eager_fp16.json.gz")["gemm_alignment"]
    assert gemm.alignments == ("align1",) and gemm.dims == () and gemm.op is None  # no shapes recorded
    assert findings("eager_infer.json.gz")["hand_written_attention"] == F.HandWritten(16, 0, 0)
    pace = findings("two_streams.json.gz")["pace"]
    assert isinstance(pace, F.PaceOnly) and pace.paced_by == "gpu" and pace.top_kernel.startswith("nvjet_sm90")


def test_the_rules_return_their_facts_on_made_up_traces():
    args = sdpa_args((2, 4, 128, 64), (2, 4, 128, 64), dtype="double")
    found = explain(trace_of(*call(0, "aten::_scaled_dot_product_attention_math", (), args,
                                   backend_kernel="gemm_kernel")))
    fallback = next(f.fact for f in found.findings if f.rule == "math_fallback")
    assert isinstance(fallback, F.MathFallback) and fallback.why.ran == "math"
    assert [r.key for r in fallback.why.speed][:2] == ["dtype", "dtype"] and fallback.why.fixes == ["low_precision"]
    assert fallback.why.speed[0].values == {"dtype": "float64", "low": ("float16", "bfloat16")}


def test_every_finding_on_the_corpus_has_a_fact_with_words_in_both_languages():
    for path in TRACES:
        for f in explain_path(path).findings:
            en, nb = said.finding(f, "en"), said.finding(f, "nb")
            assert all(en) and all(nb) and en != nb, (path.name, f.rule)
            assert (f.title, f.evidence, f.remedy, f.source) == en  # the JSON's words: English


# --------------------------------------------------------------------------- the Norwegian text

VERSIONS = re.compile(r"\d+\.\d+\.\d+|\(2\.11\)|2\.11|\d+\.x|capability \d+\.\d+")  # names, not figures
NUMBER = {"en": re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"),
          "nb": re.compile(r"\d{1,3}(?:\u00a0\d{3})+(?:,\d+)?|\d+(?:,\d+)?")}


def numbers(text, lang):
    """The numbers of a text as floats, in the order they appear, read as `lang` writes them."""
    text = VERSIONS.sub(" ", text)
    plain = [m.replace(",", "").replace("\u00a0", "") if lang == "en" else
             m.replace("\u00a0", "").replace(",", ".") for m in NUMBER[lang].findall(text)]
    return sorted(float(x) for x in plain)


def finding_blocks(text):
    """The first screen's findings: each one's lines, from its numbered head to the next."""
    screen = text.split("\n\n")[0].splitlines()
    blocks = []
    for line in screen:
        if re.match(r"  \d+\. ", line):
            blocks.append([line])
        elif blocks and line.startswith("    "):  # its evidence, its remedy, a wrapped line
            blocks[-1].append(line)
    return blocks


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name)
def test_the_norwegian_text_has_the_same_findings_and_numbers(path):
    found = read_trace(path)
    result = explain(found)
    en, nb = report(result, "en"), report(result, "nb")
    en_blocks, nb_blocks = finding_blocks(en), finding_blocks(nb)
    assert len(en_blocks) == len(nb_blocks) == min(len(result.findings), len(en_blocks))
    for a, b in zip(en_blocks, nb_blocks, strict=True):
        assert numbers(" ".join(a), "en") == numbers(" ".join(b), "nb")
    assert numbers(en.split("\n\n")[0], "en") == numbers(nb.split("\n\n")[0], "nb")  # the whole first screen
    detail = en.split("\n\n", 1)[1], nb.split("\n\n", 1)[1]
    assert len(detail[0].splitlines()) == len(detail[1].splitlines())  # the detail: line by line
    for a, b in zip(detail[0].splitlines(), detail[1].splitlines(), strict=True):
        assert numbers(a, "en") == numbers(b, "nb"), (a, b)


def _english_only():
    """Every catalog sentence's English text between placeholders, three words or more,
    that no Norwegian sentence holds (a name, a call or a source they share is no English)."""
    nb_text = " ".join(NB.values())
    out = set()
    for template in EN.values():
        for literal, *_ in string.Formatter().parse(template):
            piece = literal.strip(" ,;:()[]")
            if len(piece.split()) >= 3 and piece not in nb_text:
                out.add(piece)
    return out


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.name)
def test_the_norwegian_text_holds_no_english_sentence(path):
    nb = report(explain_path(path), "nb")
    english = sorted(piece for piece in _english_only() if piece in nb)
    assert not english, english


def test_the_json_is_the_same_whatever_the_text_language(capsys):
    trace = CORPUS / "sdpa_train.json.gz"
    assert cli.main([str(trace), "--format", "json", "--lang", "nb"]) == 0
    assert capsys.readouterr().out == explain_file(trace, "json")


def test_the_pages_reader_asks_the_doctor_in_the_pages_language():
    """The in-browser worker's Python, run here: its text and its diagnosis's words are the
    command's in the language the page gives it."""
    worker = (ROOT / "docs" / "javascripts" / "trace-worker.js").read_text(encoding="utf-8")
    code = re.search(r"pyodide\.runPython\(`(.*?)`\);", worker, re.S).group(1)
    assert 'read(folder, file.name, stored, lang === "nb" ? "nb" : "en")' in worker
    scope = {}
    exec(code.replace('sys.path.insert(0, "/app")', ""), scope)  # the page's own code, as Pyodide runs it
    trace = CORPUS / "sdpa_train.json.gz"
    kind, text, doc = scope["read"](str(trace.parent), trace.name, trace.name, "nb")
    assert kind == "done" and text == explain_file(trace, lang="nb")
    assert doc == explain_json(explain_path(trace), "nb") and "Oppstartene fra verten" in doc


# --------------------------------------------------------------------------- the option

@pytest.mark.parametrize("command", [[sys.executable, "-m", "report.doctor.cli"],
                                     [sys.executable, "build_tables.py", "--explain"]])
def test_an_unknown_language_is_one_line_and_exit_2(command):
    done = subprocess.run([*command, str(CORPUS / "sdpa_train.json.gz"), "--lang", "de"], capture_output=True,
                          text=True, cwd=ROOT, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "--lang" in done.stderr and "'de'" in done.stderr


def test_lang_goes_with_explain_only():
    with pytest.raises(SystemExit) as err:
        build_tables.parse_args(["--lang", "nb"])
    assert err.value.code == 2
    assert build_tables.parse_args(["--explain", "x.json", "--lang", "nb"]).lang == "nb"


def test_trace_doctor_writes_norwegian_when_asked(capsys, tmp_path):
    trace = CORPUS / "sdpa_train.json.gz"
    assert cli.main([str(trace), "--lang", "nb", "--svg", str(tmp_path / "step.svg")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Tempoet settes av verten") and "1\u00a0134 oppstarter per område" in out
    assert "Tidslinje" in Path(tmp_path / "step.svg").read_text(encoding="utf-8")
