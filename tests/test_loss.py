"""privacy_loss and max_privacy_loss."""

import dataclasses
import random
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.errors import InputError


def test_neighbours_are_required_by_default():
    mech = exactdp.mechanism("svt1")
    with pytest.raises(InputError, match="not neighbours: query 2 differs by 2 > sensitivity 1"):
        exactdp.privacy_loss(mech, [0, 0], [0, 2], "F,F")
    loss = exactdp.privacy_loss(mech, [0, 0], [0, 2], "F,F", allow_any_pair=True)
    assert loss.log_ratio > 0
    with pytest.raises(InputError, match="same length"):
        exactdp.privacy_loss(mech, [0, 0], [0], "F,F")


def test_monotone_neighbours_move_one_way():
    mech = exactdp.mechanism("svt7", monotone=True, c=2)
    with pytest.raises(InputError, match="monotone"):
        exactdp.privacy_loss(mech, [0, 1], [1, 0], "F,T")
    assert exactdp.privacy_loss(mech, [0, 0], [1, 1], "F,T").p1.value > 0


def test_sensitivity_widens_the_neighbourhood():
    mech = exactdp.mechanism("svt1", sensitivity=2)
    assert exactdp.privacy_loss(mech, [0], [2], "F").p1.value > 0


def test_both_sides_zero_is_an_error():
    mech = exactdp.mechanism("svt5")
    with pytest.raises(InputError, match="probability exactly 0 under both"):
        exactdp.privacy_loss(mech, [1, 0], [1, 0], "F,T")


def test_log_ratio_is_the_difference_of_logs():
    mech = exactdp.mechanism("svt6")
    loss = exactdp.privacy_loss(mech, "0*3,1*3", "1*3,0*3", "F*3,T*3")
    with mpmath.workdps(60):
        assert abs(loss.log_ratio - (loss.p1.log_value - loss.p2.log_value)) < 1e-50
    assert loss.error < 1e-30


def test_svt1_max_loss_stays_within_eps():
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Thm 2: svt1 is ε-DP, so no output exceeds ε; the
    # all-⊥ output is the
    # worst for q = 0^n vs 1^n with c = 1 and stays below ε/2 (Lemma 1).
    mech = exactdp.mechanism("svt1", eps=1, c=1)
    result = exactdp.max_privacy_loss(mech, [0] * 6, [1] * 6)
    assert abs(result.loss.log_ratio) <= 0.5
    assert str(result.output) == "F*6"
    assert result.outputs == 7  # ⊥^6 and ⊥^k⊤ for k = 0..5
    with mpmath.workdps(40):
        assert abs(result.total1 - 1) < 1e-25 and abs(result.total2 - 1) < 1e-25


def test_svt6_max_loss_exceeds_the_claim():
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Appendix 9.2: svt6 with (0^m,1^m) vs (1^m,0^m)
    # has ratio ≥
    # e^{mε/2} on (⊥^m,⊤^m); the maximum over outputs is therefore at least mε/2.
    mech = exactdp.mechanism("svt6", eps=1)
    result = exactdp.max_privacy_loss(mech, "0*3,1*3", "1*3,0*3")
    assert result.outputs == 2 ** 6
    assert result.loss.log_ratio >= 1.5


def test_max_loss_limits():
    # without query noise the outputs are evaluated one by one: at most 12 queries
    with pytest.raises(InputError, match="at most 12 queries"):
        exactdp.max_privacy_loss(exactdp.mechanism("gptt", eps2="inf"), [0] * 13, [0] * 13)
    # evaluated together: at most 2^16 outputs (svt6 has 2^17 on 17 queries)
    with pytest.raises(InputError, match="at most 65536 outputs"):
        exactdp.max_privacy_loss(exactdp.mechanism("svt6"), [0] * 17, [0] * 17)
    with pytest.raises(InputError, match="cannot be enumerated"):
        exactdp.max_privacy_loss(exactdp.mechanism("svt3"), [0], [1])
    # all outputs at once: 1000 queries with a cutoff of 1 (shared nodes; beyond them the
    # largest loss goes run by run, tests/test_runs.py, and a Rényi divergence is refused), 400
    # along the tree
    with pytest.raises(InputError, match=r"got 1001 \(1000 for svt1\)"):
        exactdp.renyi_divergence(exactdp.mechanism("svt1", c=1), [0] * 1001, [1] * 1001, 2)
    with pytest.raises(InputError, match=r"got 401 \(400 for svt1\)"):
        exactdp.max_privacy_loss(exactdp.mechanism("svt1", c=2), [0] * 401, [0] * 401)


@pytest.mark.parametrize("name, params", [("svt6", {"eps": 1}), ("svt1", {"eps": 1, "c": 2}),
                                          ("svt4", {"eps": 1}),
                                          # scales 20/7 and 40/7: the hub's rate cancels
                                          # against twice the query noise's exactly
                                          ("statdp.SVT", {"eps": "0.7", "N": 1, "T": "0.5"})])
def test_all_outputs_at_once_match_one_at_a_time(name, params):
    # The tree walk (backends/output_tree.py, arb balls) against each output's own closed form
    # (mpmath).
    from exactdp.exact.backends.output_tree import all_output_probabilities
    from exactdp.exact.losses.privacy_loss import possible_outputs
    mech = exactdp.mechanism(name, **params)
    queries = [0, "0.5", -1, 2, "0.25", 1, 0]
    outputs = [tuple(o) for o in possible_outputs(mech, len(queries))]
    balls = all_output_probabilities(mech, [Fraction(q) for q in queries], outputs, 30)
    for output in outputs[::5]:
        tokens = ["T" if a else "F" for a in output]
        p = exactdp.probability(mech, queries, tokens, method="closed")
        with mpmath.workdps(50):
            ball = balls[output]
            value, radius = mpmath.mpf(ball.mid()._mpf_), mpmath.mpf(ball.rad()._mpf_)
            assert radius <= mpmath.mpf(10) ** -30 * value
            assert abs(value - p.value) <= radius + p.error


def test_max_loss_beyond_12_queries_with_a_cutoff():
    # svt1 with c = 1 has n + 1 outputs; its loss is at most ε (Lyu, Su & Li 2017, Thm 4.1).
    mech = exactdp.mechanism("svt1", eps=1, c=1)
    d1 = [i % 3 for i in range(40)]
    result = exactdp.max_privacy_loss(mech, d1, [q + 1 for q in d1])
    assert result.outputs == 41 and abs(result.loss.log_ratio) <= 1
    with mpmath.workdps(40):
        assert abs(result.total1 - 1) < 1e-25 and abs(result.total2 - 1) < 1e-25


def _exact(endpoint) -> Fraction:
    mantissa, exponent = endpoint.man_exp()
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


def _ends(ball) -> tuple[Fraction, Fraction]:
    """The exact ends of an arb ball (its exact midpoint and radius, without rounding)."""
    middle, radius = _exact(ball.mid()), _exact(ball.rad())
    return middle - radius, middle + radius


@settings(max_examples=8, deadline=None, derandomize=True)
@given(st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=8), min_size=1,
                max_size=5))
def test_svt1_all_outputs_hold_the_certified_probabilities_and_sum_to_one(queries):
    # Each ball of the tree walk (backends/output_tree.py) must overlap the per-output certified
    # enclosure (exactdp.probability(method="certified"), integrated piecewise on its own, not
    # by the walk); the balls of all n + 1 outputs of svt1 c = 1 must sum to a ball holding 1.
    from exactdp.exact.backends.output_tree import all_output_probabilities
    from exactdp.exact.losses.privacy_loss import possible_outputs
    mech = exactdp.mechanism("svt1", eps=1, c=1)
    outputs = [tuple(o) for o in possible_outputs(mech, len(queries))]
    assert len(outputs) == len(queries) + 1
    balls = all_output_probabilities(mech, queries, outputs, 30)
    lower = upper = Fraction(0)
    for output in outputs:
        low, high = _ends(balls[output])
        assert high - low <= low / 10 ** 30
        certified = exactdp.probability(mech, queries, ["T" if a else "F" for a in output],
                                        dps=30, method="certified")
        assert low <= _exact_mpf(certified.upper) and _exact_mpf(certified.lower) <= high
        lower, upper = lower + low, upper + high
    assert lower <= 1 <= upper


def _exact_mpf(value) -> Fraction:
    mantissa, exponent = value.man_exp  # the mpf's own mantissa, not re-rounded
    return Fraction(int(mantissa)) * Fraction(2) ** int(exponent)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.lists(st.fractions(min_value=-3, max_value=3, max_denominator=8), min_size=1,
                max_size=6),
       st.sampled_from(["svt1", "svt1 with exponential noise", "statdp.SVT"]))
def test_shared_nodes_hold_the_certified_probabilities_and_sum_to_one(queries, name):
    # Each ball of the shared Gauss–Legendre nodes (backends/shared_nodes.py) must overlap the
    # per-output certified enclosure (exactdp.probability(method="certified"), integrated
    # piecewise on its own) and be 10^-30 narrow; the n + 1 balls must sum to a ball holding 1.
    # Exponential noise makes factors vanish on whole pieces (exact zeros in the pass);
    # statdp.SVT has T = 1/2 and noise scales 20/7 and 40/7.
    from exactdp.exact.backends.shared_nodes import applies, first_top_probabilities
    from exactdp.noise import Exponential
    if name == "statdp.SVT":
        mech = exactdp.mechanism(name, eps="0.7", N=1, T="0.5")
    else:
        mech = exactdp.mechanism("svt1", eps=1, c=1)
    if name == "svt1 with exponential noise":
        mech = dataclasses.replace(mech, law=Exponential)
    assert applies(mech)
    balls = first_top_probabilities(mech, queries, 30)
    assert len(balls) == len(queries) + 1
    lower = upper = Fraction(0)
    for k, ball in enumerate(balls):
        low, high = _ends(ball)
        assert high - low <= low / 10 ** 30
        output = ["F"] * k + ["T"] * (k < len(queries))
        certified = exactdp.probability(mech, queries, output, dps=30, method="certified")
        assert low <= _exact_mpf(certified.upper) and _exact_mpf(certified.lower) <= high
        lower, upper = lower + low, upper + high
    assert lower <= 1 <= upper


@pytest.mark.parametrize("queries, dps", [([-2000, 2000, 0], 30), ([0, 1, 2], 60),
                                           (["1/3", "1/3", "0.3333333334"], 30)])
def test_shared_nodes_on_far_apart_queries_tiny_outputs_and_more_digits(queries, dps):
    # Wide gaps between kinks (cut at doubling widths), outputs of probability ~1e-218 (the tails
    # reach further) and 60 digits, against the certified enclosure of each output on its own.
    from exactdp.exact.backends.shared_nodes import first_top_probabilities
    mech = exactdp.mechanism("svt1", eps=1, c=1)
    queries = [Fraction(q) for q in queries]
    balls = first_top_probabilities(mech, queries, dps)
    for k, ball in enumerate(balls):
        low, high = _ends(ball)
        assert 0 < low and high - low <= low / 10 ** dps
        output = ["F"] * k + ["T"] * (k < len(queries))
        certified = exactdp.probability(mech, queries, output, dps=dps, method="certified")
        assert low <= _exact_mpf(certified.upper) and _exact_mpf(certified.lower) <= high


def test_shared_nodes_share_the_tolerance_again_from_the_sums(monkeypatch):
    # A first plan that takes every Pr for 1 leaves the small outputs' balls too wide; the
    # second plan shares the tolerance out from the first sums and reaches 30 digits.
    from exactdp.exact.backends import shared_nodes
    plan, known_given = shared_nodes._plan, []

    def plan_believing_every_probability_is_one(geometry, dps, log_bounds, known=None):
        known_given.append(known is not None)
        return plan(geometry, dps, log_bounds,
                    [0.0] * (len(geometry.shifts) + 1) if known is None else known)

    monkeypatch.setattr(shared_nodes, "_plan", plan_believing_every_probability_is_one)
    mech = exactdp.mechanism("svt1", eps=1, c=1)
    balls = shared_nodes.first_top_probabilities(mech, [Fraction(q) for q in (-50, 50, 0, 3)],
                                                 30)
    assert known_given == [False, True]
    for ball in balls:
        low, high = _ends(ball)
        assert 0 < low and high - low <= low / 10 ** 30


def test_max_loss_on_1000_queries():
    # svt1 c = 1 on 1000 random queries (the limit; it used to be 400), through the shared
    # nodes: 1001 outputs, the loss stays within ε (Lyu, Su & Li 2017, Thm 4.1); the shared
    # balls of d1 sum to a ball holding 1, and those of the first, the last and the maximising
    # output overlap their certified enclosures computed one output at a time.
    from exactdp.exact.backends.shared_nodes import first_top_probabilities
    rng = random.Random(3)
    d1 = [Fraction(rng.randint(-3000, 3000), 1000) for _ in range(1000)]
    d2 = [q + rng.choice((-1, 1)) for q in d1]
    mech = exactdp.mechanism("svt1", eps=1, c=1)
    result = exactdp.max_privacy_loss(mech, d1, d2)
    assert result.outputs == 1001 and abs(result.loss.log_ratio) <= 1
    with mpmath.workdps(40):
        assert abs(result.total1 - 1) < 1e-25 and abs(result.total2 - 1) < 1e-25
    balls = first_top_probabilities(mech, d1, 30)
    ends = [_ends(ball) for ball in balls]
    assert sum(low for low, _ in ends) <= 1 <= sum(high for _, high in ends)
    best = sum(1 for token in result.output.expand() if not token)
    for k in (0, best, 1000):
        output = ["F"] * k + ["T"] * (k < 1000)
        certified = exactdp.probability(mech, d1, output, dps=30, method="certified")
        low, high = ends[k]
        assert low <= _exact_mpf(certified.upper) and _exact_mpf(certified.lower) <= high
