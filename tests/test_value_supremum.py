"""``D_∞`` of report noisy max releasing its largest noisy value
(``exact/losses/value_supremum.py``):
``renyi_divergence`` at ``α = inf``, ``max_privacy_loss`` and ``exactdp maxloss``.

References: closed forms derived by hand in the docstrings, and an independent evaluation of
the density ``f(v) = Σ_i p(v − q_i) Π_{j≠i} F(v − q_j)`` (Ding, Wang, Wang, Zhang & Kifer,
"Detecting Violations of Differential Privacy", CCS 2018, noisy max v1b/v2b) written below from
the textbook Laplace and exponential laws in mpmath at 50 digits.
"""

import json
from decimal import Decimal
from fractions import Fraction

import mpmath
import pytest

import exactdp
import exactdp.exact.losses.value_supremum as value_supremum_module
from exactdp.cli import main
from exactdp.errors import MethodUnavailableError, PrecisionError
from exactdp.exact.losses.value_supremum import value_supremum
from exactdp.sequences import Runs
from .conftest import assert_encloses

#: The error of a reference computed here at 50 digits (values of size about 1).
GRID_ROUNDING = mpmath.mpf(10) ** -45


def _log_density(name: str, b, queries, v) -> mpmath.mpf:
    """``ln f(v)`` at the current mpmath precision, from the laws' textbook formulas: Laplace
    ``p = e^{−|x|/b}/(2b)``, ``F = ½e^{x/b}`` (``x < 0``), ``1 − ½e^{−x/b}`` (``x ≥ 0``);
    exponential ``p = e^{−x/b}/b``, ``F = 1 − e^{−x/b}`` on ``x > 0``, both 0 below."""
    def pdf(x):
        if "laplace" in name:
            return mpmath.exp(-abs(x) / b) / (2 * b)
        return mpmath.exp(-x / b) / b if x >= 0 else mpmath.mpf(0)

    def cdf(x):
        if "laplace" in name:
            return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2
        return -mpmath.expm1(-x / b) if x > 0 else mpmath.mpf(0)

    total = mpmath.fsum(pdf(v - q) * mpmath.fprod(cdf(v - r) for j, r in enumerate(queries)
                                                  if j != i) for i, q in enumerate(queries))
    return mpmath.log(total) if total > 0 else -mpmath.inf


def _log_ratio(name, b, d1, d2, v):
    """``ln f1(v) − ln f2(v)`` where ``d1`` produces ``v`` (``−inf`` elsewhere)."""
    first = _log_density(name, b, d1, v)
    return first - _log_density(name, b, d2, v) if first > -mpmath.inf else first


def _mpf(number):
    number = Fraction(number)
    return mpmath.mpf(number.numerator) / number.denominator


def _scale(mech):
    return _mpf(mech.noise.scale)


def _divergence(mech, d1, d2, dps=30):
    point, = exactdp.renyi_divergence(mech, d1, d2, ["inf"], dps=dps, allow_any_pair=True)
    return point.divergence


def _ends(loss):
    return loss.log_ratio_lower, loss.log_ratio_upper


# ------------------------------------------------------------------ closed forms


@pytest.mark.parametrize("eps", [1, 2])
def test_laplace_two_queries_match_the_closed_form(eps):
    r"""Noisy max's largest value, ``Lap(b)`` noise (``b = 2/ε``), ``d1 = [0, 0]``,
    ``d2 = [1, 0]``; ``a = e^{1/b}``.  ``f1(v) = 2p(v)F(v)``,
    ``f2(v) = p(v − 1)F(v) + p(v)F(v − 1)``.

    * ``v ≤ 0``: every argument is ≤ 0, where ``p(x) = e^{x/b}/(2b)`` and ``F(x) = e^{x/b}/2``:
      ``f1 = e^{2v/b}/(2b)``, ``f2 = e^{(2v − 1)/b}/(2b)``, so ``f1/f2 = a``.
    * ``0 ≤ v ≤ 1``, ``u = e^{−v/b} ∈ [1/a, 1]``: ``p(v) = u/(2b)``, ``F(v) = 1 − u/2``,
      ``p(v − 1) = 1/(2abu)``, ``F(v − 1) = 1/(2au)``, so ``f1 = (u/b)(1 − u/2)`` and
      ``f2 = (1/(2abu))(1 − u/2 + u/2) = 1/(2abu)``: ``f1/f2 = a(2u² − u³)``, increasing in
      ``u`` (``4u − 3u² > 0``), from ``(2a − 1)/a²`` at ``v = 1`` to ``a`` at ``v = 0``.
    * ``v ≥ 1``, ``t = e^{−v/b} ∈ (0, 1/a]``: ``f1 = (t/b)(1 − t/2)``,
      ``f2 = (t/(2b))(a(1 − t/2) + 1 − at/2)``, so ``f1/f2 = (2 − t)/(a + 1 − at)``, whose
      derivative in ``t`` has the sign of ``a − 1 > 0``: it falls with ``v`` from
      ``(2a − 1)/a²`` to ``2/(1 + a)``.

    Hence ``D_∞(M(d1) ‖ M(d2)) = ln a = 1/b``, attained at every ``v ≤ 0``; and
    ``f2/f1`` is at most ``a²/(2a − 1)`` on ``v ≤ 1`` and rises on ``[1, ∞)`` to ``(1 + a)/2``,
    which exceeds ``a²/(2a − 1)`` (``(1 + a)(2a − 1) − 2a² = a − 1 > 0``): ``D_∞(M(d2) ‖ M(d1))
    = ln((1 + a)/2)``, approached as ``v → +∞`` and attained nowhere.
    """
    mech = exactdp.mechanism("noisy_max_laplace_value", eps=eps)
    with mpmath.workdps(60):
        b = _scale(mech)
        forward, backward = 1 / b, mpmath.log((1 + mpmath.exp(1 / b)) / 2)
        assert_encloses(_divergence(mech, [0, 0], [1, 0]), forward, 29)
        assert_encloses(_divergence(mech, [1, 0], [0, 0]), backward, 29,
                        slack=mpmath.mpf(10) ** -55)
    ahead = value_supremum(mech, Runs.from_items([0, 0]), Runs.from_items([1, 0]), 30)
    assert ahead.output <= 0 and ahead.approached is None
    behind = value_supremum(mech, Runs.from_items([1, 0]), Runs.from_items([0, 0]), 30)
    assert behind.output is None and behind.approached == "out0 → +inf"
    # maxloss: the larger direction, forward (d1 likelier) or backward (negative)
    for d1, d2, sign in (([0, 0], [1, 0], 1), ([1, 0], [0, 0], -1)):
        result = exactdp.max_privacy_loss(mech, d1, d2)
        assert result.output.expand()[0] <= 0 and result.outputs is None
        with mpmath.workdps(60):
            assert_encloses(tuple(sorted(sign * end for end in _ends(result.loss))), forward,
                            29)


def test_bad_noisy_max_is_t_eps_over_two():
    """CheckDP's BadNoisyMax (Wang, Ding, Kifer & Zhang, "CheckDP", CCS 2020): ``0^t`` against
    ``1^t``, ``Lap(2/ε)``.  Below every answer all ``n`` arguments are negative, each factor
    ``e^{(v − q)/b}/…``, so ``f1/f2 = e^{Σ(q2 − q1)/b} = e^{t/b}`` there; that this is the
    supremum is the catalogue's ``nε/2``.  ``t = 8``, ``ε = 1``: 4, at a value ≤ 0."""
    mech = exactdp.mechanism("noisy_max_laplace_value", eps=1)
    d1, d2 = Runs.from_runs([(0, 8)]), Runs.from_runs([(1, 8)])
    result = exactdp.max_privacy_loss(mech, d1, d2)
    assert result.output.expand()[0] <= 0
    assert_encloses(_ends(result.loss), 4, 29)


def test_permuted_answers_give_exactly_zero():
    # the largest value is symmetric in the answers: the same multiset, the same distribution
    mech = exactdp.mechanism("noisy_max_exponential_value", eps=1)
    result = value_supremum(mech, Runs.from_items([1, 0, 2]), Runs.from_items([2, 1, 0]), 30)
    assert result.divergence.lower == result.divergence.upper == 0


# ------------------------------------------------------------------ an independent grid


@pytest.mark.parametrize("name, d1, d2", [
    # a smooth interior maximum on the right of every answer (found by this module)
    ("noisy_max_laplace_value", [-1, 2, 0], [0, 1, 0]),
    ("noisy_max_exponential_value", [-1, 2, 0], [0, 1, 0]),
    ("noisy_max_laplace_value", [Fraction(1, 2), Fraction(-3, 2), 3, Fraction(1, 3)],
     [Fraction(3, 2), -1, 2, Fraction(-2, 3)]),
    ("noisy_max_laplace_value", [0, 1, 2], [1, 0, 3]),  # flat left of 2, where only 0, 1 differ
])
def test_the_enclosure_bounds_a_dense_grid_at_fifty_digits(name, d1, d2):
    # Every grid value is at most the upper end (up to the grid's own 50-digit rounding); the
    # lower end is at most the loss of the reported output, itself at most the true supremum.
    mech = exactdp.mechanism(name, eps=1)
    divergence = _divergence(mech, d1, d2)
    result = value_supremum(mech, Runs.from_items(d1), Runs.from_items(d2), 30)
    with mpmath.workdps(50):
        b, q1, q2 = _scale(mech), [_mpf(q) for q in d1], [_mpf(q) for q in d2]
        low, high = min(q1 + q2) - 10 * b, max(q1 + q2) + 10 * b
        grid = [low + (high - low) * k / 4000 for k in range(4001)]
        values = [_log_ratio(name, b, q1, q2, v) for v in grid]
        assert max(values) <= divergence.upper + GRID_ROUNDING
        if result.output is None:
            # approached at an end, the limit in closed form: as v → +∞ every F → 1 and
            # p(v − q) ∝ e^{−(v − q)/b}, so f ∝ e^{−v/b} Σ_i e^{q_i/b}; below every answer the
            # Laplace f = n e^{(nv − Σq)/b}/(2^n b) exactly
            reached = {"out0 → +inf": mpmath.log(mpmath.fsum(mpmath.exp(q / b) for q in q1))
                       - mpmath.log(mpmath.fsum(mpmath.exp(q / b) for q in q2)),
                       "out0 → -inf": (mpmath.fsum(q2) - mpmath.fsum(q1)) / b}[result.approached]
        else:
            reached = _log_ratio(name, b, q1, q2, _mpf(result.output))
        assert divergence.lower <= reached + GRID_ROUNDING
        assert divergence.upper - divergence.lower <= mpmath.mpf(10) ** -30 * divergence.lower
        if d1 == [-1, 2, 0]:
            # the interior maximum to 50 digits by Newton's method on g' from the grid's best
            # point, independently of the module
            start = grid[values.index(max(values))]
            top = mpmath.findroot(lambda v: mpmath.diff(
                lambda x: _log_ratio(name, b, q1, q2, x), v), start)
            assert_encloses(divergence, _log_ratio(name, b, q1, q2, top), 29,
                            slack=GRID_ROUNDING)


def test_a_budget_too_small_for_the_digits_is_a_precision_error(monkeypatch):
    monkeypatch.setattr(value_supremum_module, "BOXES_PER_DIGIT", 0)
    mech = exactdp.mechanism("noisy_max_laplace_value", eps=1)
    with pytest.raises(PrecisionError, match=r"did not narrow to 30 digits within 0 boxes"):
        value_supremum(mech, Runs.from_items([-1, 2, 0]), Runs.from_items([0, 1, 0]), 30)


# ------------------------------------------------------------------ infinite suprema


def test_a_value_only_d1_produces_is_infinite():
    """Exponential noise (StatDP's v2b): ``M([1, 0]) = max(1 + E1, E2) ≥ 1`` always, while
    ``M([0, 0]) < 1`` with probability ``(1 − e^{−1/b})² > 0``: every value in ``(0, 1)`` is
    produced by ``d1 = [0, 0]`` only, so ``D_∞(M(d1) ‖ M(d2)) = +∞``, attained there."""
    mech = exactdp.mechanism("statdp.noisy_max_v2b", eps=1)
    result = exactdp.max_privacy_loss(mech, [0, 0], [1, 0])
    assert 0 < result.output.expand()[0] < 1
    assert result.loss.log_ratio == result.loss.log_ratio_lower == mpmath.inf
    assert result.loss.p1.value > 0 and result.loss.p2.is_zero
    assert _divergence(mech, [0, 0], [1, 0]).lower == mpmath.inf


def test_a_density_vanishing_faster_is_infinite_and_not_attained():
    """Exponential noise, ``d1 = [1, 0]``, ``d2 = [1, 1]``: both densities are positive on
    ``v > 1`` only.  As ``v → 1+``, ``f2 = 2p(v − 1)F(v − 1) → 0`` (``F(0) = 0``) while
    ``f1 = p(v − 1)F(v) + p(v)F(v − 1) → F(1)/b > 0``: the ratio is finite at every value but
    unbounded, ``+∞`` approached as ``v → 1`` from above."""
    mech = exactdp.mechanism("noisy_max_exponential_value", eps=1)
    result = exactdp.max_privacy_loss(mech, [1, 0], [1, 1])
    assert result.output is None and result.approached == "out0 → 1 from above"
    assert result.loss.log_ratio == mpmath.inf and result.loss.p1 is None
    assert result.method == "certified branch-and-bound"
    with mpmath.workdps(50):
        b = _scale(mech)
        assert _log_ratio(mech.name, b, [1, 0], [1, 1], 1 + mpmath.mpf(10) ** -20) > 40
    # the other direction is finite: with t = e^{−(v − 1)/b}, a = e^{1/b},
    # f([1, 1])/f([1, 0]) = 2(1 − t)/(1 + 1/a − 2t/a), whose derivative in t has the sign of
    # 2/a − 2 < 0: it rises with v to its limit at +∞, 2a/(a + 1)
    with mpmath.workdps(60):
        limit = mpmath.log(2 * mpmath.exp(1 / b) / (mpmath.exp(1 / b) + 1))
        assert_encloses(_divergence(mech, [1, 1], [1, 0]), limit, 29, slack=GRID_ROUNDING)


def test_a_supremum_where_both_densities_vanish_is_approached():
    """Exponential noise, ``d1 = [1, 1, 0]``, ``d2 = [1, 1, 1/2]``: on ``v > 1``, with
    ``t = e^{−(v − 1)/b} ∈ (0, 1)``, ``x = e^{−1/(2b)}`` and ``y = x² = e^{−1/b}``,
    ``f1 = (t/b)(1 − t)(2(1 − yt) + y(1 − t))`` and ``f2 = (t/b)(1 − t)(2(1 − xt) + x(1 − t))``,
    so ``f1/f2 = (2 + y − 3yt)/(2 + x − 3xt)``, whose derivative in ``t`` has the sign of
    ``6(x − y) > 0``: it rises as ``v`` falls to 1, towards ``(2 − 2y)/(2 − 2x) = 1 + x``.  At
    ``v = 1`` both densities are 0 (``F(0) = 0``): ``D_∞ = ln(1 + e^{−1/(2b)})``, approached as
    ``v → 1`` from above — the value 1 is no output."""
    mech = exactdp.mechanism("noisy_max_exponential_value", eps=1)
    d1, d2 = [1, 1, 0], [1, 1, Fraction(1, 2)]
    result = value_supremum(mech, Runs.from_items(d1), Runs.from_items(d2), 30)
    assert result.output is None and result.approached == "out0 → 1 from above"
    with mpmath.workdps(60):
        reference = mpmath.log(1 + mpmath.exp(-1 / (2 * _scale(mech))))
        assert_encloses(result.divergence, reference, 29, slack=GRID_ROUNDING)


# ------------------------------------------------------------------ the command line


def _run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("name, d1, d2", [
    ("noisy_max_laplace_value", "0,0", "1,0"),
    ("statdp.noisy_max_v1b", "0,1,0", "-1,2,0"),
    ("statdp.noisy_max_v2b", "0,0", "1,0"),
])
def test_cli_maxloss_prints_renyi_infinite_order(capsys, name, d1, d2):
    code, out, err = _run(capsys, "maxloss", name, "--d1", d1, "--d2", d2, "--json")
    assert code == 0, err
    record = json.loads(out)
    code, out, err = _run(capsys, "renyi", name, "--d1", d1, "--d2", d2, "--alpha", "inf",
                          "--json")
    assert code == 0, err
    renyi, = json.loads(out)
    assert [record[key] for key in ("log_ratio", "log_ratio_lower", "log_ratio_upper")] == \
        [renyi[key] for key in ("divergence", "lower", "upper")]
    assert "outputs_enumerated" not in record and record["output"] is not None
    assert Decimal(record["log_ratio_lower"]) > 0


def test_cli_maxloss_of_the_larger_backward_direction_is_negative(capsys):
    # d1 = [1, 0], d2 = [0, 0]: the closed form above, D_∞ backward = 1/b = 0.5 the larger
    argv = ["noisy_max_laplace_value", "--d1", "1,0", "--d2", "0,0"]
    code, out, _ = _run(capsys, "maxloss", *argv, "--json")
    record = json.loads(out)
    assert code == 0 and record["log_ratio"] == "-0.5"
    assert Decimal(record["log_ratio_lower"]) <= Decimal("-0.5") <= \
        Decimal(record["log_ratio_upper"])
    _, out, _ = _run(capsys, "renyi", "noisy_max_laplace_value", "--d1", "0,0", "--d2", "1,0",
                     "--alpha", "inf", "--json")
    renyi, = json.loads(out)
    assert record["log_ratio_lower"] == "-" + renyi["upper"]


def test_cli_an_unattained_infinite_supremum(capsys):
    argv = ["noisy_max_exponential_value", "--d1", "1,0", "--d2", "1,1"]
    code, out, err = _run(capsys, "maxloss", *argv, "--json")
    assert code == 0, err
    record = json.loads(out)
    assert record["output"] is None and record["approached"] == "out0 → 1 from above"
    assert record["log_ratio"] == record["log_ratio_upper"] == "inf"
    code, out, _ = _run(capsys, "maxloss", *argv)
    assert code == 0 and "not attained: approached as out0 → 1 from above" in out


def test_cli_renyi_refuses_finite_orders_in_one_line(capsys):
    code, out, err = _run(capsys, "renyi", "noisy_max_laplace_value", "--d1", "0,0", "--d2",
                          "1,0", "--alpha", "2,inf")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "computed at alpha=inf only, got alpha=2" in err
    with pytest.raises(MethodUnavailableError, match=r"got alpha=1\.5"):
        exactdp.renyi_divergence(exactdp.mechanism("noisy_max_laplace_value"), [0], [1],
                                 ["inf", "1.5"])
