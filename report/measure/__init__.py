"""Measurement on a GPU (or the CPU): the only layer of report/ that imports torch.

guard       one guarded call: ok / out of memory / unsupported, sync, peak memory
callables   the callable for each variant, from snippets/
provenance  what the run ran on
roof        the matmul roof of this GPU
timing      wall-clock timer, host time and short profiles
seed        every variant at the seed's shape, with its trace
sweep, overhead, backward, first_calls   the --all measurements
first_call_child   one fused backend's first calls in a fresh process (first_calls starts it)
shape_runs  the --shapes points: decode, prefill, grouped-query, sliding window
rounds      the figures findings compare, again in each of --rounds rounds
run         one whole run: inputs, roof, variants, sections, rounds, phase times
"""
