"""Runs merged while tracing (``programs/frontier.py``, ``programs/frame_state.py``).

References: the catalogue's Report Noisy Max (its one-dimensional integral, Dwork & Roth's
``∫ p(z − q_i) Π_{j≠i} F(z − q_j) dz``) for the running best, strict or not, from ``−∞`` or
from ``None``, inside a call or not, comparing two earlier queries again or not, for a running
minimum (report noisy max of ``−q`` by the symmetry of Laplace noise), for a program keeping
its best in an object of its own class or taking Python's ``max`` (traced depth first), and,
halved by the exchangeability of two equal queries, for one that reports whether query 1 was a
record; ``mpmath.quad`` for a running best that also reports a gap bucket.
"""

from fractions import Fraction

import mpmath
import pytest

import exactdp
from exactdp.programs import program
from exactdp.programs.frame_state import SUPPORTED
from exactdp.programs.frontier import _explore
from exactdp.programs.path_merging import merge_group
from exactdp.programs.tracing import trace
from tests.conftest import assert_encloses
from tests.programs.compared_noises import running_best, running_best_gaussian

pytestmark = pytest.mark.skipif(not SUPPORTED, reason="the state is read from CPython 3.11's "
                                                     "frames")

EPS = Fraction(7, 10)
QUERIES = [0, 1, 0, 2, 1, 3, 2]


def explored(function, queries, **kwargs):
    """The paths of the breadth-first exploration, or ``None`` when it gives up."""
    return _explore(function, queries, {"epsilon": EPS, **kwargs}, 65_536, 10_000, None)


def laplace():
    """The density and CDF of ``Lap(2/ε)`` in mpmath, at the working precision."""
    scale = 2 / mpmath.mpf(EPS.numerator) * EPS.denominator

    def pdf(x):
        return mpmath.exp(-abs(x) / scale) / (2 * scale)

    def cdf(x):
        return mpmath.exp(x / scale) / 2 if x < 0 else 1 - mpmath.exp(-x / scale) / 2
    return pdf, cdf


def records(queries, draw, better):
    """``(index, value)`` of the last record of ``q_i + draw()``, a record when
    ``better(noisy, best)`` (the comparison in a function of its own: one frame more)."""
    best, index = None, None
    for i, query in enumerate(queries):
        noisy = query + draw()
        if best is None or better(noisy, best):
            best, index = noisy, i
    return index, best


def best_at_least(prng, queries, epsilon):
    """The running best with a non-strict comparison (ties have probability 0)."""
    return records(queries, lambda: prng.laplace(scale=2.0 / epsilon), lambda v, b: v >= b)[0]


def running_min(prng, queries, epsilon):
    """The index of the smallest noisy query, by a running minimum."""
    return records(queries, lambda: prng.laplace(scale=2.0 / epsilon), lambda v, b: v < b)[0]


def best_from_minus_infinity(prng, queries, epsilon):
    """The running best as it is usually written: from ``−∞``, which every value beats."""
    best, index = -float("inf"), 0
    for i, query in enumerate(queries):
        noisy = query + prng.laplace(scale=2.0 / epsilon)
        if noisy > best:
            best, index = noisy, i
    return index


def best_inside_a_call(prng, queries, epsilon):
    """The running best whose comparison is an argument of a call inside a list display: the
    value stack holds the list so far and the callee below the two operands."""
    best, index = None, None
    for i, query in enumerate(queries):
        value = query + prng.laplace(scale=2.0 / epsilon)
        if best is None or [i, bool(value > best)][1]:
            best, index = value, i
    return index


def best_comparing_again(prng, queries, epsilon):
    """The running best that also compares queries 0 and 1 again at every later query, to no
    effect: implied by a run's own constraints, that comparison needs a decision under merged
    ones, so a replay must take every earlier merge's constraints where the merge did."""
    noisy, best, index, count = [], None, None, 0
    for i, query in enumerate(queries):
        value = query + prng.laplace(scale=2.0 / epsilon)
        noisy.append(value)
        if best is None or value > best:
            best, index = value, i
        if i >= 2 and noisy[1] > noisy[0]:
            count += 0
    return index


def best_and_bucket(prng, queries, epsilon):
    """The running best's index, and whether the best noisy value exceeds 2."""
    index, best = records(queries, lambda: prng.laplace(scale=2.0 / epsilon),
                          lambda v, b: v > b)
    return index, bool(best > 2)


def best_and_first_record(prng, queries, epsilon):
    """The running best's index and whether query 1 was a record: two runs at query 3 with the
    same best (query 2's) differ only in an element of ``records``, and must not merge."""
    best, index, records = None, None, [False] * len(queries)
    for i, query in enumerate(queries):
        noisy = query + prng.laplace(scale=2.0 / epsilon)
        if best is None or noisy > best:
            best, index = noisy, i
            records[i] = True
    return index, records[1]


class Record:
    """A best value and its index, in an object of the program's own class."""

    def __init__(self):
        self.value, self.index = None, None


def best_in_an_object(prng, queries, epsilon):
    """The running best kept in a :class:`Record`: its state cannot be snapshotted."""
    record = Record()
    for i, query in enumerate(queries):
        noisy = query + prng.laplace(scale=2.0 / epsilon)
        if record.value is None or noisy > record.value:
            record.value, record.index = noisy, i
    return record.index


def best_by_builtin_max(prng, queries, epsilon):
    """Python's ``max`` of the indices by their noisy query: its comparisons run inside C code,
    whose state is not visible."""
    noisy = [query + prng.laplace(scale=2.0 / epsilon) for query in queries]
    return max(range(len(queries)), key=noisy.__getitem__)


LAPLACE_MAX = exactdp.mechanism("noisy_max_laplace", eps=EPS)


@pytest.mark.parametrize("function, catalogue, params, stars", [
    (running_best, LAPLACE_MAX, {}, True),
    (best_at_least, LAPLACE_MAX, {}, True),
    (best_from_minus_infinity, LAPLACE_MAX, {}, True),
    (best_inside_a_call, LAPLACE_MAX, {}, True),
    (best_comparing_again, LAPLACE_MAX, {}, False),
    (running_best_gaussian, exactdp.mechanism("noisy_max_gaussian", sigma=2), {"sigma": 2},
     True)])
def test_running_best_merges_while_tracing(function, catalogue, params, stars):
    """The exploration merges (a running best's paths end as one star per index) and each
    index has the catalogue's noisy max probability."""
    paths = explored(function, QUERIES, **params)
    assert paths is not None
    if stars:
        assert sorted(p.result for p in paths) == [(i,) for i in range(len(QUERIES))]
    mech = program(function, epsilon=EPS, **params)
    for index in range(len(QUERIES)):
        expected = exactdp.probability(catalogue, QUERIES, str(index), dps=20)
        assert_encloses(exactdp.probability(mech, QUERIES, str(index), dps=12),
                        expected.value, 12, slack=expected.error)


def test_running_min_is_noisy_max_of_the_negated_queries():
    """``argmin (q_i + η_i)`` is ``argmax (−q_i − η_i)``, and ``−η`` is ``Lap(2/ε)`` again."""
    assert explored(running_min, QUERIES) is not None
    catalogue = exactdp.mechanism("noisy_max_laplace", eps=EPS)
    negated = [-q for q in QUERIES]
    for index in range(len(QUERIES)):
        expected = exactdp.probability(catalogue, negated, str(index), dps=20)
        assert_encloses(exactdp.probability(program(running_min, epsilon=EPS), QUERIES,
                                            str(index), dps=12),
                        expected.value, 12, slack=expected.error)


def test_best_and_its_bucket_against_quadrature():
    """``Pr[index = i, best > 2] = ∫_{2−q_i}^∞ p(z) Π_{j≠i} F(z + q_i − q_j) dz`` and the
    complement below 2, by ``mpmath.quad`` split at the kinks."""
    queries = QUERIES[:5]
    assert explored(best_and_bucket, queries) is not None
    mech = program(best_and_bucket, epsilon=EPS)
    with mpmath.workdps(30):
        pdf, cdf = laplace()
        for index, query in enumerate(queries):
            def integrand(z, index=index, query=query):
                return pdf(z) * mpmath.fprod(cdf(z + query - other)
                                             for j, other in enumerate(queries) if j != index)
            kinks = sorted({0, 2 - query} | {other - query for other in queries})
            above = mpmath.quad(integrand, [k for k in kinks if k >= 2 - query] + [mpmath.inf])
            below = mpmath.quad(integrand, [-mpmath.inf] + [k for k in kinks if k <= 2 - query])
            for bucket, expected in (("T", above), ("F", below)):
                assert_encloses(exactdp.probability(mech, queries, f"{index},{bucket}", dps=15),
                                expected, 15, slack=mpmath.mpf(10) ** -20)


def test_states_differing_in_a_list_element_stay_apart():
    """With ``q_0 = q_1``, given the winner k ≥ 2 the pair (v0, v1) is exchangeable below it, so
    query 1 was a record with probability ½: ``Pr[k, T] = Pr[k, F] = ½ Pr[index = k]``, the
    catalogue's noisy max; k = 0 and k = 1 decide the record.  The runs at query 3 whose best is
    query 2's differ only in ``records[1]``: merged, both would report one of the two."""
    queries = [1, 1, 0, 2]
    paths = explored(best_and_first_record, queries)
    assert paths is not None and len({p.result for p in paths}) == 6
    mech = program(best_and_first_record, epsilon=EPS)
    catalogue = exactdp.mechanism("noisy_max_laplace", eps=EPS)
    whole = Fraction(1)
    for index, record, share in ((0, "F", whole), (1, "T", whole), (2, "T", Fraction(1, 2)),
                                 (2, "F", Fraction(1, 2)), (3, "T", Fraction(1, 2)),
                                 (3, "F", Fraction(1, 2))):
        expected = exactdp.probability(catalogue, queries, str(index), dps=30)
        with mpmath.workdps(40):
            reference = expected.value * share.numerator / share.denominator
        assert_encloses(exactdp.probability(mech, queries, f"{index},{record}", dps=20),
                        reference, 20, slack=expected.error)


@pytest.mark.parametrize("function", [best_in_an_object, best_by_builtin_max])
def test_an_unknown_state_is_traced_depth_first(function):
    """A state holding an instance of the program's own class, or a comparison made inside C
    code, is not snapshotted: the exploration gives up, and the depth-first trace gives report
    noisy max."""
    queries = QUERIES[:5]
    assert explored(function, queries) is None
    assert explored(running_best, queries) is not None
    catalogue = exactdp.mechanism("noisy_max_laplace", eps=EPS)
    mech = program(function, epsilon=EPS)
    for index in range(len(queries)):
        expected = exactdp.probability(catalogue, queries, str(index), dps=20)
        assert_encloses(exactdp.probability(mech, queries, str(index), dps=12),
                        expected.value, 12, slack=expected.error)


def test_three_of_four_cells_are_not_one_star():
    """The depth-first paths of the running best on 4 queries that return index 3 are the
    record sets {0, 3}, {0, 1, 3}, {0, 2, 3}, {0, 1, 2, 3}: together the star "query 3 beats
    every other"; without {0, 1, 2, 3} their union is not convex, and no set of them merges
    into one path."""
    mech = program(running_best, epsilon=EPS)
    paths = [p for p in trace(mech.func, [0, 1, 0, 2], mech.arguments) if p.result == (3,)]
    assert len(paths) == 4
    assert len(merge_group(paths)) == 1
    chain = [p for p in paths if len(p.intervals) == 3
             and all(len(key) == 2 and key[0][0] + 1 == key[1][0] for key in p.intervals)]
    assert len(chain) == 1   # η0 < η1 < η2 < η3
    assert len(merge_group([p for p in paths if p is not chain[0]])) > 1
