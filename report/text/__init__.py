"""Words and numbers in Norwegian Bokmål and English.

catalog.toml  every string the build renders, nb and en side by side, dotted keys
catalog       reads it: t("col.cuda_time", lang)
display       the languages (LANGS) and the names of backends (BACKEND_NAMES)
format        numbers in each locale's format (nb: 1 234,5 and a no-break space before %)
"""
