"""Measurement on a GPU (or the CPU): the only layer of report/ that imports torch.

guard       one guarded call: ok / out of memory / unsupported, sync, peak memory
callables   the callable for each variant, from snippets/
provenance  what the run ran on
roof        the roofs of this device: matmul, copy, exp (special-function) rate
timing      wall-clock timer, host time and short profiles
seed        every variant at the seed's shape, with its trace
sweep, overhead, backward, first_calls   the --all measurements
first_call_child   one fused backend's first calls in a fresh process (first_calls starts it)
shape_runs  the --shapes points: decode, prefill, grouped-query, sliding window
rounds      the figures findings compare, again in one round (the round's process calls it)
round_processes, round_child   each of --rounds rounds in a fresh process, one after another:
            its figures (rounds) and its pairs (pair_groups), back as JSON through a file
pairs       paired, interleaved blocks of calls: each pair's ratio to a reference
pair_groups which variants are timed in pairs (seed, small shape, issuing, decode, training)
ncu, ncu_target   Nsight Compute's occupancy, DRAM bytes and pipe use per kernel
run         one whole run: inputs, roofs, variants, sections, rounds, pairs, phase times
"""
