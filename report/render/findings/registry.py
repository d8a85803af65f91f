"""The findings, registered by name: each is a function (results, ref, lang) -> lines."""

FINDINGS = {}


def finding(name):
    """Register the decorated function as the finding `name`."""
    def register(fn):
        assert name not in FINDINGS, name
        FINDINGS[name] = fn
        return fn
    return register
