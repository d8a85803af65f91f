"""The limits and the kinds of number every results.json figure is checked as (schema.py's
docstring says what each allows); shared by schema.py and schema_ask.py."""
from typing import Annotated

MAX_TIME = 1e12  # µs or ms: more than eleven days in µs; a real figure is far below
MAX_NUMBER = 1e18  # bytes, FLOPs, counts, percentages: an exabyte
MIN_DIVISOR = 1e-6  # a picosecond in µs; a real time, size or rate is far above, and any
# figure divided by it stays finite (MAX_NUMBER / MIN_DIVISOR = 1e24)

Time = Annotated[float, "time"]  # a duration in the unit its key names (_us, _ms): positive
Spread = Annotated[float, "spread"]  # how far durations lie apart, in the same unit: may be zero
Positive = Annotated[float, "positive"]  # a size or rate the renderers divide by: bytes, FLOPs, GB/s
Whole = Annotated[int, "whole"]  # a whole number that may be zero; a plain int is at least 1
Number = Annotated[float, "number"]  # any other figure: a count, a ratio, bytes, TFLOP/s, %
