"""results.json -> the site's generated files, in nb and en. Pure Python, no torch.

markdown      Markdown tables, captions, cell texts shared by every table
tables        the tables of the seed's shape (headline, kernels, resources, ...)
extra_tables  the --all tables (sweeps, launch overhead, backward)
attribution   where a forward's kernel time goes, per cause
shape_points  reading the --shapes points; shape_tables, shape_figures: their tables, figures
findings/     the sentences the pages' prose cites, one function per finding, each
              declaring the file it goes into
figures       deterministic SVG figures
header        the first line of every generated file: the functions that wrote it
site          writes every file of one GPU's folder
compare       every GPU's folder side by side, with the A100's figures (fixed file names)
"""
