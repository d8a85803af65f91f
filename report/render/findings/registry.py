"""The findings, each registered under its function's own name with the generated file it
goes into: a function (results, ref) -> its fact, or None.

Every finding takes the same two arguments, although only the A100 comparisons read `ref`
(Hugging Face's figures): one signature lets a file's findings be called in a loop.
"""

FINDINGS = {}  # function name -> the function, in the order the modules define them
FILE_OF = {}  # function name -> the generated file (tables/<file>.<lang>.md) it goes into


def finding(file):
    """Register the decorated function as a finding of tables/<file>.<lang>.md; a file's
    findings appear in the order they are defined."""
    def register(fn):
        assert fn.__name__ not in FINDINGS, fn.__name__
        FINDINGS[fn.__name__] = fn
        FILE_OF[fn.__name__] = file
        return fn
    return register


def files_of(*modules):
    """{file: (finding names, in definition order)} for the findings the modules define."""
    names = {m.__name__ for m in modules}
    out = {}
    for name, fn in FINDINGS.items():
        if fn.__module__ in names:
            out.setdefault(FILE_OF[name], []).append(name)
    return {file: tuple(found) for file, found in out.items()}
