"""The groups and entries of report/collect/fix_collector.py's collections, in the order the page
shows them: each refusal (the group, named as the eligibility condition it fixes) and the
calls timed beside it. The names are the collection's; their words are the catalog's
(fix_group.<id>, fix_entry.<name>, through render/keyed.py)."""

GROUPS = ("causal_mask", "bool_padding_mask", "float_additive_mask", "sliding_window_mask", "float32",
          "pinned_flash_float32", "float32_gqa", "gqa_padding_mask", "gqa_repeat_interleave", "head_dim_100",
          "head_dim_512", "five_d", "last_dim_strided", "mha_need_weights")
ENTRIES = ("sdpa", "is_causal", "nested_jagged", "flex_score_mod", "flex_block_mask", "bf16", "repeat_kv",
           "enable_gqa", "math", "pad_104", "pad_128", "padded_104", "d64", "reshape_4d", "contiguous",
           "need_weights", "no_weights")
# entries timed beside a refusal that are not fixes of it: what another GPU generation's
# default order would run (math, pinned here) and a yardstick of other work (head dim 64)
NOT_FIXES = ("math", "d64")
