"""The coarsened composition: a certified bracket of δ_K(ε) from losses coarsened to a grid
(``exact/divergences/coarsened_composition.py``), used by ``privacy_profile(…, compositions=K)``
and ``exactdp profile --compose K`` when the exact sum over types is too large.

References are independent of the code under test: brute-force sums over every tuple of K
outputs from each output's probability computed on its own (``tests/test_compose.py``), the exact
sum over types (itself checked there against the brute force), and Balle & Wang's closed form
(ICML 2018, Theorem 8) with mpmath's ``ncdf`` at the composed shift ``√K·Δ``.
"""

import json
import random
from fractions import Fraction

import mpmath
import pytest
from flint import arb

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.exact.backends.piece_series import flint_context
from exactdp.exact.divergences.coarsened_composition import (_majorant_bound,
                                                             coarsened_profile, grid_bracket,
                                                             grid_cells)
from exactdp.exact.divergences.output_pairs import OutputPair
from exactdp.exact.divergences.loss_distribution import (LossAtoms, loss_atoms,
                                                         pair_loss_atoms)
from exactdp.exact.losses.privacy_loss import neighbouring_pair, possible_outputs
from exactdp.precision import Enclosure, to_arb
from .conftest import assert_encloses
from .test_compose import (balle_wang_delta, brute_force_composed_delta,
                           output_probabilities)
from .test_profile import _mpf

SVT = exactdp.mechanism("svt1", eps=1, c=1)
EPS = [Fraction(0), Fraction(1, 4), Fraction(1)]


def svt_atoms(d1, d2):
    return pair_loss_atoms(SVT, *neighbouring_pair(SVT, d1, d2, False), 40)


def test_the_bracket_contains_the_brute_force_over_tuples():
    # 4 queries, d2 = 1^4: 5 outputs of distinct losses; K = 3: 125 tuples
    d1, d2 = [0] * 4, [1] * 4
    outputs = [list(output) for output in possible_outputs(SVT, 4)]
    brackets = coarsened_profile(svt_atoms(d1, d2), EPS, 3, dps=6)
    with mpmath.workdps(40):
        p1, p2 = (output_probabilities(SVT, d, outputs) for d in (d1, d2))
        for eps, bracket in zip(EPS, brackets):
            assert_encloses(bracket.delta, brute_force_composed_delta(p1, p2, 3, eps), 6,
                            absolute=True)


def test_the_bracket_contains_the_exact_sum_over_types():
    # 10 queries, 11 distinct losses, K = 5: 3,003 types, summed exactly by the exact path
    d1, d2 = [0] * 10, [1] * 10
    exact = exactdp.privacy_profile(SVT, d1, d2, EPS, dps=20, compositions=5)
    assert all(point.grid_step is None for point in exact)
    for point, bracket in zip(exact, coarsened_profile(svt_atoms(d1, d2), EPS, 5, dps=5)):
        assert_encloses(bracket.delta, point.delta.value, 5, absolute=True)


def test_the_bracket_with_an_infinite_loss_contains_the_brute_force():
    # P = (1/2, 1/4, 1/4), Q = (1/4, 3/4, 0): losses ln 2, ln(1/3), +∞ (mass 1/4)
    p1 = [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)]
    p2 = [Fraction(1, 4), Fraction(3, 4), Fraction(0)]
    with flint_context(200):
        atoms = loss_atoms([OutputPair(to_arb(a), to_arb(b)) for a, b in zip(p1, p2)], 200)
    brackets = coarsened_profile(atoms, EPS, 6, dps=8)
    with mpmath.workdps(40):
        for eps, bracket in zip(EPS, brackets):
            reference = brute_force_composed_delta([_mpf(p) for p in p1],
                                                   [_mpf(p) for p in p2], 6, eps)
            assert_encloses(bracket.delta, reference, 8, absolute=True)


@pytest.mark.parametrize("seed", range(24))
def test_the_majorant_bounds_every_distribution_on_a_cell(seed):
    # random point masses R_i on [0, w] (the cell of one level), the hinge's kink r inside:
    # Σ p_i (1 − e^{r − R_i})₊ in mpmath is at most the bound from the three moments
    rng = random.Random(seed)
    width = Fraction(rng.randint(1, 60), 1000)
    reach = width * Fraction(rng.randint(1, 99), 100)
    points = [width * Fraction(rng.randint(0, 1000), 1000) for _ in range(rng.randint(1, 5))]
    weights = [Fraction(rng.randint(1, 100), 1000) for _ in points]
    with flint_context(128):
        mass = sum((to_arb(p) for p in weights), arb(0))
        moment = sum((to_arb(p * x) for p, x in zip(weights, points)), arb(0))
        shifted = sum((to_arb(p) * (-to_arb(x)).exp() for p, x in zip(weights, points)), arb(0))
        bound = _majorant_bound(mass, moment, shifted, reach, width)
    with mpmath.workdps(40):
        exact = mpmath.fsum(_mpf(p) * max(0, 1 - mpmath.exp(_mpf(reach - x)))
                            for p, x in zip(weights, points))
        upper = Enclosure.of_ball(bound).upper
        assert exact <= upper
        if len(points) == 1:   # one point: no spread, the bound is nearly exact
            assert upper - exact < _mpf(width) / 100


def gaussian_atoms(mu: mpmath.mpf, step: Fraction, edges: int, side: str) -> LossAtoms:
    """The Gaussian PLD (``L ~ N(μ²/2, μ²)`` under ``d1``, Sommer, Meiser & Mohammadi, PoPETs
    2019) discretised on ``edges`` grid points ``a_i = i·step`` around its mean: each interval's
    mass on ``a_{i+1}`` (``side="up"``, pessimistic: the upper tail infinite, the lower tail
    on ``a_0``) or on ``a_i`` (``"down"``, optimistic: the lower tail dropped, the upper on the
    last point).  Every loss rounded up (down) makes δ of every composition larger (smaller)."""
    centre = int(mu ** 2 / 2 * step.denominator / step.numerator)
    points = [(centre + i - edges // 2) * step for i in range(edges)]
    cdf = [mpmath.ncdf((mpmath.mpf(a.numerator) / a.denominator - mu ** 2 / 2) / mu)
           for a in points]
    masses = [b - a for a, b in zip(cdf, cdf[1:])]
    if side == "up":
        losses, masses, infinity = points, [cdf[0]] + masses, 1 - cdf[-1]
    else:
        losses, masses, infinity = points, masses + [1 - cdf[-1]], 0
    balls = [arb(mpmath.nstr(mass, 40)) for mass in masses]
    return LossAtoms([arb(loss.numerator) / loss.denominator for loss in losses], balls,
                     arb(mpmath.nstr(infinity, 40)))


@pytest.mark.parametrize("compositions", [4, 16])
def test_the_brackets_of_the_rounded_gaussian_contain_the_closed_form(compositions):
    # σ = 4, Δ = 1: μ = 1/4; K runs are one run of shift √K (Balle & Wang at σ = 4)
    step = Fraction(1, 512)
    with mpmath.workdps(40), flint_context(128):
        mu = mpmath.mpf(1) / 4
        up, down = (gaussian_atoms(mu, step, 1024, side) for side in ("up", "down"))
        grid = grid_cells(up.losses, step)
        assert grid.width == 0   # losses on the grid: every cell a point
        uppers = [high for _, high in grid_bracket(up, EPS, compositions, grid)]
        lowers = [low for low, _ in grid_bracket(down, EPS, compositions, grid)]
        for eps, low, high in zip(EPS, lowers, uppers):
            reference = balle_wang_delta(eps, 4, mpmath.sqrt(compositions))
            assert_encloses(Enclosure.of_ball(low.union(high)), reference, 2, absolute=True)


def test_the_bracket_narrows_as_the_step_shrinks():
    atoms = svt_atoms([0] * 10, [1] * 10)
    gaps = []
    with flint_context(128):
        for step in (Fraction(1, 128), Fraction(1, 512), Fraction(1, 2048)):
            low, high = grid_bracket(atoms, [Fraction(1, 2)], 40, grid_cells(atoms.losses,
                                                                             step))[0]
            gaps.append(high.upper() - low.lower())
    # the gap is about the mass of the levels straddling ε times their width, like h² (the
    # cells' width ρ varies with h): a step 4 times finer, a gap more than 4 times narrower
    assert gaps[0] > 4 * gaps[1] > 16 * gaps[2] > 0


def test_a_hundred_runs_of_eleven_distinct_losses_are_bracketed():
    eps_list = [0, "0.5"]
    coarse, fine = (exactdp.privacy_profile(SVT, [0] * 10, [1] * 10, eps_list, dps=dps,
                                            compositions=100) for dps in (3, 6))
    five = exactdp.privacy_profile(SVT, [0] * 10, [1] * 10, eps_list, dps=10, compositions=5)
    for wide, narrow, few in zip(coarse, fine, five):
        assert wide.grid_step > narrow.grid_step and few.grid_step is None
        # both brackets hold δ: they meet
        assert wide.delta.lower <= narrow.delta.upper and narrow.delta.lower <= wide.delta.upper
        assert narrow.delta.upper - narrow.delta.lower <= mpmath.mpf("2e-6")
        # 5 runs are a post-processing of 100 (drop 95 of them): δ cannot be larger
        assert few.delta.upper < narrow.delta.lower


def test_too_many_runs_are_refused_with_the_size():
    with pytest.raises(InputError, match=r"1001-fold composition of 11 distinct losses has "
                                         r"2\.940e\+23 atoms.*more than 1,000 runs"):
        exactdp.privacy_profile(SVT, [0] * 10, [1] * 10, [0], compositions=1001)


def test_cli_coarsened_composition_says_so_and_prints_both_ends(capsys):
    arguments = ["profile", "svt1", "--param", "c=1", "--d1", "0*10", "--d2", "1*10",
                 "--eps", "0,1", "--compose", "40", "--dps", "12"]
    assert main(arguments) == 0
    table = capsys.readouterr().out
    assert "coarsened to a grid of step" in table and "wider than the 10^-12 asked" in table
    assert main(arguments[:-1] + ["3", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    for record in records:
        lower, upper = mpmath.mpf(record["lower"]), mpmath.mpf(record["upper"])
        assert 0 < lower < upper < 1 and Fraction(record["grid_step"]) > 0


def test_cli_too_many_runs_exits_2_naming_the_size(capsys):
    code = main(["profile", "svt1", "--d1", "0*10", "--d2", "1*10", "--eps", "0",
                 "--compose", "5000"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "atoms" in err and "5000-fold" in err
