"""report/measure/pairs.py and pair_groups.py: paired, interleaved blocks, on the CPU with
calls of a known cost and tiny shapes."""
import argparse
import time
from statistics import median

import pytest

from report.measure import pair_groups, pairs
from report.measure.callables import make_inputs, make_variant
from report.measure.guard import Refused
from report.schema import PairGroup
from report.schema_check import check

TINY = {"batch": 1, "heads": 2, "seq_len": 32, "head_dim": 16}


def busy(us, log=None, name=None):
    """A call that takes `us` microseconds of CPU (and records that it ran)."""
    def call():
        if log is not None:
            log.append(name)
        end = time.perf_counter_ns() + us * 1000
        while time.perf_counter_ns() < end:
            pass
    return call


@pytest.fixture
def torch():
    import torch
    return torch


def test_a_block_has_enough_calls_and_never_too_many():
    assert pairs.calls_per_block(30.0) == 100  # the small shape's calls: 100 per 3 ms block
    assert pairs.calls_per_block(5000.0) == pairs.MIN_CALLS
    assert pairs.calls_per_block(0.05) == pairs.MAX_CALLS
    assert pairs.calls_per_block(400.0, block_ms=20.0) == 50  # a group's own aim: training's 20 ms


def test_a_group_with_its_own_block_aim_times_longer_blocks(torch):
    entries = {"auto": (busy(100), None), "other": (busy(100), None)}
    short = pairs.measure_group(torch, "cpu", entries, "auto", "wall", 2, "seed", block_ms=0.5)
    longer = pairs.measure_group(torch, "cpu", entries, "auto", "wall", 2, "seed", block_ms=2.0)
    assert 3 <= short["calls_per_block"]["auto"] <= 5 and 13 <= longer["calls_per_block"]["auto"] <= 20


@pytest.mark.parametrize("metric", pairs.METRICS)
def test_each_pair_times_every_entry_once_and_keeps_its_ratio_to_the_reference(torch, metric, monkeypatch):
    monkeypatch.setattr(pairs, "BLOCK_MS", 0.4)  # short blocks: a shared test machine interrupts fewer
    entries = {"auto": (busy(20), None), "slow": (busy(40), None), "same": (busy(20), None)}
    got = pairs.measure_group(torch, "cpu", entries, "auto", metric, 31, "seed")
    assert set(got["blocks_us"]) == {"auto", "slow", "same"} and set(got["ratio"]) == {"slow", "same"}
    assert all(len(v) == 31 for v in [*got["blocks_us"].values(), *got["ratio"].values()])
    assert got["calls_per_block"]["auto"] > got["calls_per_block"]["slow"] >= pairs.MIN_CALLS
    for a, b, r in zip(got["blocks_us"]["slow"], got["blocks_us"]["auto"], got["ratio"]["slow"], strict=True):
        assert r == a / b
    assert 1.5 < median(got["ratio"]["slow"]) < 2.6  # twice the work, whatever the machine's pace
    assert 0.75 < median(got["ratio"]["same"]) < 1.33
    assert got["refused"] == {}


def _order(torch, seed):
    log = []
    entries = {n: (busy(1, log, n), None) for n in ("auto", "a", "b", "c")}
    got = pairs.measure_group(torch, "cpu", entries, "auto", "wall", 6, seed)
    sizes = got["calls_per_block"]
    # the probe's calls come first; then per block WARM + its calls of one entry
    blocks, i = [], 4 * (1 + pairs.PROBES * pairs.PROBE_CALLS)
    while i < len(log):
        blocks.append(log[i])
        i += pairs.WARM + sizes[log[i]]
    return [blocks[j:j + 4] for j in range(0, len(blocks), 4)]


def test_the_order_is_shuffled_per_pair_and_the_same_for_the_same_seed(torch):
    first, again, other = _order(torch, "29-g-0"), _order(torch, "29-g-0"), _order(torch, "29-g-1")
    assert len(first) == 6 and all(sorted(p) == ["a", "auto", "b", "c"] for p in first)
    assert first == again and first != other
    assert len({tuple(p) for p in first}) > 1  # not one fixed order


def test_an_entry_that_refuses_is_left_out_with_why_and_the_reference_must_run(torch):
    def refuses():
        raise RuntimeError("No available kernel. Aborting execution.")

    got = pairs.measure_group(torch, "cpu", {"auto": (busy(5), None), "x": (refuses, None)}, "auto", "host", 3, 0)
    assert set(got["blocks_us"]) == {"auto"} and "No available kernel" in got["refused"]["x"]
    with pytest.raises(Refused, match="reference auto did not run"):
        pairs.measure_group(torch, "cpu", {"auto": (refuses, None), "x": (busy(5), None)}, "auto", "wall", 3, 0)
    with pytest.raises(ValueError, match="metric"):
        pairs.Timer(torch, "cpu", "span")


def test_a_context_is_entered_around_each_block_not_each_call(torch):
    entered = []

    class Ctx:
        def __enter__(self):
            entered.append(1)

        def __exit__(self, *exc):
            return False

    got = pairs.measure_group(torch, "cpu", {"auto": (busy(1), None), "x": (busy(1), Ctx)}, "auto", "wall", 5, 0)
    assert got["calls_per_block"]["x"] > 1 and len(entered) == 1 + 5  # the probe, then one per block


def _args(**kw):
    return argparse.Namespace(**{"rounds": 2, "pairs": 3, "device": "cpu", "dtype": "float32",
                                 "batch": 1, "heads": 2, "seq_len": 32, "head_dim": 16,
                                 "variants": ["naive", "math", "flash", "auto"], "overhead": True,
                                 "shapes": False, "backward": True, **kw})


def measure_pairs(torch, args, results, made, inputs):
    """Every round of every group, in this process (round_processes.py runs each round's
    pair_groups.measure_round in a fresh process and appends the rows the same way)."""
    groups = pair_groups.plan(torch, args, results, made, inputs)
    out = pair_groups.settings(args, groups)
    for r in range(args.rounds):
        for name, row in pair_groups.measure_round(torch, args, groups, r).items():
            out["groups"][name]["rounds"].append(row)
    return out


def test_every_round_of_every_group_is_stored_with_the_schema(torch, monkeypatch):
    monkeypatch.setattr(pair_groups, "SMALL_SHAPE", TINY)
    monkeypatch.setattr(pairs, "BLOCK_MS", 0.2)
    monkeypatch.setattr(pair_groups, "TRAINING_BLOCK_MS", 0.6)
    made = {n: make_variant(n, TINY, "cpu") for n in ("naive", "math", "flash", "auto")}
    results = {"config": TINY, "variants": {n: {"status": "ok"} for n in made} | {"flash": {"status": "unsupported"}}}
    found = measure_pairs(torch, _args(), results, made, make_inputs(TINY, torch.float32, "cpu"))
    assert list(found["groups"]) == ["seed_wall", "seed_host", "small", "issue", "training"]
    assert found["pairs"] == 3 and found["rounds"] == 2 and found["reference"] == "auto"
    for name, group in found["groups"].items():
        check(group, PairGroup, name)
        assert len(group["rounds"]) == 2 and all("error" not in r for r in group["rounds"]), name
    seed = found["groups"]["seed_wall"]["rounds"][0]
    assert set(seed["ratio"]) == {"naive", "math"}  # flash refused in the seed run: not compared
    small = found["groups"]["small"]["rounds"][1]
    assert {"math", "math_each_call", "naive"} <= set(small["ratio"])  # no GPU: no graphs
    assert not any(n.endswith("_graph") for n in small["blocks_us"])
    issue = found["groups"]["issue"]["rounds"][0]
    assert {"python_call", "no_kernel_op", "small_op", "choose_backend"} <= set(issue["ratio"])
    assert "aten_flash" in issue["refused"]  # no flash kernel on the CPU: said, not timed
    assert set(found["groups"]["training"]["rounds"][0]["ratio"]) == {"naive", "math", "flash"}
    assert found["groups"]["issue"]["metric"] == "host" and found["groups"]["small"]["shape"] == TINY
    # training's blocks have an aim of their own, recorded with the group; the others use the run's
    assert found["groups"]["training"]["block_ms"] == 0.6
    assert not any("block_ms" in g for n, g in found["groups"].items() if n != "training")


def test_a_group_that_fails_says_why_and_the_others_still_run(torch, monkeypatch):
    made = {n: make_variant(n, TINY, "cpu") for n in ("math", "auto")}
    results = {"config": TINY, "variants": {n: {"status": "ok"} for n in made}}

    def broken(*_):
        raise ValueError("a broken group")

    monkeypatch.setattr(pair_groups, "_training_entries", broken)
    monkeypatch.setattr(pairs, "BLOCK_MS", 0.2)
    found = measure_pairs(torch, _args(rounds=1, overhead=False, variants=["math", "auto"]),
                          results, made, make_inputs(TINY, torch.float32, "cpu"))
    assert list(found["groups"]) == ["seed_wall", "seed_host", "training"]
    assert found["groups"]["training"]["rounds"][0]["error"] == "ValueError: a broken group"
    assert set(found["groups"]["seed_wall"]["rounds"][0]["ratio"]) == {"math"}



def test_decode_is_paired_at_batch_one_only_without_math(torch):
    groups = pair_groups._decode_groups(torch, _args())
    assert [g.name for g in groups] == ["decode_q1_kv64", "decode_q1_kv256", "decode_q4_kv64", "decode_q4_kv256"]
    assert all(g.shape["batch"] == 1 and g.metric == "wall" for g in groups)
    assert list(groups[0].build()) == ["auto", "flash", "efficient", "cudnn"]  # no GPU: no graphs
