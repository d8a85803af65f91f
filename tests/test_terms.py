"""One Norwegian voice (the checker and its rules: tests/nbterms.py, tests/data/terms_nb.yml):
the prose of every docs/*.nb.md page and the markdown cells of the Norwegian notebook
(fenced code, inline code, --8<-- include lines, HTML comments and URLs are not prose), the
Norwegian strings of the notebook's code (what its printout and figure show), and the
checker's own rules on made-up text.
"""

from __future__ import annotations

from nbterms import DOCS, check_file, check_nb, nb_strings, notebook_code

# --------------------------------------------------------------------------- the site

NB_PAGES = sorted(p for p in DOCS.glob("*.nb.md"))
NB_NOTEBOOK = DOCS / "explore.nb.ipynb"


def test_pages_found():
    assert len(NB_PAGES) >= 6, NB_PAGES
    assert NB_NOTEBOOK.is_file()


def test_nb_pages():
    problems = [p for page in NB_PAGES for p in check_file(page)]
    assert not problems, "Norwegian prose against tests/data/terms_nb.yml:\n" + "\n".join(problems)


def test_nb_notebook_markdown():
    problems = check_file(NB_NOTEBOOK)
    assert not problems, "\n".join(problems)


def test_nb_notebook_output_strings():
    """What the Norwegian notebook prints and draws: the "nb" strings of its code."""
    problems = [
        problem
        for i, code in enumerate(notebook_code(NB_NOTEBOOK))
        for lineno, text in nb_strings(code)
        for problem in check_nb(text, name=f"explore.nb.ipynb code cell {i}:{lineno}", markdown=False)
    ]
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- the check checks


def found(text: str) -> list[str]:
    return [p.split(": «", 1)[1].split("»", 1)[0] for p in check_nb(text)]


def test_meta_terms_and_forms():
    assert found("SDPA pinnet til math, og uten pinning.") == ["pinnet", "pinning"]
    assert found("Åpne notebooken, les fila og se på CUDA-tida i mappa.") == [
        "notebooken", "fila", "CUDA-tida", "mappa"]
    assert found("Profilerertabellen viser profilererens kostnad.") == ["profilererens", "Profilerertabellen"]
    assert found("Den profilerer CPU-en; profileren og profilertabellen.") == []
    assert found("Ut-av-plass `masked_fill` kopierer.") == ["Ut-av-plass"]


def test_meta_genitive_and_calques():
    assert found("Hugging Face sin bloggserie og SDPA sitt valg.") == ["Face sin", "SDPA sitt"]
    assert found("cuDNN bygger kjernen sitt navn.") == ["kjernen sitt n"]
    # reflexive possessives are correct Norwegian
    assert found("Softmax tar vare på sin egen utverdi, får hver sin rad, og genererer "
                 "kjernen sin for arkitekturen; flash brukte 14 ms på sitt første kall.") == ["14 ms"]
    assert found("`torch.compile` sitt resultat") == ["KODE sitt"]
    assert found("mye uavhengig arbeid i flukt") == ["i flukt"]
    assert found("så nekter autograd å regne baklengs") == ["regne baklengs", "nekter autograd å"]
    assert found("warps som kan bo på en SM") == ["bo på en SM"]


def test_meta_numbers_and_units():
    nbsp = "\u00a0"
    assert found(f"13{nbsp}% og 146,8{nbsp}µs, 5,3{nbsp}s, 48{nbsp}KiB, 585{nbsp}TFLOP/s") == []
    assert found("13 % og 146,8 µs, 13%, 48 KiB, 585 TFLOP/s, 5 s") == [
        "13 %", "146,8 µs", "13%", "48 KiB", "585 TFLOP/s", "5 s"]
    assert found(f"12.5{nbsp}%") == [f"12.5{nbsp}%"]
    assert found(f"fra 256 til 16 384 og 16{nbsp}384, ikke 16384") == ["16 384", "16384"]
    assert found("CUDA 13.0, torch 2.11.0, 5 sekunder, sm80, 64 × 64, 2,8×") == []


def test_meta_prose_only():
    text = "\n".join([
        "# Tittel { #pinnet }",
        "Tekst med `pinnet` i kode og [en lenke](https://example.com/fila/13 %).",
        "```python",
        "x = 'pinnet'  # 13 %",
        "```",
        '--8<-- "generated/h200/tables/fila.nb.md"',
        "--8<--",
        "pinnet.md",
        "--8<--",
        "<!--pytest.mark.skipif(True, reason='13 %')-->",
        "![Kjernetid](generated/h200/figures/tida.svg){ loading=lazy }",
        "Her står pinnet.",
    ])
    assert check_nb(text, name="demo") == [
        "demo:12: «pinnet»: one term site-wide for sdpa_kernel's restriction is «låst til» (glossary)"
    ]


def test_meta_nb_strings():
    source = (
        'TEXT = {"a": {"nb": "Pinnet til math", "en": "Pinned to math"},\n'
        '        "b": {"nb": {"registers": "registre"}, "en": {}}}\n'
    )
    assert nb_strings(source) == [(1, "Pinnet til math"), (2, "registre")]


