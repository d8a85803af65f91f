"""The build step's library, behind build_tables.py. Layers import downward only:

    output/    what a run and a render write, all or nothing, and what they may replace
    render/    results.json -> Markdown tables, findings and SVG figures, nb and en
    verdict/   every "faster" or "within noise" a page states: the rules, each a typed Verdict
    text/      the nb/en string catalog, locale number formatting, languages and display names
    measure/   runs the snippets on a GPU (the only layer that imports torch)
    results    results.json: load, validate against schema, write atomically
    schema     the shape of results.json as types (a variant row, a stats summary, ...)
    variants   names of what is measured
    trace/     reading a torch.profiler (Kineto) trace: pure Python
    snippets   imports files of snippets/, the code the pages show
    paths      where things are
    limits     bounds on what is read from a file the build did not write
"""
