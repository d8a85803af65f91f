"""How --explain writes a number: times in µs, shares in percent, never "-0.0"."""


def us(value):
    return f"{0.0 if abs(value) < 0.05 else value:,.1f} µs"


def pct(value, digits=1):
    return f"{0.0 if abs(value) < 0.5 * 10 ** -digits else value:.{digits}f}%"
