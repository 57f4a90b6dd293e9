"""Certified results (``method="certified"``): enclosures in ball arithmetic.

* over the whole catalogue (hypothesis-drawn parameters, queries and outputs), the estimate
  (``method="estimate"``, two independent methods) lies in the certified enclosure widened by
  the estimate's own error bound (the enclosure is far tighter than the estimate's rounding, so
  that widening is what "estimate inside the enclosure" can mean),
  zeros agree exactly, and the enclosure's relative width is at most ``10^-dps``;
* the enclosures of all outputs of small mechanisms add up to an enclosure of 1 (a law of
  probability, no reference value needed);
* closed forms from the papers lie inside the enclosures; exact zeros certify infinite losses;
* Gumbel enclosures contain 60-digit mpmath quadratures; the CLI prints outward-rounded ends.
"""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from mpmath import mpf

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.exact.losses.privacy_loss import possible_outputs
from exactdp.formatting import format_bound
from exactdp.mechanisms import OutputKind as Kind
from exactdp.mechanisms import entry

DPS = 20
#: Parameter values drawn for the catalogue cross-check (exact binary fractions).
BUDGETS = (Fraction(1, 2), Fraction(1), Fraction(2))
COUNTS = (1, 2)
THRESHOLDS = (Fraction(-1, 2), Fraction(0), Fraction(1, 4))
QUERIES = tuple(Fraction(k, 4) for k in range(-4, 5))
#: Discrete noise has no estimate to compare with (tests/test_discrete.py and
#: tests/test_discrete_gaussian.py check its sums against brute force).
def _integer_valued(mech) -> bool:
    law = getattr(mech, "law", None) or getattr(mech, "noise", None)
    return law is not None and law.integer_valued


NAMES = [item.name for item in exactdp.catalogue() if not _integer_valued(item.make())]


def exact(value) -> Fraction:
    """An mpf (an enclosure end: an exact binary number) as a Fraction, without rounding."""
    mantissa, exponent = value.man_exp
    mantissa = int(mantissa) * (-1 if value < 0 else 1)
    return Fraction(mantissa) * Fraction(2) ** int(exponent)


def contains_with_margin(result, value, margin) -> bool:
    with mpmath.workdps(200):
        return result.lower - margin <= value <= result.upper + margin


@st.composite
def catalogue_cases(draw, name: str):
    """``(mechanism, queries, output)``: parameters drawn like the catalogue identity tests,
    queries on a grid of quarters, and an output of the mechanism's kind (shapes the engine
    refuses are discarded with ``assume``)."""
    item = entry(name)
    params = {}
    for param in item.params:
        if param.kind == "budget":
            params[param.name] = draw(st.sampled_from(BUDGETS))
        elif param.kind == "count":
            params[param.name] = draw(st.sampled_from(COUNTS))
        elif param.kind == "flag":
            params[param.name] = draw(st.booleans())
        elif param.default is not None:
            params[param.name] = draw(st.sampled_from(THRESHOLDS))
    mech = item.make(**params)
    n = draw(st.integers(1, 3))
    queries = draw(st.lists(st.sampled_from(QUERIES), min_size=n, max_size=n))
    kind = mech.output_kind
    value = st.sampled_from(QUERIES)
    if kind is Kind.INDEX:
        output = [draw(st.integers(0, n - 1))]
    elif kind is Kind.NUMBER:
        output = [draw(value)]
    elif kind is Kind.NUMBERS:  # a histogram releases n numbers; a sum declares its length
        length = mech.output_length(n) if hasattr(mech, "output_length") else n
        output = draw(st.lists(value, min_size=length, max_size=length))
    else:
        length = draw(st.integers(1, n))
        output = draw(st.lists(st.booleans(), min_size=length, max_size=length))
        if kind is Kind.FLAGS_AND_NUMBERS:
            output = [draw(value) if top else False for top in output]
    return mech, queries, output


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(data=st.data())
def test_estimate_lies_in_the_certified_enclosure(name, data):
    mech, queries, output = data.draw(catalogue_cases(name))
    try:
        auto = exactdp.probability(mech, queries, output, dps=DPS, method="estimate")
    except InputError as error:
        assume(not str(error).startswith("not an output"))
        raise
    certified = exactdp.probability(mech, queries, output, dps=DPS, method="certified")
    assert isinstance(certified, exactdp.CertifiedProbability)
    assert certified.is_zero == auto.is_zero
    if certified.is_zero:
        assert certified.lower == certified.upper == 0
        return
    assert contains_with_margin(certified, auto.value, auto.error)
    assert certified.lower <= certified.value <= certified.upper
    assert certified.log_lower <= certified.log_value <= certified.log_upper
    assert exact(certified.upper) - exact(certified.lower) <= exact(certified.lower) / 10 ** DPS


@pytest.mark.parametrize("name, params, n", [
    ("svt1", {"eps": 1, "c": 1}, 4),
    ("svt4", {"eps": Fraction(1, 2), "c": 2}, 3),
    ("gptt", {"eps1": Fraction(1, 2), "eps2": Fraction(1, 2)}, 3),
    ("statdp.iSVT2", {"eps": 1, "N": 1}, 3),
])
def test_enclosures_of_all_outputs_sum_to_an_enclosure_of_one(name, params, n):
    mech = exactdp.mechanism(name, **params)
    queries = [Fraction(k, 2) for k in range(n)]
    lower = upper = Fraction(0)
    for output in possible_outputs(mech, n):
        p = exactdp.probability(mech, queries, output, dps=DPS, method="certified")
        lower += exact(p.lower)
        upper += exact(p.upper)
    assert lower <= 1 <= upper
    assert upper - lower <= Fraction(1, 10 ** (DPS - 1))


def test_noisy_max_indices_sum_to_an_enclosure_of_one():
    for name in ("noisy_max_laplace", "noisy_max_exponential"):
        mech = exactdp.mechanism(name, eps=1)
        queries = [0, Fraction(1, 2), 1]
        ends = [exactdp.probability(mech, queries, [i], dps=DPS, method="certified")
                for i in range(3)]
        assert sum(exact(p.lower) for p in ends) <= 1 <= sum(exact(p.upper) for p in ends)


def test_closed_form_from_the_paper_lies_inside():
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), §3.2: Pr[Alg. 5(0, 1) = (⊥, ⊤)] = ½(1 − e^{−ε/2})
    p = exactdp.probability(exactdp.mechanism("svt5", eps=1), [0, 1], "F,T", dps=40,
                            method="certified")
    with mpmath.workdps(80):
        assert p.lower <= (1 - mpmath.exp(mpf(-1) / 2)) / 2 <= p.upper
        assert p.upper - p.lower <= p.lower * mpf(10) ** -40


def test_tiny_probability_keeps_its_relative_width():
    # GPTT with t = 10^4 copies: a probability near 1e-4283, far below any float; the closed form
    # is out of reach, so the enclosure comes from the rigorous piecewise Gauss–Legendre rule.
    mech = exactdp.mechanism("gptt", eps1=0.5, eps2=0.5)
    t = 10 ** 4
    p = exactdp.probability(mech, f"0*{t},1*{t}", f"F*{t},T*{t}", dps=25, method="certified")
    auto = exactdp.probability(mech, f"0*{t},1*{t}", f"F*{t},T*{t}", dps=25, method="estimate")
    assert "piecewise-gauss" in p.method
    assert mpf("1e-4300") < p.lower and p.upper < mpf("1e-4200")
    assert contains_with_margin(p, auto.value, auto.error)
    assert exact(p.upper) - exact(p.lower) <= exact(p.lower) / 10 ** 25


def test_exact_zero_certifies_an_infinite_loss():
    mech = exactdp.mechanism("svt5", eps=1)
    zero = exactdp.probability(mech, [1, 0], "F,T", method="certified")
    assert zero.is_zero and zero.lower == zero.upper == 0 and zero.log_upper == mpf("-inf")
    loss = exactdp.privacy_loss(mech, [0, 1], [1, 0], "F,T", method="certified")
    assert isinstance(loss, exactdp.CertifiedPrivacyLoss)
    assert loss.log_ratio_lower == loss.log_ratio_upper == mpf("inf")


def test_loss_enclosure_contains_the_closed_form():
    # CheckDP appendix D (docs/mathematics.md §9): BadNoisyMax on D = 0^t, D' = 1^t, output −1
    # has ln ratio tε/2 exactly (b = 2/ε); t = 3, ε = 1.
    mech = exactdp.mechanism("noisy_max_laplace_value", eps=1)
    loss = exactdp.privacy_loss(mech, [0, 0, 0], [1, 1, 1], [-1], dps=25, method="certified")
    assert exact(loss.log_ratio_lower) <= Fraction(3, 2) <= exact(loss.log_ratio_upper)
    assert loss.log_ratio_upper - loss.log_ratio_lower <= mpf(10) ** -24


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.integers(-10 ** 30, 10 ** 30), st.integers(-3000, 3000), st.integers(1, 40))
def test_printed_bounds_round_outward(mantissa, exponent, digits):
    value = mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(mantissa, exponent))  # exact
    exact_value = Fraction(mantissa) * Fraction(2) ** exponent
    low, high = format_bound(value, digits, False), format_bound(value, digits, True)
    assert Fraction(low) <= exact_value <= Fraction(high)
    for text in (low, high):
        assert len(text.lstrip("-0.").split("e")[0].replace(".", "")) <= digits


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_prob_json_has_the_enclosure(capsys):
    code, out, err = run(capsys, "prob", "svt5", "--queries", "0,1", "--output", "F,T",
                         "--certified", "--json")
    assert code == 0 and err == ""
    record = json.loads(out)
    assert set(record) == {"probability", "log_probability", "error", "log_error", "method",
                           "lower", "upper", "log_lower", "log_upper"}
    # Lyu et al. §3.2 closed form, as above
    with mpmath.workdps(60):
        truth = (1 - mpmath.exp(mpf(-1) / 2)) / 2
        assert mpf(record["lower"]) <= truth <= mpf(record["upper"])
        assert mpf(record["log_lower"]) <= mpmath.log(truth) <= mpf(record["log_upper"])


def test_cli_loss_json_has_the_log_ratio_enclosure(capsys):
    t = 1000
    code, out, _ = run(capsys, "loss", "gptt", "--param", "eps1=0.5", "--param", "eps2=0.5",
                       "--d1", f"0*{t},1*{t}", "--d2", f"1*{t},0*{t}", "--output",
                       f"F*{t},T*{t}", "--certified", "--json")
    assert code == 0
    record = json.loads(out)
    assert set(record) == {"p1", "p2", "log_ratio", "error", "method", "log_ratio_lower",
                           "log_ratio_upper"}
    low, high = Fraction(record["log_ratio_lower"]), Fraction(record["log_ratio_upper"])
    # the printed ends (30 digits, rounded outward) still have relative width ≤ 1e-30 + 2 ulps
    assert 0 < high - low <= low * Fraction(3, 10 ** 29)
    auto = exactdp.privacy_loss(exactdp.mechanism("gptt", eps1=0.5, eps2=0.5), f"0*{t},1*{t}",
                                f"1*{t},0*{t}", f"F*{t},T*{t}", method="estimate")
    assert low - exact(auto.error) <= exact(auto.log_ratio) <= high + exact(auto.error)


def test_cli_certified_conflicts_with_another_method(capsys):
    code, _, err = run(capsys, "prob", "svt5", "--queries", "0,1", "--output", "F,T",
                       "--certified", "--method", "quad")
    assert code == 2 and "--certified" in err and "quad" in err and err.count("\n") == 1


# --- certified verdicts ------------------------------------------------------------------------

def svt3_family():
    from exactdp.claims.families import Family
    # Lyu et al. Appendix 9.1 (Thm 9.11): Alg. 3's ln ratio on (0^m, 0) vs (1^m, 0) with output
    # (⊥^m, 0) is exactly mε/2
    return Family("Alg. 3", "svt3", {"eps": 1, "c": 1}, "0*{t},0", "1*{t},0", "F*{t},0")


def test_inequalities_and_equalities_are_decided_on_enclosures():
    from exactdp.claims import certify
    loss = certify.certified_loss(svt3_family(), 3, dps=31)
    value = Fraction(3, 2)
    assert certify.equals(loss, value) is True
    assert certify.equals(loss, value + Fraction(1, 10 ** 20)) is False
    assert certify.above(loss, value - Fraction(1, 10 ** 20)) is True
    assert certify.below(loss, value) is None               # the bound is attained: undecided
    assert certify.at_most(loss, value + Fraction(1, 10 ** 20)) is True
    assert certify.exceeds(loss, 1) is True and certify.within(loss, 2) is True
    assert certify.all_of([True, None]) is None and certify.all_of([None, False]) is False


def test_undecided_verdict_is_never_a_guess():
    from exactdp.claims.certify import certified_verdict
    from exactdp.claims.registry import CONFIRMED, REFUTED, UNDECIDED
    assert certified_verdict(None) == (UNDECIDED, False)
    assert UNDECIDED == "undecided at this precision"
    assert certified_verdict(True) == (CONFIRMED, True)
    assert certified_verdict(True, others=False) == (REFUTED, True)
    assert certified_verdict(False) == (REFUTED, True)


def test_equality_needs_a_narrow_enclosure():
    from exactdp.claims import certify
    # at 10 digits the enclosure contains 3/2 but is far wider than 10^-30: not a proof of
    # equality to 30 digits, and not a refutation either
    loss = certify.certified_loss(svt3_family(), 3, dps=10)
    assert loss.log_ratio_upper - loss.log_ratio_lower > mpf(10) ** -30
    assert certify.equals(loss, Fraction(3, 2), dps=30) is None
    assert certify.equals(loss, Fraction(3, 2), dps=9) is True


# --- Gumbel noise -------------------------------------------------------------------------------

def gumbel_index_quadrature(queries, index, b) -> mpf:
    """``Pr[argmax = index]`` of report noisy max with Gumbel(b) noise by mpmath.quad at 60
    digits: ``∫ p(z) Π_{j≠index} F(z − (q_j − q_index)) dz`` with ``p(z) = e^{−z/b − e^{−z/b}}/b``
    and ``F(x) = exp(−e^{−x/b})``, split at the peak of the integrand, which is where
    ``e^{−z/b}(1 + Σ_j e^{d_j/b}) = 1`` (the log integrand's derivative vanishes there)."""
    with mpmath.workdps(60):
        b = mpf(b.numerator) / b.denominator
        shifts = [mpf((q - queries[index]).numerator) / (q - queries[index]).denominator
                  for j, q in enumerate(queries) if j != index]

        def integrand(z):
            if -z / b > 10:  # where e^{−z/b} > e^{10}: the mass there is below the Gumbel CDF
                return mpf(0)  # exp(−e^{10}) < 1e-9565 (and mpmath's exponents stay small)
            value = mpmath.exp(-z / b - mpmath.exp(-z / b)) / b
            for d in shifts:
                value *= mpmath.exp(-mpmath.exp(-(z - d) / b))
            return value

        peak = b * mpmath.log(1 + mpmath.fsum(mpmath.exp(d / b) for d in shifts))
        return mpmath.quad(integrand, [-mpmath.inf, peak - 4 * b, peak, peak + 4 * b,
                                       mpmath.inf])


@settings(max_examples=6, deadline=None, derandomize=True)
@given(st.lists(st.integers(-80, 80).map(lambda k: Fraction(k, 2)), min_size=2, max_size=5),
       st.data())
def test_gumbel_index_enclosure_contains_the_quadrature(queries, data):
    mech = exactdp.mechanism("noisy_max_gumbel", eps=1)
    index = data.draw(st.integers(0, len(queries) - 1))
    result = exactdp.probability(mech, queries, [index], dps=DPS, method="certified")
    assert isinstance(result, exactdp.CertifiedProbability)
    reference = gumbel_index_quadrature(queries, index, mech.noise.scale)
    with mpmath.workdps(60):
        # the exponential mechanism's closed form (McSherry & Talwar, FOCS 2007; the Gumbel-max
        # identity, Dwork & Roth 2014 §3.4) checks the quadrature itself
        b = mpf(mech.noise.scale.numerator) / mech.noise.scale.denominator
        weights = [mpmath.exp(mpf(q.numerator) / q.denominator / b) for q in queries]
        softmax = weights[index] / mpmath.fsum(weights)
        assert abs(reference - softmax) < softmax * mpf(10) ** -40
    assert result.lower <= reference <= result.upper
    assert exact(result.upper) - exact(result.lower) <= exact(result.lower) / 10 ** DPS


def test_gumbel_far_tail_is_enclosed_without_underflow():
    # index 0 loses by 400 = 200 scales: Pr = 1/(1 + e^200), and the CDF factor at the peak of
    # the winner's density is exp(−e^{200}), far below the smallest double
    mech = exactdp.mechanism("noisy_max_gumbel", eps=1)
    result = exactdp.probability(mech, [0, 400], [0], dps=DPS, method="certified")
    with mpmath.workdps(60):
        truth = 1 / (1 + mpmath.exp(200))  # the exponential mechanism (test above)
    assert result.lower <= truth <= result.upper
    assert exact(result.upper) - exact(result.lower) <= exact(result.lower) / 10 ** DPS


def test_gumbel_largest_value_density_is_enclosed():
    # the density of the largest noisy value, Σ_i p(v − q_i) Π_{j≠i} F(v − q_j) (constants, no
    # integral), written out at 60 digits with p and F of Gumbel(b) as in the quadrature above
    mech = dataclasses.replace(exactdp.mechanism("noisy_max_gumbel", eps=1), releases_value=True)
    queries, v = [0, 1, 3, -30], Fraction(1, 2)
    result = exactdp.probability(mech, queries, [v], dps=DPS, method="certified")
    with mpmath.workdps(60):
        b = mpf(2)
        density = lambda x: mpmath.exp(-x / b - mpmath.exp(-x / b)) / b  # noqa: E731
        cdf = lambda x: mpmath.exp(-mpmath.exp(-x / b))  # noqa: E731
        x = [mpf(1) / 2 - q for q in queries]  # v − q_i
        truth = mpmath.fsum(density(x[i]) * mpmath.fprod(cdf(x[j]) for j in range(len(x))
                                                         if j != i) for i in range(len(x)))
    assert result.lower <= truth <= result.upper
    assert exact(result.upper) - exact(result.lower) <= exact(result.lower) / 10 ** DPS


def test_cli_prob_gumbel_certified(capsys):
    code, out, err = run(capsys, "prob", "noisy_max_gumbel", "--queries", "0,1,2",
                         "--output", "2", "--certified", "--json")
    assert code == 0 and err == ""
    record = json.loads(out)
    with mpmath.workdps(60):
        truth = mpmath.exp(1) / (1 + mpmath.exp(mpf(1) / 2) + mpmath.exp(1))  # b = 2, softmax
        assert mpf(record["lower"]) <= truth <= mpf(record["upper"])
