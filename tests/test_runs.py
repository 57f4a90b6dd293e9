"""Divergences and the largest loss on inputs with long runs of equal queries: noisy max's
classes of exchangeable indices and Sparse Vector (cutoff 1) run by run
(``exact/divergences/threshold_runs.py``), against every output's probability by
``mpmath.quad`` (the inputs written out), the exponential mechanism's closed form (Gumbel noisy
max), and Sparse Vector's own enumeration of the same inputs."""

from fractions import Fraction

import mpmath
import pytest

import exactdp
from exactdp.errors import InputError
from exactdp.exact.divergences import threshold_runs
from exactdp.exact.losses import privacy_loss as loss_module
from exactdp.sequences import as_queries
from tests.conftest import _ends, assert_encloses

DIGITS = 20
QUAD_DPS = 30
#: the error allowed to a reference by mpmath.quad at QUAD_DPS digits (its sums of 7 terms)
QUAD_SLACK = Fraction(1, 10 ** 25)
#: the error allowed to a closed form evaluated at QUAD_DPS digits
ROUNDING_SLACK = Fraction(1, 10 ** 27)


def _laws(name: str):
    """``(density, CDF, survival, kinks)`` of the threshold and query noise of the mechanism
    ``name`` as mpmath functions, written from the laws' textbook formulas."""
    def gaussian(sigma):
        return (lambda x: mpmath.npdf(x, 0, sigma), lambda x: mpmath.ncdf(x, 0, sigma),
                lambda x: mpmath.ncdf(-x, 0, sigma))

    def laplace(b):
        return (lambda x: mpmath.exp(-abs(x) / b) / (2 * b),
                lambda x: 1 - mpmath.exp(-x / b) / 2 if x >= 0 else mpmath.exp(x / b) / 2,
                lambda x: mpmath.exp(-x / b) / 2 if x >= 0 else 1 - mpmath.exp(x / b) / 2)

    if name == "svt_gaussian":
        return gaussian(mpmath.mpf(4)), gaussian(mpmath.mpf(8)), False
    return laplace(mpmath.mpf(2)), laplace(mpmath.mpf(4)), True  # svt1, eps = 1


def _svt_outputs(name: str, queries: list) -> list:
    """``[Pr[⊥ᵏ⊤] for k < n] + [Pr[⊥ⁿ]]`` by ``mpmath.quad`` over the threshold noise ``z``
    (⊥ iff ``q + ν < z``; threshold 0), the queries written out."""
    (density, _, _), (_, cdf, sf), kinked = _laws(name)
    outputs = []
    with mpmath.workdps(QUAD_DPS):
        queries = [_mpf(q) for q in queries]
        points = [-mpmath.inf] + sorted({0, *queries} if kinked else {0}) + [mpmath.inf]
        for k in range(len(queries) + 1):
            def integrand(z, k=k):
                value = density(z)
                for q in queries[:k]:
                    value *= cdf(z - q)
                return value * (sf(z - queries[k]) if k < len(queries) else 1)

            outputs.append(mpmath.quad(integrand, points))
    return outputs


def _mpf(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def _delta(p1: list, p2: list, eps, counts=None) -> mpmath.mpf:
    """``Σ c·max(0, p1 − e^ε p2)`` over the outputs."""
    with mpmath.workdps(QUAD_DPS):
        factor = mpmath.exp(_mpf(Fraction(eps)))
        counts = counts or [1] * len(p1)
        return sum(c * max(0, a - factor * b) for a, b, c in zip(p1, p2, counts))


#: pairs of n = 6 queries in runs: the changes q2 − q1 of the runs 1; 0 then 1; 1/2 then 1
#: (non-decreasing ratios); −1; 0 then −1; 1 then 0 (non-increasing)
PAIRS = [("0*6", "1*6"), ("0*2,0*4", "0*2,1*4"), ("0*3,1*3", "1/2*3,2*3"),
         ("1*6", "0*6"), ("2*3,0*3", "2*3,-1*3"), ("0*3,1*3", "1*3,1*3")]


@pytest.mark.parametrize("name, d1, d2", [("svt1", *pair) for pair in PAIRS]
                         + [("svt1", "0*3,1*3", "0*3,1*3")]
                         + [("svt_gaussian", *PAIRS[i]) for i in (0, 2, 5)])  # quad is slow
def test_run_profile_and_extremes_match_every_output_written_out(name, d1, d2):
    # δ(ε) run by run against Σ max(0, p1 − e^ε p2) over all 7 outputs by quadrature; the
    # largest |ln(p1/p2)| over all 7 outputs is the first of the run's candidates
    mech = exactdp.mechanism(name, **({"sigma1": 4, "sigma2": 8} if name == "svt_gaussian"
                                      else {}))
    runs = [as_queries(d) for d in (d1, d2)]
    p1, p2 = (_svt_outputs(name, [Fraction(q) for q in d.expand()]) for d in runs)
    delta = threshold_runs.run_profile(mech, *runs, DIGITS)
    # (equal inputs at ε = 0: every p1 − e^ε p2 is 0, which no ball can sign, so each run is
    # bounded through its band of unsigned outputs)
    for eps in (Fraction(0), Fraction(3, 10), Fraction(1, 2), Fraction(1)):
        assert_encloses(delta(eps), _delta(p1, p2, eps), DIGITS, absolute=True,
                        slack=QUAD_SLACK)
    best = threshold_runs.run_extremes(mech, *runs, DIGITS)[0]
    position = len(best) - 1 if best.runs[-1][0] is True else len(best)
    with mpmath.workdps(QUAD_DPS):
        losses = [abs(mpmath.log(a / b)) for a, b in zip(p1, p2)]
        assert losses[position] >= max(losses) * (1 - mpmath.mpf(10) ** -20)


def test_public_routes_beyond_the_enumeration_agree_with_it(monkeypatch):
    # Beyond the enumeration's 1000 queries the profile and the largest loss go run by run;
    # with the limit lowered to 8 the same holds for 200 queries, against the shared nodes'
    # enumeration of all 201 outputs of the same inputs (backends/smooth_shared_nodes.py)
    mech = exactdp.mechanism("svt_gaussian", sigma1=4, sigma2=8)
    d1, d2 = "0*120,1*80", "1*120,1*80"  # changes 1 then 0: non-increasing along the second
    enumerated = exactdp.privacy_profile(mech, d1, d2, [0, Fraction(1, 2)], DIGITS)
    worst = exactdp.max_privacy_loss(mech, d1, d2, DIGITS)
    monkeypatch.setattr(loss_module, "MAX_SHARED_QUERIES", 8)
    by_runs = exactdp.privacy_profile(mech, d1, d2, [0, Fraction(1, 2)], DIGITS)
    for run, whole in zip(by_runs, enumerated):
        lower, upper = _ends(whole.delta)
        assert_encloses(run.delta, (lower + upper) / 2, DIGITS, absolute=True,
                        slack=upper - lower)
    run_worst = exactdp.max_privacy_loss(mech, d1, d2, DIGITS)
    assert run_worst.output == worst.output and run_worst.total1 is None
    lower, upper = _ends((worst.loss.log_ratio_lower, worst.loss.log_ratio_upper))
    assert_encloses((run_worst.loss.log_ratio_lower, run_worst.loss.log_ratio_upper),
                    (lower + upper) / 2, DIGITS, slack=upper - lower)


def test_a_run_whose_loss_is_not_proven_monotone_is_refused():
    mech = exactdp.mechanism("svt_gaussian", sigma1=4, sigma2=8)
    with pytest.raises(InputError, match="run of 600 queries from position 600 .* not proven "
                                         "monotone"):
        exactdp.max_privacy_loss(mech, "0*600,0*600", "1*600,1/2*600")


def test_too_many_runs_are_refused_with_their_count():
    mech = exactdp.mechanism("svt_gaussian", sigma1=4, sigma2=8)
    d1 = ",".join(f"{i % 2}*11" for i in range(101))
    with pytest.raises(InputError, match="at most 100 runs, got 101"):
        exactdp.privacy_profile(mech, d1, d1, [1])


def test_renyi_of_a_long_laplace_run_names_the_largest_size():
    # Gaussian noise goes run by run past the enumeration (tests/test_renyi_runs.py); Laplace
    # noise is refused in one line naming the limit
    mech = exactdp.mechanism("svt1")
    with pytest.raises(InputError, match="at most 12 queries, got 1001 \\(1000 for svt1"):
        exactdp.renyi_divergence(mech, "0*1001", "1*1001", 2)


def _magnitude(loss) -> tuple:
    """The enclosure of ``|ln(p1/p2)|`` from a signed loss's (mirror pairs tie in sign)."""
    lower, upper = _ends((loss.log_ratio_lower, loss.log_ratio_upper))
    return (lower, upper) if lower >= 0 else (-upper, -lower)


def _index_probabilities(name: str, queries: list) -> list:
    """``Pr[argmax = i]`` by ``mpmath.quad`` over the winner's noise (Laplace scale 2,
    Gaussian σ = 4), the queries written out."""
    (density, cdf, _), _, kinked = _laws("svt1" if name == "noisy_max_laplace"
                                         else "svt_gaussian")
    result = []
    with mpmath.workdps(QUAD_DPS):
        queries = [_mpf(q) for q in queries]
        for i, own in enumerate(queries):
            others = [q for j, q in enumerate(queries) if j != i]

            def integrand(z, own=own, others=others):
                value = density(z)
                for q in others:
                    value *= cdf(z + own - q)
                return value

            kinks = sorted({0, *(q - own for q in others)}) if kinked else [0]
            result.append(mpmath.quad(integrand, [-mpmath.inf] + kinks + [mpmath.inf]))
    return result


@pytest.mark.parametrize("name, params", [("noisy_max_laplace", {}),
                                          ("noisy_max_gaussian", {"sigma": 4})])
@pytest.mark.parametrize("d1, d2", [("0*3,1*3", "1*3,1*3"), ("0*2,1*2,0*2", "1*2,0*2,0*2")])
def test_noisy_max_classes_match_every_index_written_out(name, params, d1, d2):
    # δ(ε), D_2 and the largest loss from the classes of equal (d1_i, d2_i) against all six
    # indices by quadrature
    mech = exactdp.mechanism(name, **params)
    p1, p2 = (_index_probabilities(name, [Fraction(q) for q in as_queries(d).expand()])
              for d in (d1, d2))
    for eps in (0, Fraction(1, 2)):
        point, = exactdp.privacy_profile(mech, d1, d2, [eps], DIGITS)
        assert_encloses(point.delta, _delta(p1, p2, eps), DIGITS, absolute=True,
                        slack=QUAD_SLACK)
    with mpmath.workdps(QUAD_DPS):
        renyi = mpmath.log(sum(a ** 2 / b for a, b in zip(p1, p2)))
        largest = max(abs(mpmath.log(a / b)) for a, b in zip(p1, p2))
    point, = exactdp.renyi_divergence(mech, d1, d2, [2], DIGITS)
    assert_encloses(point.divergence, renyi, DIGITS, slack=QUAD_SLACK)
    worst = exactdp.max_privacy_loss(mech, d1, d2, DIGITS)
    assert_encloses(_magnitude(worst.loss), largest, DIGITS, slack=QUAD_SLACK)
    assert worst.outputs == 6


def test_gumbel_noisy_max_on_a_million_queries_is_the_exponential_mechanism():
    # Gumbel noise of scale b: Pr[argmax = i] = e^{q_i/b}/Σ_j e^{q_j/b} (McSherry & Talwar,
    # FOCS 2007; the Gumbel-max identity), so on 0*500000,1*500000 against 1*1000000 the two
    # classes have closed forms; δ(ε), D_2 and the largest loss follow
    mech = exactdp.mechanism("noisy_max_gumbel", eps=1)
    d1, d2, half = "0*500000,1*500000", "1*1000000", 500000
    with mpmath.workdps(QUAD_DPS):
        b = mpmath.mpf(2)  # 2Δ/ε
        total = half + half * mpmath.exp(1 / b)
        p1 = [1 / total, mpmath.exp(1 / b) / total]
        p2 = [mpmath.mpf(1) / (2 * half)] * 2
        counts = [half, half]
        renyi = mpmath.log(sum(c * a ** 2 / q for a, q, c in zip(p1, p2, counts)))
        largest = max((mpmath.log(a / q) for a, q in zip(p1, p2)), key=abs)  # signed
    point, = exactdp.privacy_profile(mech, d1, d2, [Fraction(1, 10)], DIGITS)
    assert_encloses(point.delta, _delta(p1, p2, Fraction(1, 10), counts), DIGITS,
                    absolute=True, slack=ROUNDING_SLACK)
    point, = exactdp.renyi_divergence(mech, d1, d2, [2], DIGITS)
    assert_encloses(point.divergence, renyi, DIGITS, slack=ROUNDING_SLACK)
    worst = exactdp.max_privacy_loss(mech, d1, d2, DIGITS)
    assert_encloses((worst.loss.log_ratio_lower, worst.loss.log_ratio_upper), largest, DIGITS,
                    slack=ROUNDING_SLACK)
    assert worst.outputs == 2 * half
