"""Tiny (and huge) noise scales: the certified quadrature plans its pieces in units of the
integrand's own scale, so its work does not grow as a Gaussian's σ shrinks, and every result is
checked against a closed form.

References (all exact for the integrals computed):

* report noisy max on two answers ``(1, 0)`` with ``N(0, σ²)`` noise releases index 1 iff
  ``η1 − η0 > 1``, and ``η1 − η0 ~ N(0, 2σ²)``: ``Pr[1] = ½ erfc(1/(2σ))``;
* on ``(1, 0, 0)`` index 1 needs ``A = {η1 − η0 > 1}`` and ``η1 > η2``, so
  ``Pr[A] − Pr[1] ≤ Pr[η0 < −¾] + Pr[A]·Pr[η2 ≥ ¼]`` (outside both events ``η1 ≥ ¼ > η2``),
  at most ``2e^{−1/(32σ²)}·Pr[A]`` (Gaussian tail ratios): ``Pr[1] = ½ erfc(1/(2σ))`` to far
  below any digit printed for ``σ ≤ 10^{−3}``;
* Gaussian Sparse Vector on one answer ``q = 1``, threshold 0: ⊤ iff ``1 + ν ≥ ρ`` and
  ``ρ − ν ~ N(0, σ1² + σ2²)``: ``Pr[⊤] = Φ(1/√(σ1² + σ2²))``;
* scale invariance: noisy max with answers ``σ·q`` and noise ``N(0, σ²)`` has the output law of
  answers ``q`` with noise ``N(0, 1)``.

The divergences follow from these probabilities: ``D_α = (1/(α − 1)) ln Σ p1^α p2^{1−α}``
(Mironov, "Rényi Differential Privacy", IEEE CSF 2017, Definition 3) and
``δ(ε) = Σ_a (p1(a) − e^ε p2(a))^+``.
"""

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from flint import acb, arb, ctx

import exactdp
from exactdp.exact.backends import peak_search, vector_quadrature
from exactdp.noise import Gaussian, Kind
from exactdp.precision import to_arb
from tests.conftest import assert_encloses

ROOT = Path(__file__).resolve().parent.parent
SCALES = ["1", "1e-5", "1e-6", "1e-300"]
#: Pieces the certified rule may try on one integral: a handful at every scale (4 to 7 in the
#: runs here); before the planning in units of σ it tried 3567 at σ = 1e-5.
PIECE_BUDGET = 20
#: The hang guard of the command-line runs (each answers in about a second).
TIMEOUT = 120


@pytest.fixture
def pieces(monkeypatch):
    """The pieces the certified Gauss–Legendre rule tries (``vector_quadrature._rule`` calls):
    past :data:`PIECE_BUDGET` the run fails at once instead of running on."""
    tried = []
    rule = vector_quadrature._rule

    def counted(*args, **kwargs):
        tried.append(1)
        assert len(tried) <= PIECE_BUDGET, f"more than {PIECE_BUDGET} pieces tried"
        return rule(*args, **kwargs)

    monkeypatch.setattr(vector_quadrature, "_rule", counted)
    return tried


@pytest.fixture
def nodes(monkeypatch):
    """The Gauss–Legendre nodes of every rule applied (``vector_quadrature._weighted_nodes``)."""
    counts = []
    weighted = vector_quadrature._weighted_nodes

    def counted(rule_pieces):
        result = weighted(rule_pieces)
        counts.append(len(result))
        return result

    monkeypatch.setattr(vector_quadrature, "_weighted_nodes", counted)
    return counts


def log_half_erfc(numerator: Fraction, square: Fraction = Fraction(1)) -> mpmath.mpf:
    """``ln(½ erfc(numerator/√square))`` for exact rationals, at the digits of ``ln`` of a
    number near ``e^{−x²}`` (600 digits before the point at ``x = 5·10^{299}``) plus 40."""
    size = abs(numerator) ** 2 / square
    with mpmath.workdps(40 + len(str(int(size)))):
        x = mpmath.mpf(numerator.numerator) / numerator.denominator
        return +mpmath.log(mpmath.erfc(x / mpmath.sqrt(mpmath.mpf(square.numerator)
                                                        / square.denominator)) / 2)


def run(*argv) -> subprocess.CompletedProcess:
    """``exactdp argv`` in a fresh interpreter (the timeout only guards against a hang)."""
    return subprocess.run([sys.executable, "-m", "exactdp", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=TIMEOUT)


# ------------------------------------------------------------------ work independent of σ

@pytest.mark.parametrize("queries", ["1,0", "1,0,0"])
def test_noisy_max_pieces_and_nodes_do_not_grow_as_sigma_shrinks(pieces, nodes, queries):
    counts = {}
    for sigma in SCALES:
        pieces.clear()
        nodes.clear()
        mech = exactdp.mechanism("noisy_max_gaussian", sigma=sigma)
        result = exactdp.probability(mech, queries, 1)
        counts[sigma] = (len(pieces), sum(nodes))
        # ½ erfc(1/(2σ)): exact on two answers, to e^{−1/(32σ²)} on three (module docstring)
        if queries == "1,0" or sigma != "1":
            reference = log_half_erfc(1 / (2 * Fraction(sigma)))
            assert_encloses((result.log_lower, result.log_upper), reference, 25)
    pieces_at_one, nodes_at_one = counts["1"]
    for _sigma, (tried, evaluated) in counts.items():
        assert tried <= 2 * pieces_at_one and evaluated <= 2 * nodes_at_one, counts


@pytest.mark.parametrize("scale", ["sigma1", "sigma2"])
def test_gaussian_svt_pieces_do_not_grow_as_either_scale_shrinks(pieces, nodes, scale):
    """A narrow query noise makes each factor a step of width σ2 at its answer, next to a hub of
    scale 2: the rule cuts where the step saturates and leaves it out beyond, instead of
    grading the pieces towards it (before: 997 pieces at σ2 = 1e-300)."""
    counts = {}
    for sigma in SCALES:
        pieces.clear()
        nodes.clear()
        mech = exactdp.mechanism("svt_gaussian", **{scale: sigma})
        result = exactdp.probability(mech, "1", "T")
        counts[sigma] = (len(pieces), sum(nodes))
        sigma1, sigma2 = (Fraction(sigma), 4) if scale == "sigma1" else (2, Fraction(sigma))
        # Φ(1/√(σ1² + σ2²)) = ½ erfc(−1/√(2(σ1² + σ2²)))
        reference = log_half_erfc(Fraction(-1), 2 * (sigma1 ** 2 + sigma2 ** 2))
        assert_encloses((result.log_lower, result.log_upper), reference, 25)
    pieces_at_one, nodes_at_one = counts["1"]
    for _sigma, (tried, evaluated) in counts.items():
        assert tried <= 2 * pieces_at_one and evaluated <= 2 * nodes_at_one, counts


def test_scale_invariance_at_sigma_1e_300():
    """Answers ``σ·(1, 0, 0)`` with noise ``N(0, σ²)`` have the output law of ``(1, 0, 0)``
    with ``N(0, 1)``: two different integrals, whose enclosures must overlap."""
    unit = exactdp.mechanism("noisy_max_gaussian", sigma=1)
    tiny = exactdp.mechanism("noisy_max_gaussian", sigma="1e-300")
    for index in range(3):
        reference = exactdp.probability(unit, "1,0,0", index)
        scaled = exactdp.probability(tiny, "1e-300,0,0", index)
        assert scaled.lower <= reference.upper and reference.lower <= scaled.upper
        assert scaled.relative_width <= mpmath.mpf("1e-29")


# ------------------------------------------------------------------ the command line

def json_enclosure(process: subprocess.CompletedProcess):
    """``(lower, upper)`` of the one record a ``--json`` divergence command printed."""
    assert process.returncode == 0, process.stderr
    (record,) = json.loads(process.stdout)
    return Fraction(record["lower"]), Fraction(record["upper"])


def test_renyi_of_noisy_max_answers_at_sigma_1e_5():
    """renyi noisy_max_gaussian --d1 0,0,0 --d2 1,0,0 --alpha 2 at sigma=1e-5 (it took 74 s
    before the scale-free bound, and 1e-6 did not finish)."""
    process = run("renyi", "noisy_max_gaussian", "--d1", "0,0,0", "--d2", "1,0,0", "--alpha",
                  "2", "--param", "sigma=1e-5", "--json")
    log_p = log_half_erfc(Fraction(10 ** 5, 2))  # Pr[1] = Pr[2] on (1, 0, 0)
    with mpmath.workdps(60):
        p = mpmath.exp(log_p)
        reference = mpmath.log((1 / (1 - 2 * p) + 2 / p) / 9)
    assert_encloses(json_enclosure(process), reference, 29)


@pytest.mark.parametrize("sigma", ["1e-6", "1e-300"])
def test_renyi_and_profile_answer_at_tiny_sigma(sigma):
    """On ``(0, 0)`` against ``(1, 0)``: ``D_2 = ln(¼/(1 − p) + ¼/p)`` and
    ``δ(1) = ½ − e·p`` with ``p = ½ erfc(1/(2σ))``."""
    log_p = log_half_erfc(1 / (2 * Fraction(sigma)))
    with mpmath.workdps(700):
        p = mpmath.exp(log_p)
        divergence = mpmath.log(1 / (4 * (1 - p)) + 1 / (4 * p))
        delta = mpmath.mpf(1) / 2 - mpmath.e * p
    pair = ("noisy_max_gaussian", "--d1", "0,0", "--d2", "1,0", "--param", f"sigma={sigma}",
            "--json")
    assert_encloses(json_enclosure(run("renyi", *pair, "--alpha", "2")), divergence, 29)
    assert_encloses(json_enclosure(run("profile", *pair, "--eps", "1")), delta, 29)


def test_a_probability_beyond_the_printable_range_is_refused_in_one_line():
    """``Pr = ½ erfc(5·10^{299}) ≈ 10^{−1.09·10^{599}}``: no decimal string Python's ``decimal``
    reads spells it; before, a traceback."""
    process = run("prob", "noisy_max_gaussian", "--queries", "1,0", "--output", "1", "--param",
                  "sigma=1e-300")
    assert process.returncode == 1 and process.stdout == ""
    assert process.stderr.count("\n") == 1 and "Traceback" not in process.stderr
    assert "decimal exponent" in process.stderr, process.stderr


def test_the_largest_sigma_answers():
    """``σ = 10^{15}`` (the largest number the command line reads): ``½ erfc(1/(2σ))``."""
    process = run("prob", "noisy_max_gaussian", "--queries", "1,0", "--output", "1", "--param",
                  "sigma=1e15", "--json")
    assert process.returncode == 0, process.stderr
    record = json.loads(process.stdout)
    with mpmath.workdps(60):
        reference = mpmath.erfc(mpmath.mpf(10) ** -15 / 2) / 2
    assert_encloses((Fraction(record["lower"]), Fraction(record["upper"])), reference, 29)


# ------------------------------------------------------------------ the pieces of the fix

def test_gaussian_tail_slope_keeps_its_digits():
    """``(log F)' = p/F`` at ``x = −½`` for ``σ = 10^{−30}`` is about ``5·10^{59}``; from
    ``e^{log p − log F}`` at 30 digits it had none (the two logs, near ``−1.25·10^{59}``, lose
    59 digits).  Reference: the same formula at 200 digits."""
    law = Gaussian(Fraction(1, 10 ** 30))
    x = -mpmath.mpf(1) / 2
    with mpmath.workdps(200):
        reference = mpmath.exp(law.logpdf(x) - law.logcdf(x))
    with mpmath.workdps(30):
        assert abs(law.dlogcdf(x) / reference - 1) < mpmath.mpf("1e-25")
        assert abs(law.dlogsf(-x) / -reference - 1) < mpmath.mpf("1e-25")
    with ctx.workprec(128):
        ball = law.ball_log(Kind.CDF).slope(arb(-1) / 2)  # a ball: ½ is exact, 1/σ√2 is not
        assert ball.rel_accuracy_bits() > 100
        assert abs(mpmath.mpf(ball.mid().str(40, radius=False)) / reference - 1) < 1e-30


def test_erfc_of_a_ball_far_out_keeps_its_digits():
    """Arb's ``erfc`` of a ball (not a point) near ``3.5·10^5`` returned a ball holding 0; the
    law's CDF there (``σ = 10^{−6}``, half a unit left of its centre) is ``½ erfc(353553.39…)``.
    Reference: mpmath at 60 digits."""
    law = Gaussian(Fraction(1, 10 ** 6))
    with ctx.workprec(200):
        value = law.ball_log(Kind.CDF).value(arb(-1) / 2 + arb(0, 2.0 ** -190))
        assert value.rel_accuracy_bits() > 120
    with mpmath.workdps(60):
        reference = mpmath.erfc(mpmath.mpf(10) ** 6 / 2 / mpmath.sqrt(2)) / 2
    assert abs(mpmath.mpf(value.mid().str(40, radius=False)) / reference - 1) < 1e-35


@pytest.mark.parametrize("kind", [Kind.PDF, Kind.CDF, Kind.SF])
def test_gaussian_off_axis_growth_bounds_the_continuation(kind):
    """``|g(x + iy)| ≤ g(x)·e^{y²/(2σ²)}`` (``NoiseLaw.off_axis_growth``) on a grid of points,
    in both tails and off the axis by up to four scales."""
    law = Gaussian(Fraction(3, 7))
    with ctx.workprec(64):
        functions, growth = law.ball_log(kind), to_arb(law.off_axis_growth())
        for x in (-5, -1, Fraction(-1, 3), 0, Fraction(1, 2), 2, 6):
            for y in (Fraction(1, 10), Fraction(1, 2), 1, Fraction(7, 4)):
                modulus = abs(functions.value(acb(to_arb(x), to_arb(y))))
                bound = functions.value(to_arb(x)) * (growth * to_arb(y) ** 2).exp()
                assert modulus <= bound * (1 + arb(2) ** -40), (kind, x, y)


def test_bisection_stops_where_the_precision_stops():
    """A tolerance finer than the working precision resolves at the point (``10^{−45}`` at 25,
    with 30 digits) ended the bisection only by luck: it must stop at the resolution."""
    calls = []

    def below(z):
        calls.append(z)
        assert len(calls) < 10_000, "the bisection does not stop"
        return z < 25 + mpmath.mpf("1e-40")

    with mpmath.workdps(30):
        point = peak_search.bisect(below, mpmath.mpf(0), mpmath.mpf(100), mpmath.mpf("1e-45"))
        assert abs(point - 25) < mpmath.mpf("1e-27")


def test_a_piece_too_long_for_a_small_ellipse_tries_larger_ones():
    """An integrand bounded by 1 everywhere: on the ellipse ``ρ = 2`` a tolerance of ``2^{−150}``
    needs 77 nodes (more than ``MAX_ORDER``), on ``ρ = 4`` 39.  Starting from ``ρ = 2`` (the
    previous piece's choice), the rule only looked at smaller ellipses and gave up, and the
    piece was halved without end (the bound does not depend on the piece's length)."""
    with ctx.workprec(128):
        found = vector_quadrature._rule(lambda ball, middle: arb(1), Fraction(0), arb(0),
                                        arb(1), arb(2) ** -150, start=0)
    assert found is not None
    order, error, index = found
    assert order <= vector_quadrature.MAX_ORDER and vector_quadrature.RHOS[index] > 2
    assert error <= arb(2) ** -150
