"""Where a run's and a render's files go, and what a run may replace: above results/ and
render/, below the command (build_tables.py).

    folders   staging folders, the swap into place, which folders hold results
    checks    refusals before anything is measured: the output location, the target, memory
    write     a measured run, one GPU's render and the comparison, each all or nothing
    signals   Ctrl-C and SIGTERM as exceptions, held back while a C extension imports
"""
