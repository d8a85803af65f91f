"""The site's search (mkdocs-material's search plugin, hooks/search_index.py) finds what a
reader pastes: PyTorch's warnings and the words people ask about, on "When SDPA refuses a
backend", and the prose of collapsed notes, while the tables inside them stay out."""
from __future__ import annotations

import json
import re
import sys

import pytest
from material.plugins.search.plugin import Parser
from pagecode import LANGS, ROOT, page_url

sys.path.insert(0, str(ROOT / "hooks"))
import search_index  # noqa: E402  (hooks/ is no package)

SLUG = "why-not-flash"
# what users paste: PyTorch's words as it emits them (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp,
# sdp_utils_cpp.h), and the words of the questions
PASTED = (
    "Memory efficient kernel not used because",
    "Flash attention kernel not used because",
    "No available kernel. Aborting execution.",
    "Torch was not compiled with flash attention",
    "attn_mask",
    "float32",
    "record_shapes",
    # the platforms people ask about (issue 52): a reader types these into the site's search
    "Windows",
    "V100",
    "T4",
    "2080",
    "ROCm",
    "sm75",
    "TORCH_CUDNN_SDPA_DEPRIORITIZED",
    # issue 52's page notes: GQA with a mask, and timing a call yourself
    "GQA",
    "enable_gqa",
    "torch.cuda.synchronize",
)


def indexed(html):
    """The text Material's search indexes of a page's HTML, after the hook, one string."""
    parser = Parser()
    parser.feed(search_index.on_page_content(html, None, None, None))
    parser.close()
    return " ".join("".join(s.title) + " " + "".join(s.text) for s in parser.data)


def test_a_collapsed_notes_prose_is_indexed_and_its_table_is_not():
    html = ('<p>Open text.</p><details class="note"><summary>Why flash is refused</summary>'
            "<p>Flash Attention does not support non-null attn_mask.</p>"
            "<table><tr><td>12345.6 µs</td></tr></table></details><table><tr><td>outside</td></tr></table>")
    text = indexed(html)
    assert "Why flash is refused" in text and "non-null attn_mask" in text and "Open text." in text
    assert "12345.6" not in text  # a measured table inside the note stays out
    assert "outside" in text  # a table in the open text stays in


def test_nested_collapsed_blocks_and_code_blocks():
    html = ('<details><summary>outer</summary><details class="sdpa-kernel"><summary>k</summary>'
            "<code>flash_fwd_kernel</code></details><p>after the inner one</p><table><tr><td>999</td></tr></table>"
            '</details><div class="language-python highlight"><pre><code>x = 1</code></pre></div>')
    text = indexed(html)
    assert "flash_fwd_kernel" in text and "after the inner one" in text
    assert "999" not in text and "x = 1" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_search_finds_what_users_paste_on_the_page(site_dir, lang):
    folder = site_dir / page_url("", lang)
    index = json.loads((folder / "search" / "search_index.json").read_text(encoding="utf-8"))
    docs = [d for d in index["docs"] if d["location"].startswith(f"{SLUG}/")]
    assert docs, f"{SLUG} is not in the {lang} search index"
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", " ".join(d["title"] + " " + d["text"] for d in docs)))
    missing = [term for term in PASTED if term not in text]
    assert missing == []
