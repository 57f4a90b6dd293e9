"""Arrays of noisy values in traced programs: an array built from a list of noisy scalars is the
same noisy vector to the tracer as one drawn with ``size=`` (its argmax one event, the numpy
functions it computes exactly the same paths), and a return value that boolean masking leaves
empty is refused naming the masking line."""

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.programs import program
from exactdp.programs.exact import traced_paths

from .conftest import assert_encloses

EPS = Fraction(7, 10)
#: numpy's own entry points, as imported (no trace is running).
NUMPY_ENTRY_POINTS = (np.array, np.asarray, np.argmax)


def drawn_with_size(prng, queries, epsilon):
    noisy = np.asarray(queries) + prng.laplace(scale=2 / epsilon, size=len(queries))
    return noisy.argmax()


def built_from_a_list(prng, queries, epsilon):
    noisy = np.array([q + prng.laplace(scale=2 / epsilon) for q in queries])
    return noisy.argmax()


def built_with_asarray(prng, queries, epsilon):
    return np.asarray([q + prng.laplace(scale=2 / epsilon) for q in queries]).argmax()


def argmax_of_a_list(prng, queries, epsilon):
    return np.argmax([q + prng.laplace(scale=2 / epsilon) for q in queries])


def copied_noisy_array(prng, queries, epsilon):
    return np.array(drawn_noises(prng, queries, epsilon)).argmax()


def drawn_noises(prng, queries, epsilon):
    return np.asarray(queries) + prng.laplace(scale=2 / epsilon, size=len(queries))


def max_of_a_list_built_array(prng, queries, epsilon):
    return np.array([q + prng.laplace(scale=2 / epsilon) for q in queries]).max()


def max_drawn_with_size(prng, queries, epsilon):
    return drawn_noises(prng, queries, epsilon).max()


def _queries(n: int) -> list[int]:
    """Answers that differ, 0, 1, 0, 1, …: the indices are not all equally likely."""
    return [i % 2 for i in range(n)]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_list_built_noisy_max_is_the_size_form(n):
    """The list-built argmax is traced as the ``size=`` one: one path per winner (numpy's
    pairwise scan of an object array would give 2^{n−1} chains, refused from n = 4), identical
    enclosures, and the catalogue's closed form of Report Noisy Max (an independent mpmath
    expansion) inside them."""
    queries = _queries(n)
    size_form = program(drawn_with_size, epsilon=EPS)
    declared = exactdp.mechanism("noisy_max_laplace", eps=EPS)
    for function in (built_from_a_list, built_with_asarray, argmax_of_a_list,
                     copied_noisy_array):
        list_form = program(function, epsilon=EPS)
        assert len(traced_paths(list_form, queries)) == n, function.__name__
        for index in range(n):
            ours = exactdp.probability(list_form, queries, str(index), dps=30)
            theirs = exactdp.probability(size_form, queries, str(index), dps=30)
            assert (ours.lower, ours.upper) == (theirs.lower, theirs.upper), \
                (function.__name__, index)
            closed = exactdp.probability(declared, queries, str(index), dps=30,
                                         method="closed")
            with mpmath.workdps(80):
                assert ours.lower - closed.error <= closed.value <= ours.upper + closed.error


@pytest.mark.parametrize("n", [4, 6])
def test_list_built_noisy_max_value_is_the_size_form(n):
    """``.max()`` of the list-built array releases the largest noisy value (a density), as
    the ``size=`` program does."""
    queries = _queries(n)
    list_form = program(max_of_a_list_built_array, epsilon=EPS)
    size_form = program(max_drawn_with_size, epsilon=EPS)
    for value in ("-1", "0.5", "2.25"):
        ours = exactdp.probability(list_form, queries, value, dps=30)
        theirs = exactdp.probability(size_form, queries, value, dps=30)
        assert (ours.lower, ours.upper) == (theirs.lower, theirs.upper), value


def constant_array(prng, queries, epsilon):
    """No noise in the array: numpy's own array, its argmax a plain number."""
    values = np.array([2 * q for q in queries])
    return type(values) is np.ndarray, int(values.argmax()), prng.laplace(scale=1) > 0


def test_array_without_noises_stays_numpy():
    """Only arrays holding noises change type, and numpy's entry points are its own again after
    the trace."""
    paths = traced_paths(program(constant_array, epsilon=EPS), [0, 3, 1])
    assert sorted(path.result for path in paths) == [(True, 1, False), (True, 1, True)]
    assert (np.array, np.asarray, np.argmax) == NUMPY_ENTRY_POINTS


# ----------------------------------------------------------------------------- numpy's functions

def _laplace_cdf(x) -> mpmath.mpf:
    """CDF of Lap(1): ½e^x below 0, 1 − ½e^{−x} above."""
    return mpmath.exp(x) / 2 if x < 0 else 1 - mpmath.exp(-x) / 2


def _laplace_density(x) -> mpmath.mpf:
    """Density of Lap(1): ½e^{−|x|}."""
    return mpmath.exp(-abs(x)) / 2


def _noisy(prng, queries, from_list: bool):
    """``q_i + Lap(1)``, built from a list or drawn with ``size=``."""
    if from_list:
        return np.array([q + prng.laplace(scale=1) for q in queries])
    return np.asarray(queries) + prng.laplace(scale=1, size=len(queries))


def mean_above_zero(prng, queries, epsilon, from_list):
    return _noisy(prng, queries, from_list).mean() > 0


def numpy_mean_above_zero(prng, queries, epsilon, from_list):
    return np.mean(_noisy(prng, queries, from_list)) > 0


def weighted_sum_above_zero(prng, queries, epsilon, from_list):
    return np.dot([1, 2], _noisy(prng, queries, from_list)) > 0


def sum_along_axis_above_zero(prng, queries, epsilon, from_list):
    return _noisy(prng, queries, from_list).sum(axis=0) > 0


def running_sums_above_zero(prng, queries, epsilon, from_list):
    return list(np.cumsum(_noisy(prng, queries, from_list)) > 0)


def any_and_all_positive(prng, queries, epsilon, from_list):
    positive = _noisy(prng, queries, from_list) > 0
    return bool(positive.any()), bool(np.all(positive))


def positive_count(prng, queries, epsilon, from_list):
    return np.count_nonzero(_noisy(prng, queries, from_list) > 0)


@pytest.mark.parametrize("function", [
    mean_above_zero, numpy_mean_above_zero, weighted_sum_above_zero, sum_along_axis_above_zero,
    running_sums_above_zero, any_and_all_positive, positive_count])
def test_sums_and_truth_values_of_noisy_arrays(function):
    """What numpy's object array of a list-built vector computes exactly (sums, means, dot
    products, truth values of comparisons) is traced on the ``size=`` vector too, into the same
    paths."""
    paths = {}
    for from_list in (True, False):
        mech = program(function, epsilon=1, from_list=from_list)
        paths[from_list] = [(path.intervals, path.result)
                            for path in traced_paths(mech, [0, 1])]
    assert paths[True] == paths[False]


def test_count_of_positive_noisy_answers_is_exact():
    """``np.count_nonzero(noisy > 0)`` on ``q + Lap(1)``, q = (0, 1, 0): a Poisson-binomial law
    of the independent ``Pr[q_i + η_i > 0] = 1 − F(−q_i)`` (F the Laplace CDF)."""
    queries = [0, 1, 0]
    with mpmath.workdps(60):
        above = [1 - _laplace_cdf(-q) for q in queries]
        references = [mpmath.mpf(0)] * 4
        for pattern in itertools.product((False, True), repeat=3):
            weight = mpmath.fprod(a if bit else 1 - a for a, bit in zip(above, pattern))
            references[sum(pattern)] += weight
    for from_list in (True, False):
        mech = program(positive_count, epsilon=1, from_list=from_list)
        for count, reference in enumerate(references):
            assert_encloses(exactdp.probability(mech, queries, str(count), dps=30),
                            reference, 29)


def maximum_with_initial(prng, queries, epsilon, from_list):
    return np.max(_noisy(prng, queries, from_list), initial=100) > 50


def test_max_with_initial_is_refused():
    """``initial=100`` makes the maximum at least 100: ignoring it would trace ``False``
    outputs that have probability 0."""
    for from_list in (True, False):
        mech = program(maximum_with_initial, epsilon=1, from_list=from_list)
        with pytest.raises(InputError, match=r"cannot trace max/min with initial on noises "
                                             r"\(at test_traced_arrays\.py:\d+: return np\.max"):
            traced_paths(mech, [0, 1])


# ----------------------------------------------------------------------------- boolean masking

def masked(prng, queries, epsilon):
    noisy = np.asarray(queries) + prng.laplace(scale=1 / epsilon, size=len(queries))
    return noisy[noisy > 0]


def masked_with_count(prng, queries, epsilon):
    noisy = np.asarray(queries) + prng.laplace(scale=1 / epsilon, size=len(queries))
    kept = noisy[noisy > 0]
    return [len(kept), *kept]


def test_an_output_masking_leaves_empty_names_the_masking_line():
    with pytest.raises(InputError, match=r"the program returned no value: the indexing at "
                                         r"test_traced_arrays\.py:\d+: return noisy\[noisy > 0\] "
                                         r"kept no entry") as error:
        traced_paths(program(masked, epsilon=EPS), [0, 1])
    assert "\n" not in str(error.value)


def test_cli_refuses_an_output_masking_leaves_empty_in_one_line(tmp_path, capsys):
    source = tmp_path / "masking.py"
    source.write_text("import numpy as np\n\n\n"
                      "def masked(prng, queries, epsilon):\n"
                      "    noisy = np.array([q + prng.laplace(scale=1 / epsilon) "
                      "for q in queries])\n"
                      "    return noisy[noisy > 0]\n")
    code = main(["prob", f"{source}:masked", "--param", "epsilon=1", "--queries", "0,1",
                 "--output", "0.5"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert "\n" not in err
    assert "masking.py:6: return noisy[noisy > 0] kept no entry" in err


def test_masking_that_leaves_an_entry_is_exact():
    """Masking itself is traced exactly: with ε = 1 (Lap(1)) and queries (0, 1), the count of
    positive noisy answers and those answers have the closed forms of independent noises."""
    mech = program(masked_with_count, epsilon=1)
    with mpmath.workdps(60):
        half, quarter = mpmath.mpf(1) / 2, mpmath.mpf(1) / 4
        references = {
            "0": _laplace_cdf(0) * _laplace_cdf(-1),
            "1,0.5": _laplace_density(half) * _laplace_cdf(-1)
            + _laplace_density(half - 1) * _laplace_cdf(0),
            "2,0.5,0.25": _laplace_density(half) * _laplace_density(quarter - 1),
        }
    for output, reference in references.items():
        assert_encloses(exactdp.probability(mech, [0, 1], output, dps=30), reference, 29)
