"""Whole-domain verdicts (``exactdp.verify.verify`` and ``exactdp verify``) and the float64
pair bounds beneath them (``exact/divergences/pair_bounds.py``).

References are independent of the bulk path under test: a brute-force loop over every ordered
neighbouring pair with ``privacy_profile`` / ``renyi_divergence`` (each pair computed on its
own, from scratch), the mechanism's own ``neighbour_violation`` called on every pair, and exact
rational arithmetic on the float ends the bounds start from.
"""

import itertools
import json
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.exact.divergences.output_pairs import (FormCollector, certified_result,
                                                     known_results, output_probabilities)
from exactdp.exact.form.threshold_rules import FORMS_SHARED_FROM
from exactdp.exact.divergences.pair_bounds import Comparison, float_ends
from exactdp.exact.divergences.profile import SCREEN_DIGITS
from exactdp.sequences import Runs
from exactdp.verify import (MAX_INPUTS, _collected_forms, _input_ends, _Layout,
                            _Neighbours, verify)
from .conftest import _rational, assert_encloses


def _brute_force(mech, values, length, measure):
    """The largest ``measure(d1, d2)`` (an Enclosure) over every ordered neighbouring pair,
    one pair at a time, and its pair."""
    inputs = list(itertools.product(values, repeat=length))
    best = None
    for d1, d2 in itertools.permutations(inputs, 2):
        if mech.neighbour_violation(Runs.from_items(d1), Runs.from_items(d2)) is not None:
            continue
        value = measure(list(d1), list(d2))
        if best is None or value.value > best[0].value:
            best = (value, d1, d2)
    return best


def _spelled(d):
    return ",".join(str(value) for value in d)


@pytest.mark.parametrize("name, params, values, length", [
    ("noisy_max_gaussian", {"sigma": 2}, (0, 1), 2),
    ("svt_gaussian", {"sigma1": 2, "sigma2": 4}, (0, 1), 2),
    ("svt1", {"eps": 1}, (0, 1, 2), 2),
])
def test_delta_verdict_matches_a_brute_force_loop_over_pairs(name, params, values, length):
    mech = exactdp.mechanism(name, **params)
    eps = Fraction(1, 4)
    best, d1, d2 = _brute_force(mech, values, length, lambda a, b: exactdp.privacy_profile(
        mech, a, b, [eps], 15)[0].delta)
    largest = _rational(best.value)
    assert largest > 0
    below = verify(mech, ",".join(map(str, values)), length, eps=eps, delta=largest * 0.99,
                   dps=15)
    assert not below.private
    assert_encloses(below.value, largest, 15)
    above = verify(mech, list(values), length, eps=eps, delta=largest * 1.01, dps=15)
    assert above.private and above.certified == 1
    assert_encloses(above.value, largest, 15)
    assert {(above.d1.expand()[k], above.d2.expand()[k]) for k in range(length)} \
        <= set(itertools.product(values, repeat=2))
    inputs = len(values) ** length
    assert above.pairs == sum(1 for a, b in itertools.permutations(
        itertools.product(values, repeat=length), 2)
        if mech.neighbour_violation(Runs.from_items(a), Runs.from_items(b)) is None)
    assert above.inputs == inputs


def test_renyi_verdicts_match_a_brute_force_loop_over_pairs():
    mech = exactdp.mechanism("noisy_max_gaussian", sigma=2)
    alphas = [Fraction(3, 2), Fraction(4), math.inf]
    inputs = list(itertools.product((0, 1, 2), repeat=2))
    largest = [max(_rational(point.divergence.value) for point in points)
               for points in zip(*(exactdp.renyi_divergence(mech, list(d1), list(d2), alphas, 15)
                                   for d1, d2 in itertools.permutations(inputs, 2)
                                   if mech.neighbour_violation(Runs.from_items(d1),
                                                               Runs.from_items(d2)) is None))]
    assert math.isfinite(largest[2])  # Gaussian noisy max's index: the log ratio is bounded
    for alpha, value in zip(["3/2", 4, "inf"], largest):
        below = verify(mech, "0,1,2", 2, alpha=alpha, bound=value * Fraction(99, 100), dps=15)
        above = verify(mech, "0,1,2", 2, alpha=alpha, bound=value * Fraction(101, 100), dps=15)
        assert (below.private, above.private) == (False, True)
        for verdict in (below, above):
            assert_encloses(verdict.value, value, 15)


def test_a_mechanism_the_catalogue_marks_not_private_is_refuted_with_a_certified_pair():
    # Lyu, Su & Li's Alg. 5 (svt5, no query noise) claims ε but is not ε-DP for any ε
    # (catalogue: "not private"); pure ε-DP is δ = 0
    mech = exactdp.mechanism("svt5", eps=1)
    verdict = verify(mech, "0,1", 3, eps=1)
    assert not verdict.private
    assert verdict.value.lower > 0
    # the witness pair on its own, by the per-pair functional
    reference = exactdp.privacy_profile(mech, verdict.d1, verdict.d2, [1], 30)[0].delta
    assert_encloses(verdict.value, _rational(reference.value), 25)
    assert mech.neighbour_violation(verdict.d1, verdict.d2) is None


def test_a_private_mechanism_is_proven_private_just_above_its_budget():
    # svt1 with c = 1 is ε-DP (Lyu, Su & Li, Theorem 2): δ(ε) = 0 on every pair, proven
    # exactly where the float bounds cannot (equality at the tight pairs)
    verdict = verify(exactdp.mechanism("svt1", eps=1), "0,1", 3, eps="1.01")
    assert verdict.private and verdict.value.upper == 0


def test_a_domain_of_zero_deltas_is_compared_from_the_screens_digits():
    # every pair's δ exactly 0 with probabilities to SCREEN_DIGITS digits: nothing more is
    # computed; a positive δ compares the domain again with more digits
    mech = exactdp.mechanism("svt1", eps=1)
    verdict = verify(mech, "0,1", 2, eps="1.01", dps=12)
    assert verdict.private and verdict.value.upper == 0
    assert f"(certified, {SCREEN_DIGITS} digits)" in verdict.method
    refuted = verify(mech, "0,1", 2, eps="0.1", dps=12)
    assert not refuted.private and f"(certified, {SCREEN_DIGITS} digits)" not in refuted.method


def test_neighbours_agree_with_the_mechanisms_own_check_on_every_pair():
    values = [Fraction(-1), Fraction(0), Fraction(2)]
    inputs = list(itertools.product(values, repeat=3))
    for mech in (exactdp.mechanism("svt1"), exactdp.mechanism("histogram")):
        mask = _Neighbours(mech, values, inputs, False).rows(0, len(inputs))
        for i, j in itertools.product(range(len(inputs)), repeat=2):
            expected = i != j and mech.neighbour_violation(
                Runs.from_items(inputs[i]), Runs.from_items(inputs[j])) is None
            assert mask[i, j] == expected, (inputs[i], inputs[j])
    assert _Neighbours(mech, values, inputs, True).rows(0, 4).sum() == 4 * (len(inputs) - 1)


def test_any_pair_compares_every_ordered_pair_of_distinct_inputs():
    mech = exactdp.mechanism("noisy_max_gaussian", sigma=2)
    assert verify(mech, "0,3", 2, eps=1, delta="0.5", allow_any_pair=True).pairs == 12
    with pytest.raises(InputError, match="no two distinct inputs"):
        verify(mech, "0,3", 2, eps=1, delta="0.5")


def test_same_verdict_with_one_and_two_workers():
    mech = exactdp.mechanism("svt_gaussian", sigma1=2, sigma2=4)
    one, two = (verify(mech, "0,1", 3, eps="0.5", delta="0.001", dps=12, jobs=jobs)
                for jobs in (1, 2))
    assert one == two


def test_every_bound_is_the_same_bit_for_bit_with_one_and_two_workers():
    # the float ends of every output on every input, from 2 tasks collecting forms and 9
    # evaluating the (5 + 1)² = 36 distinct forms split between two workers, against one
    # process
    mech = exactdp.mechanism("svt_gaussian", sigma1=4, sigma2=8)
    inputs = list(itertools.product((Fraction(0), Fraction(1)), repeat=5))
    comparison = Comparison.of(eps=Fraction(1, 2), delta=Fraction(1, 100))
    one, two = (_input_ends(mech, inputs, comparison, _Layout.of(_collected_forms(
        mech, inputs, comparison, jobs, False, 20), comparison), 20, jobs, False)
        for jobs in (1, 2))
    assert one[2] == two[2] == 6
    for ends_one, ends_two in zip([*one[0], *one[1]], [*two[0], *two[1]]):
        assert np.array_equal(ends_one, ends_two)


def test_each_distinct_integral_form_of_the_domain_is_collected_once():
    # Sparse Vector with cutoff 1 on {0,1}^n: the form of ⊥^k ⊤ depends on how many of the first
    # k answers are 0 and on the (k+1)-th answer, that of ⊥^n on how many answers are 0 (the
    # form groups equal factors into powers): Σ_k 2(k + 1) + (n + 1) = (n + 1)² forms
    mech = exactdp.mechanism("svt_gaussian", sigma1=4, sigma2=8)
    collector = FormCollector(FORMS_SHARED_FROM)
    for d in itertools.product((Fraction(0), Fraction(1)), repeat=4):
        positions = output_probabilities(mech, Runs.from_items(d), 20, collector)
        assert len(positions) == 5 and all(isinstance(p, int) for p in positions.values())
    assert len(collector.forms) == 25
    # on a domain of fewer inputs each input's outputs are evaluated at once (balls), none
    # collected
    small = FormCollector(FORMS_SHARED_FROM - 1)
    balls = output_probabilities(mech, Runs.from_items([0, 1, 0, 1]), 20, small)
    assert len(balls) == 5 and not any(isinstance(p, int) for p in balls.values())
    assert small.forms == []


def test_a_certification_takes_the_forms_certified_already():
    # within known_results a form certified to 22 digits is taken from there when 22 or fewer
    # are asked for (the very object), and evaluated anew when more are
    mech = exactdp.mechanism("svt_gaussian", sigma1=4, sigma2=8)
    collector = FormCollector(FORMS_SHARED_FROM)
    output_probabilities(mech, Runs.from_items([0, 1]), 22, collector)
    (form, evaluator), = collector.forms[:1]
    known = certified_result(form, evaluator, 22, mech.name)
    with known_results({form: known}, 22):
        assert certified_result(form, evaluator, 12, mech.name) is known
        assert certified_result(form, evaluator, 22, mech.name) is known
        deeper = certified_result(form, evaluator, 30, mech.name)
    assert deeper is not known and max(deeper.lower, known.lower) <= min(deeper.upper,
                                                                         known.upper)
    assert deeper.upper - deeper.lower < known.upper - known.lower
    assert certified_result(form, evaluator, 12, mech.name) is not known


def test_same_verdict_on_a_dask_cluster(capsys):
    distributed = pytest.importorskip("distributed")
    argv = ["verify", "noisy_max_gaussian", "--values", "0,1", "--length", "3", "--eps", "0.5",
            "--delta", "0.01", "--dps", "12", "--json"]
    assert main(argv) == 0
    local = capsys.readouterr().out
    # two threads in one worker: the computations set FLINT's and mpmath's precision, which are
    # process-wide, so the tasks of one process run one at a time (cluster.OneAtATime)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  host="127.0.0.1", protocol="tcp",
                                  dashboard_address=None) as cluster:
        assert main([*argv, "--scheduler", cluster.scheduler_address]) == 0
    assert capsys.readouterr().out == local


def test_float_ends_enclose_the_ball():
    third = arb(1) / 3
    lo, hi = float_ends(third)
    assert Fraction(lo) < Fraction(1, 3) < Fraction(hi)
    assert float_ends(arb(0)) == (0.0, 0.0) and float_ends(arb("0.5")) == (0.5, 0.5)
    tiny = arb("1e-400")
    assert float_ends(tiny) == (0.0, 5e-324)
    assert float_ends(arb("inf")) == (math.inf, math.inf)
    huge = arb(2) ** 3000  # exact, beyond the largest float: not +inf below
    assert float_ends(huge) == (np.finfo(float).max, math.inf)
    assert float_ends(arb(1, 2).log()) == (-math.inf, math.inf)  # log of a ball holding 0


@pytest.mark.parametrize("kind, alpha", [("delta", None), ("renyi", Fraction(3, 2)),
                                         ("renyi", Fraction(4)), ("max", None)])
def test_pair_bounds_enclose_the_exact_sum_of_their_float_ends(kind, alpha):
    # exact rational arithmetic on the float ends the bounds start from: the computed bounds
    # must hold it (each float operation moved one float outward)
    rng = np.random.default_rng(7)
    inputs, outputs = 6, 5
    p = rng.dirichlet(np.ones(outputs) * 0.3, size=inputs)
    p[0, 1] = 0.0  # an exact zero
    p[2, :2] = (1e-310, 1e-200)  # subnormal; p^(1 − α) beyond the largest float at α = 4
    comparison = Comparison(kind, alpha or Fraction(1, 3), Fraction(0))
    ends = np.array([[[end for part in comparison.row_and_column(arb(value))
                       for end in float_ends(part)] for value in row] for row in p])
    rows, columns = (ends[..., 0], ends[..., 1]), (ends[..., 2], ends[..., 3])
    factor = float_ends((arb(1) / 3).exp())  # e^ε at ε = 1/3
    upper, lower = comparison.bounds(rows, columns, factor)
    for i, j in itertools.product(range(inputs), repeat=2):
        if kind == "delta":
            exact = sum(max(Fraction(0), Fraction(rows[1][i, k]) - Fraction(factor[0])
                            * Fraction(columns[0][j, k])) for k in range(outputs))
            floor = sum(max(Fraction(0), Fraction(rows[0][i, k]) - Fraction(factor[1])
                            * Fraction(columns[1][j, k])) for k in range(outputs))
        elif kind == "renyi":
            terms = [(k, Fraction(rows[1][i, k]), columns[1][j, k]) for k in range(outputs)
                     if rows[1][i, k] > 0]
            if any(math.isinf(c) for _, _, c in terms):
                assert upper[i, j] == math.inf
                continue
            exact = sum(r * Fraction(c) for _, r, c in terms)
            floor = sum(Fraction(rows[0][i, k]) * Fraction(columns[0][j, k])
                        for k in range(outputs) if rows[0][i, k] > 0)
        else:
            finite = [k for k in range(outputs) if rows[1][i, k] > -math.inf]
            if any(columns[0][j, k] == -math.inf for k in finite):
                assert upper[i, j] == math.inf
                continue
            exact = max(Fraction(rows[1][i, k]) - Fraction(columns[0][j, k]) for k in finite)
            floor = max(Fraction(rows[0][i, k]) - Fraction(columns[1][j, k]) for k in finite)
        assert Fraction(lower[i, j]) <= floor and exact <= Fraction(upper[i, j]), (i, j)


def test_domain_too_large_is_refused_up_front_with_its_size():
    with pytest.raises(InputError, match="8,192 inputs"):
        verify(exactdp.mechanism("svt1"), "0,1", 13, eps=1)
    assert 2 ** 12 <= MAX_INPUTS < 2 ** 13


def test_cli_json_keys(capsys):
    assert main(["verify", "noisy_max_gaussian", "--param", "sigma=2", "--values", "0,1",
                 "--length", "2", "--eps", "0.5", "--delta", "0.01", "--dps", "12",
                 "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert set(record) == {"verdict", "pairs", "worst", "certified_pairs", "inputs", "outputs",
                           "method"}
    assert set(record["worst"]) == {"d1", "d2", "delta", "delta_lower", "delta_upper"}
    assert record["verdict"] == "not private" and record["pairs"] == 12
    assert float(record["worst"]["delta_lower"]) <= float(record["worst"]["delta"]) \
        <= float(record["worst"]["delta_upper"])


def test_cli_alpha_json_says_divergence_and_the_table_prints(capsys):
    argv = ["verify", "noisy_max_gaussian", "--values", "0,1", "--length", "2",
            "--alpha", "2", "--bound", "1"]
    assert main([*argv, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["verdict"] == "private"
    assert set(record["worst"]) == {"d1", "d2", "divergence", "divergence_lower",
                                    "divergence_upper"}
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert "D_α ≤ 1 at α = 2" in table and "verdict          private" in table


@pytest.mark.parametrize("argv, message", [
    (["--eps", "1", "--delta", "1"], "delta must be at least 0 and below 1, got delta=1"),
    (["--eps", "1", "--delta", "-0.5"], "delta=-0.5"),
    (["--alpha", "2", "--bound", "-1"], "bound must be at least 0, got bound=-1"),
    (["--alpha", "1", "--bound", "1"], "alpha must be greater than 1"),
    (["--alpha", "2"], "--alpha A with --bound B"),
    (["--eps", "1", "--alpha", "2", "--bound", "1"], "exclude each other"),
    (["--eps", "-1"], "eps must be at least 0"),
    (["--eps", "1", "--length", "13"], "{0,1}^13 has 8,192 inputs (67,100,672 ordered pairs)"),
    (["--eps", "1", "--values", "0,0"], "the values must be distinct"),
    (["--eps", "1", "--length", "0"], "--length must be a positive integer"),
])
def test_cli_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    base = {"--values": "0,1", "--length": "2"}
    for option in ("--values", "--length"):
        if option not in argv:
            argv = [*argv, option, base[option]]
    try:
        code = main(["verify", "svt1", *argv])
    except SystemExit as stop:  # argparse's own usage errors
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_refuses_a_mechanism_that_releases_numbers(capsys):
    assert main(["verify", "histogram", "--values", "0,1", "--length", "2", "--eps", "1"]) == 2
    assert "releases numbers" in capsys.readouterr().err


def test_pairs_the_float_bounds_leave_open_are_certified_one_by_one():
    # the certification step on its own: straddling pairs (here every pair but the worst, as
    # if the float bounds had not decided them) are each certified, the worst once
    from exactdp.verify import MAX_STRADDLING, _Bulk, _certify

    mech = exactdp.mechanism("noisy_max_gaussian", sigma=2)
    inputs = list(itertools.product((Fraction(0), Fraction(1)), repeat=2))
    comparison = Comparison("delta", Fraction(1, 2), Fraction(1, 2))
    pairs = list(itertools.permutations(range(4), 2))
    bulk = _Bulk(pairs=12, worst=pairs[0], straddling=pairs, straddling_count=12)
    private, witness, value, certified = _certify(mech, comparison, inputs, bulk, 12, False)
    assert (private, witness, certified) == (True, pairs[0], 12)
    reference = exactdp.privacy_profile(mech, list(inputs[0]), list(inputs[1]), ["1/2"],
                                        20)[0].delta
    assert_encloses(value, _rational(reference.value), 12)
    bulk.straddling_count = MAX_STRADDLING + 1
    with pytest.raises(exactdp.errors.PrecisionError, match=f"of {MAX_STRADDLING + 1:,} pairs"):
        _certify(mech, comparison, inputs, bulk, 12, False)


def laplace_signs(prng, queries, b=1):
    """The sign of each answer plus its own Laplace noise."""
    return tuple(query + prng.laplace(scale=b) > 0 for query in queries)


def _signs_delta(d1, d2, eps, b):
    """``δ(ε)`` of :func:`laplace_signs`, summed over its ``2^N`` outputs in mpmath:
    ``P[q + η > 0] = 1 − e^{−q/b}/2`` for ``q ≥ 0`` (the Laplace survival function)."""
    def exact(number):
        return mpmath.mpf(Fraction(number).numerator) / Fraction(number).denominator

    with mpmath.workdps(40):
        def up(q):
            return 1 - mpmath.exp(-exact(q) / b) / 2

        def probability(d, out):
            return mpmath.fprod(up(q) if bit else 1 - up(q) for q, bit in zip(d, out))

        factor = mpmath.exp(exact(eps))
        return mpmath.fsum(max(0, probability(d1, out) - factor * probability(d2, out))
                           for out in itertools.product((False, True), repeat=len(d1)))


def test_a_violation_the_screen_proves_reads_the_full_digits_of_the_worst_pairs_inputs(
        monkeypatch):
    # δ = 0.01 at ε = 1/4 is far below the worst pair's δ: the screen's digits prove the
    # violation, and only the inputs of the pairs that may be the worst are evaluated to the
    # full digits; the verdict is the one of the whole domain compared at the full digits, and
    # its δ the brute-force maximum over every pair
    import exactdp.verify as verify_module
    mech = exactdp.program(laplace_signs, b=2)
    inputs = list(itertools.product((0, 1), repeat=3))
    reference = max(_signs_delta(d1, d2, Fraction(1, 4), 2)
                    for d1, d2 in itertools.permutations(inputs, 2))
    read, input_ends = [], verify_module._input_ends

    def spied(*args):
        read.append(len(inputs) if len(args) < 8 else len(args[7]))
        return input_ends(*args)

    monkeypatch.setattr(verify_module, "_input_ends", spied)
    fast = verify(mech, "0,1", 3, eps="0.25", delta="0.01", dps=15)
    assert not fast.private and read[0] == 8 and read[1] < 8
    assert_encloses(fast.value, _rational(reference), 15)
    assert _signs_delta(fast.d1.expand(), fast.d2.expand(), Fraction(1, 4), 2) == reference
    monkeypatch.setattr(verify_module, "_proven_violation", lambda *args: None)
    read.clear()
    whole = verify(mech, "0,1", 3, eps="0.25", delta="0.01", dps=15)
    assert read == [8, 8] and whole == fast


def test_a_pair_whose_forms_are_known_to_its_digits_is_enumerated_once(monkeypatch):
    # within known_results to the digits asked (verify certifying its worst pair)
    # privacy_profile does not screen at SCREEN_DIGITS first, which would read the very results:
    # each input's outputs are enumerated once; without them, twice (δ > 0: 3 digits, then 25);
    # δ(ε) is the brute force's either way
    import exactdp.exact.divergences.output_pairs as output_pairs_module
    mech = exactdp.program(laplace_signs, b=2)
    d1, d2 = (1, 1, 1), (0, 0, 0)
    collector = FormCollector(8)
    for d in (d1, d2):
        output_probabilities(mech, Runs.from_items(d), 25, collector)
    known = {form: certified_result(form, evaluator, 25, mech.name)
             for form, evaluator in collector.forms}
    reference = _rational(_signs_delta(d1, d2, Fraction(1, 4), 2))
    calls, enumerate_outputs = [], output_pairs_module.output_probabilities

    def counted(mech, d, dps, collector=None):
        calls.append(dps)
        return enumerate_outputs(mech, d, dps, collector)

    monkeypatch.setattr(output_pairs_module, "output_probabilities", counted)
    with known_results(known, 25):
        assert_encloses(exactdp.privacy_profile(mech, d1, d2, ["0.25"], 15)[0].delta,
                        reference, 15)
    assert calls == [25, 25]
    calls.clear()
    assert_encloses(exactdp.privacy_profile(mech, d1, d2, ["0.25"], 15)[0].delta, reference, 15)
    assert calls == [SCREEN_DIGITS, SCREEN_DIGITS, 25, 25]
