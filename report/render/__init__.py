"""results.json -> the site's generated files, in nb and en. Pure Python, no torch.

markdown      Markdown tables, captions, cell texts shared by every table
tables        the tables of the seed's shape (headline, kernels, resources, ...)
extra_tables  the --all tables (sweeps, launch overhead, backward)
findings/     the sentences the pages' prose cites, one function per finding
figures       deterministic SVG figures
site          writes every file of one GPU's folder
compare       every GPU's folder side by side, with the A100's figures (fixed file names)
"""
