"""Words and numbers in Norwegian Bokmål and English.

catalog.toml  every string the build renders, nb and en side by side, dotted keys
catalog       reads it: t("col.cuda_time", lang)
format        numbers in each locale's format (nb: 1 234,5 and a no-break space before %)
"""
