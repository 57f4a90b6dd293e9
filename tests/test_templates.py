"""One trace of a program for every input of a length (``programs/templates.py``).

References: the depth-first trace of each input on its own (``tracing.trace``, the paths a
template must reproduce), and closed forms — ``Pr[q_j + η_j ≥ 0 for j < i, q_i + η_i < 0] =
Π_{j<i} Φ(q_j/σ) · Φ(−q_i/σ)`` for independent Gaussian noises ``N(0, σ²)``, and Laplace's
``Pr[q + η > t] = S(t − q)`` with ``S(x) = ½e^{−x/b}`` for ``x ≥ 0``, ``1 − ½e^{x/b}`` below.
"""

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import exactdp
from exactdp.programs import exact, program, templates
from exactdp.programs.linear import discrete_laplace
from exactdp.programs.tracing import trace
from tests.conftest import assert_encloses
from tests.programs.compared_noises import running_best

EPS = Fraction(1, 2)
SIGMA = Fraction(1, 4)


def first_below(prng, queries, epsilon, sigma=SIGMA):
    """The first query whose noisy answer ``q + N(0, σ²)`` is below 0, one-hot (all 0: none)."""
    out = [0] * len(queries)
    for i, query in enumerate(queries):
        if query + prng.normal(scale=sigma) < 0:
            out[i] = 1
            break
    return tuple(out)


def above_noisy_threshold(prng, queries, epsilon):
    """Sparse Vector with cutoff 1: the first noisy answer above a noisy threshold."""
    threshold = 1 + prng.laplace(scale=2 / epsilon)
    for i, query in enumerate(queries):
        if query + prng.laplace(scale=4 / epsilon) >= threshold:
            return i
    return -1


def noisy_argmax(prng, queries, epsilon):
    return int(np.argmax(np.asarray(queries) + prng.laplace(scale=2 / epsilon,
                                                             size=len(queries))))


def threshold_by_sign(prng, queries, epsilon):
    """A threshold chosen by the sign of the first query (a guard), then one noisy query."""
    if queries[0] == 0:
        threshold = 0
    else:
        threshold = 1 if queries[0] > 0 else -1
    return queries[1] + prng.laplace(scale=1 / epsilon) > threshold


def through_float(prng, queries, epsilon):
    return float(queries[0]) + prng.laplace(scale=1 / epsilon) > 0


def discrete_against_query(prng, queries, epsilon):
    return queries[0] + discrete_laplace(prng, scale=2) > 0


def squared(prng, queries, epsilon):
    return queries[0] * queries[0] + prng.laplace(scale=1 / epsilon) > 0


def _paths_as_sets(paths):
    return {(frozenset(path.intervals.items()), path.result) for path in paths}


@pytest.fixture(autouse=True)
def fresh_store():
    """No template or traced input of another test is reused."""
    templates._known.clear()
    exact._cache.clear()
    yield
    templates._known.clear()
    exact._cache.clear()


@pytest.mark.parametrize("function, domain, length", [
    (first_below, (0, 1, 2), 3),
    (above_noisy_threshold, (0, 1, 2), 3),
])
def test_a_template_gives_each_inputs_own_paths(function, domain, length):
    template = templates.traced_template(function, (0,) * length, {"epsilon": EPS}, 1000,
                                         None, None)
    assert template is not None and not template.guards
    for d in itertools.product(domain, repeat=length):
        direct = trace(function, d, {"epsilon": EPS})
        assert _paths_as_sets(template.paths_at(d)) == _paths_as_sets(direct)


def _known():
    (known,) = templates._known.values()
    return known


def test_every_input_after_the_second_comes_from_the_template():
    mech = program(first_below, epsilon=EPS)
    for d in itertools.product((0, 1), repeat=4):
        output = [1 if k == 3 else 0 for k in range(4)]
        with mpmath.workdps(40):
            sigma = mpmath.mpf(SIGMA.numerator) / SIGMA.denominator
            reference = (mpmath.fprod(mpmath.ncdf(q / sigma) for q in d[:3])
                         * mpmath.ncdf(-d[3] / sigma))
        assert_encloses(exactdp.probability(mech, list(d), output, dps=20), reference, 20)
    known = _known()
    assert known.first_paths == 5 and len(known.templates) == 1 and not known.closed


def _laplace_above(query, threshold):
    """``Pr[q + Lap(1/ε) > t]``, closed form."""
    x, b = mpmath.mpf(threshold - query), EPS.denominator / mpmath.mpf(EPS.numerator)
    return mpmath.exp(-x / b) / 2 if x >= 0 else 1 - mpmath.exp(x / b) / 2


def test_inputs_whose_guards_differ_get_templates_of_their_own():
    mech = program(threshold_by_sign, epsilon=EPS)
    for d in itertools.product((-1, 0, 1), repeat=2):
        threshold = 0 if d[0] == 0 else (1 if d[0] > 0 else -1)
        with mpmath.workdps(40):
            reference = _laplace_above(d[1], threshold)
        assert_encloses(exactdp.probability(mech, list(d), [True], dps=20), reference, 20)
    # the signs of q0 at -1, 0 and 1, each from the second input with that sign on
    assert len(_known().templates) == 3


@pytest.mark.parametrize("function", [through_float, discrete_against_query, squared])
def test_a_query_used_otherwise_than_linearly_is_traced_input_by_input(function):
    assert templates.traced_template(function, (0,), {"epsilon": EPS}, 1000, None,
                                     None) is None
    mech = program(function, epsilon=EPS)
    for q in (0, 1, 2):
        exactdp.probability(mech, [q], [True], dps=10)
    known = _known()
    assert known.closed and not known.templates


def test_a_query_through_float_keeps_its_probability():
    mech = program(through_float, epsilon=EPS)
    for q in (-1, 0, 1):
        with mpmath.workdps(40):
            reference = _laplace_above(q, 0)
        assert_encloses(exactdp.probability(mech, [q], [True], dps=20), reference, 20)


def test_a_template_with_many_more_paths_than_the_merged_trace_is_not_built():
    # the running best's 2^(n−1) depth-first paths against the n of the merged exploration
    mech = program(running_best, epsilon=EPS)
    for d in ([0] * 8, [1] + [0] * 7, [0, 1] + [0] * 6):
        exactdp.probability(mech, d, 0, dps=10)
    known = _known()
    assert known.first_paths == 8 and known.closed and not known.templates


def test_noisy_argmax_from_a_template_matches_the_direct_trace():
    mech = program(noisy_argmax, epsilon=EPS)
    inputs = list(itertools.product((0, 1), repeat=3))
    from_templates = {d: [exactdp.probability(mech, list(d), k, dps=25) for k in range(3)]
                      for d in inputs}
    assert len(_known().templates) == 1
    for d in inputs:
        templates._known.clear()
        exact._cache.clear()
        for k, value in enumerate(from_templates[d]):
            direct = exactdp.probability(mech, list(d), k, dps=25)
            assert abs(value.value - direct.value) <= mpmath.mpf(10) ** -24 * direct.value


def test_a_released_query_is_substituted():
    def released(prng, queries, epsilon):
        return queries[1] - queries[0] + prng.laplace(scale=1 / epsilon)

    template = templates.traced_template(released, (0, 0), {"epsilon": EPS}, 1000, None, None)
    (path,) = template.paths_at((2, 5))
    (entry,) = path.result
    assert entry.const == 3 and list(entry.coeffs) == [0]


def test_inputs_agreeing_on_the_queries_a_path_reads_share_it():
    mech = program(first_below, epsilon=EPS)
    exact.traced_paths(mech, [0, 0, 0])                       # traced directly
    first, second, third = ([path for path in exact.traced_paths(mech, d)
                             if path.result[0] == 1][0] for d in ([0, 1, 1], [0, 0, 1], [1, 0, 0]))
    assert first is second and first is not third            # the path reads the first query
    assert exact.kept_terms(first) is exact.kept_terms(second)
