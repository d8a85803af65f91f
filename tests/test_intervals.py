"""The doctor's one interval helper (model/intervals.py): the edge cases every sweep meets."""
import random

import pytest

from report.doctor.model.intervals import Cover, Spans, covered_by, holes, length, merge, merge_ordered


def common(a, b):
    """The time two merged lists both cover, by one walk over both: the reference the
    cover's searches are checked against (the model itself asks Cover)."""
    i = j = 0
    total = 0.0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            total += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def brute_cover(spans, resolution=1):
    """The integer points [s, s + 1) any span covers: the union, counted cell by cell."""
    return {x for s, t in spans for x in range(s * resolution, t * resolution)}


@pytest.mark.parametrize("spans, merged", [
    ([], []),
    ([(1, 2)], [[1, 2]]),
    ([(3, 4), (1, 2)], [[1, 2], [3, 4]]),  # any order in
    ([(1, 2), (2, 3)], [[1, 3]]),  # touching: one stretch
    ([(1, 10), (2, 3), (4, 5)], [[1, 10]]),  # nested
    ([(1, 5), (3, 8)], [[1, 8]]),  # overlapping
    ([(2, 2)], [[2, 2]]),  # of no length: kept, covering nothing
    ([(1, 3), (2, 2), (3, 3)], [[1, 3]]),  # of no length inside or at the end of another
])
def test_merge(spans, merged):
    assert merge(spans) == merged
    assert merge_ordered(sorted(spans)) == merged
    assert length(merged) == sum(t - s for s, t in merged)


def test_length_of_nothing_and_of_a_point():
    assert length(merge([])) == 0
    assert length(merge([(5, 5), (7, 7)])) == 0


@pytest.mark.parametrize("a, b, both", [
    ([], [], 0.0),
    ([(0, 10)], [], 0.0),
    ([(0, 10)], [(10, 20)], 0.0),  # touching: no common time
    ([(0, 10)], [(2, 3), (4, 6)], 3.0),  # nested
    ([(0, 5), (8, 12)], [(3, 9)], 3.0),  # across a hole
    ([(0, 5)], [(3, 3)], 0.0),  # a point
])
def test_common(a, b, both):
    ma, mb = merge(a), merge(b)
    assert common(ma, mb) == both == common(mb, ma)


def test_common_and_length_agree_with_counting_points():
    rng = random.Random(7)
    for _ in range(200):
        a = [(s, s + rng.randrange(0, 6)) for s in (rng.randrange(0, 40) for _ in range(rng.randrange(0, 8)))]
        b = [(s, s + rng.randrange(0, 6)) for s in (rng.randrange(0, 40) for _ in range(rng.randrange(0, 8)))]
        assert length(merge(a)) == len(brute_cover(a))
        assert common(merge(a), merge(b)) == len(brute_cover(a) & brute_cover(b))


@pytest.mark.parametrize("spans, longer, found", [
    ([], 0.0, []),
    ([(1, 2)], 0.0, []),
    ([(1, 2), (2, 3)], 0.0, []),  # touching: no hole
    ([(1, 2), (4, 5)], 0.0, [(2, 4)]),
    ([(4, 5), (1, 2)], 0.0, [(2, 4)]),  # any order in
    ([(1, 10), (2, 3), (12, 13)], 0.0, [(10, 12)]),  # nested: the outer end counts
    ([(1, 2), (4, 5), (10, 11)], 2.0, [(5, 10)]),  # only holes longer than 2
    ([(1, 2), (3, 3), (5, 6)], 0.0, [(2, 3), (3, 5)]),  # a point is drawn: it splits the hole
])
def test_holes(spans, longer, found):
    assert holes(spans, longer) == found


def test_covered_by_is_each_keys_union():
    rows = [("a", 0, 2), ("b", 1, 3), ("a", 1, 4), ("a", 4, 5), ("b", 3, 3), ("a", 7, 7), ("b", 9, 10)]
    assert covered_by(rows) == {"a": 5, "b": 3}
    assert covered_by([]) == {}
    rng = random.Random(3)
    for _ in range(100):
        rows = sorted(((rng.choice("xyz"), s, s + rng.randrange(0, 5)) for s in
                       (rng.randrange(0, 30) for _ in range(rng.randrange(0, 12)))), key=lambda r: r[1])
        for k, got in covered_by(rows).items():
            assert got == length(merge([(s, t) for key, s, t in rows if key == k]))


def test_cover_answers_the_time_covered_in_any_window():
    merged = merge([(0, 2), (5, 8), (8, 9), (20, 20)])
    cover = Cover(merged)
    assert Cover([]).covered(0, 100) == 0.0
    for s in range(-2, 25):
        for t in range(s, 25):
            assert cover.covered(s, t) == common(merged, [[s, t]]), (s, t)


def test_spans_hold_their_ends_and_nested_points():
    spans = Spans([(10, 20), (0, 100), (30, 30)])
    assert spans.holds(0) and spans.holds(100) and spans.holds(55) and spans.holds(30)
    assert not spans.holds(-1) and not spans.holds(101)
    assert not Spans([]).holds(0)
    assert Spans([(5, 5)]).holds(5) and not Spans([(5, 5)]).holds(6)
