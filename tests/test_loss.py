"""privacy_loss and max_privacy_loss."""

from fractions import Fraction

import mpmath
import pytest

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


@pytest.mark.parametrize("name, params", [("svt6", {"eps": 1}), ("svt1", {"eps": 1, "c": 2}),
                                          ("svt4", {"eps": 1}),
                                          # scales 20/7 and 40/7: the hub's rate cancels
                                          # against twice the query noise's exactly
                                          ("statdp.SVT", {"eps": "0.7", "N": 1, "T": "0.5"})])
def test_all_outputs_at_once_match_one_at_a_time(name, params):
    # The tree walk (all_outputs.py, arb balls) against each output's own closed form (mpmath).
    from exactdp.exact.all_outputs import all_output_probabilities
    from exactdp.exact.loss import possible_outputs
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
