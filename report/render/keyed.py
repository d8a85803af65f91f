"""The one place a catalog key is built from parts: the text for a name that comes from the
data (a variant's name, a cause, a kernel's kind, a shape family, an occupancy limit).

Every other key is written out in full where it is used, so that a search for a key finds
its uses. NAMES lists, per key prefix, every name the code may look up this way, taken from
the module that defines the names where there is one; tests/test_catalog.py checks that
the catalog has prefix + name for each, and that no key of the catalog goes unused.
"""
from __future__ import annotations

from ..text.catalog import t
from ..trace.causes import CAUSES
from ..variants import EXTRA_VARIANTS, SHAPE_FAMILIES, SHAPE_VARIANTS, VARIANTS
from .conversions import PARTS as CONVERSION_PARTS
from .fix_names import ENTRIES as FIX_ENTRIES
from .fix_names import GROUPS as FIX_GROUPS

OVERHEAD_SHAPES = ("seed", "small")  # measure/overhead.py: the shapes of the launch-overhead tables
# the parts of issuing one call (measure/pair_groups.py: _issue_entries), in the order a call goes through them
ISSUE_PARTS = ("python_call", "no_kernel_op", "empty_launch", "small_op", "choose_backend",
               "aten_flash", "aten_efficient", "aten_cudnn", "auto", "flash", "efficient", "cudnn")
# the conditions of results.json's "eligibility" with hand-written advice (ask_fix.<id>; render/ask_table.py):
# the ids the measurement writes (tasks/ELIGIBILITY-FORMAT-CHANGES.md); a condition not listed shows the fix
# the data names
ASK_FIXES = ("causal_mask", "bool_padding_mask", "float_additive_mask", "float_bias_grad", "float32", "float32_gqa",
             "head_dim_512", "head_dim_100", "five_d", "last_dim_strided", "mha_need_weights", "pinned_flash_float32",
             "decode_causal")

# the masks and layouts an "eligibility" condition's setting names (report/measure/ask_conditions.py), in the
# words of render/ask_words.py (ask_what.mask.<name>, ask_what.layout.<name>); another shows as code
ASK_MASKS = ("causal_materialised", "bool_padding", "float_additive", "float_bias_grad", "causal_lower_right")
ASK_LAYOUTS = ("5d", "last_dim_strided", "transposed_bshd", "nested_jagged")
ASK_APIS = ("mha_need_weights", "mha_no_weights", "compiled", "compiled_pinned")

NAMES = {
    "variant.": tuple(dict.fromkeys((*VARIANTS, *EXTRA_VARIANTS, *SHAPE_VARIANTS))),
    "cause.": CAUSES,
    "conversion.": CONVERSION_PARTS,  # render/conversions.py: what a dtype conversion converts
    "limit.": ("blocks", "warps", "registers", "shared_memory", "grid"),  # snippets/occupancy.py, "_" for " "
    "word.shapes_": SHAPE_FAMILIES,  # the family as a word in a sentence
    "word.shapes_family_": SHAPE_FAMILIES,  # the family as a heading
    "page.shape_": OVERHEAD_SHAPES,
    "issue.": ISSUE_PARTS,  # findings/pairs_findings.py: waits_issue
    # render/shape_tables.py: REFUSAL_SUMMARIES, and "other" for a line no pattern matches
    "ask_fix.": ASK_FIXES,
    "fix_group.": FIX_GROUPS,  # render/fixes.py: the refusals of report/collect/fix_collector.py
    "fix_entry.": FIX_ENTRIES,  # ... and the calls timed beside each
    "fixes.word_": ("faster", "slower", "same", "undecided"),  # render/fixes.py: _outcome
    "fix_why.": ("protocol", "gpu", "versions", "code"),  # render/fixes.py: _why_not, a collection left out
    "fix_ran.": ("flash", "efficient", "cudnn", "math", "flex"),  # fixes.ran: what one call's kernels show
    "ask_what.mask.": ASK_MASKS,
    "ask_what.layout.": ASK_LAYOUTS,
    "ask_what.api.": ASK_APIS,
    "ask.gen_short.": ("cudnn_first", "flash_first", "before_sm80"),  # findings/ask_order.py: GENERATIONS
    "ask.gen.": ("cudnn_first", "flash_first", "before_sm80"),
    "refusal.": ("oom", "same_heads", "head_dim", "causal", "mask", "dtype", "other"),
}


def keyed(prefix, name, lang, **values):
    """The catalog's text for `name` from the data: keyed("variant.", "cudnn", lang) is
    t("variant.cudnn", lang)."""
    return t(prefix + name, lang, **values)
