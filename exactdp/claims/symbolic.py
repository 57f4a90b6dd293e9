"""Closed forms behind the claims, derived with sympy as expressions in ε (and m or c).

Every function derives its result from the Laplace densities (``docs/mathematics.md`` §2; it does
not type in the paper's answer), so the tests can compare the derivation with the paper and with
the exact engine.

Notation: ``b_ρ`` threshold-noise scale, ``b_ν`` query-noise scale, ``T = 0``, sensitivity 1;
⊥ at query q means ``q + ν < z`` (probability ``F_{b_ν}(z − q)``), ⊤ means ``q + ν ≥ z``
(probability ``S_{b_ν}(z − q) = F_{b_ν}(q − z)``), where z is the noisy threshold.

Examples
--------
>>> from exactdp.claims import symbolic
>>> symbolic.shift_limit(4 / symbolic.EPS, 4 / (3 * symbolic.EPS), symbolic.C)
epsilon*(6*c + 1)/4

References
----------
.. [1] M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
   Privacy", PVLDB 10(6):637–648, 2017, arXiv:1603.01699: §3.2, Appendix 9.1–9.2.
.. [2] Y. Chen and A. Machanavajjhala, "On the Privacy Properties of Variants on the Sparse
   Vector Technique", arXiv:1508.07306, 2015: the proof of Thm 4.7.
"""

from __future__ import annotations

import functools

import mpmath
import sympy as sp

EPS = sp.Symbol("epsilon", positive=True)
EPS1 = sp.Symbol("epsilon_1", positive=True)
EPS2 = sp.Symbol("epsilon_2", positive=True)
M = sp.Symbol("m", positive=True, integer=True)
C = sp.Symbol("c", positive=True, integer=True)
Z = sp.Symbol("z", real=True)
#: Symbols of the general Alg. 3 density: query value, last query value, noise scales.
Q = sp.Symbol("q", nonnegative=True)
Q_LAST = sp.Symbol("q_L", real=True)
B_RHO = sp.Symbol("b_rho", positive=True)
B_NU = sp.Symbol("b_nu", positive=True)
_B = sp.Symbol("b", positive=True)
_HALF = sp.Rational(1, 2)


def laplace_pdf(x, b):
    """``p_b(x) = e^{−|x|/b} / (2b)``."""
    return sp.exp(-sp.Abs(x) / b) / (2 * b)


def laplace_cdf(x, b, negative: bool):
    """The branch of ``F_b(x)`` for ``x < 0`` (``½e^{x/b}``) or ``x ≥ 0`` (``1 − ½e^{−x/b}``)."""
    return sp.exp(x / b) / 2 if negative else 1 - sp.exp(-x / b) / 2


@functools.lru_cache(maxsize=None)
def no_noise_probability(bottom: tuple, top: tuple, b_rho):
    """``Pr[a]`` for a mechanism without query noise (``svt5``, ``gptt`` with ε2 = ∞).

    Notes
    -----
    Without query noise ⊥ at q means ``z > q`` and ⊤ means ``z ≤ q``, so
    ``Pr[a] = ∫_R p_{b_ρ}(z) dz`` over ``R = ∩_{⊥} (q, ∞) ∩ ∩_{⊤} (−∞, q]``.  When R is empty the
    probability is an exact zero (Chen & Machanavajjhala, proof of Thm 4.7; Lyu et al. Thm 3.5).
    Repeating a query any number of times does not change R, so the value does not depend on the
    number of copies.

    Examples
    --------
    >>> no_noise_probability((0,), (1,), 2 / EPS)   # Lyu et al. §3.2: D = (0, 1), a = (⊥, ⊤)
    1/2 - exp(-epsilon/2)/2
    >>> no_noise_probability((1,), (0,), 2 / EPS)   # D' = (1, 0)
    0
    """
    region = sp.Intersection(*(sp.Interval.open(q, sp.oo) for q in bottom),
                             *(sp.Interval(-sp.oo, q) for q in top))
    if region is sp.S.EmptySet:
        return sp.S.Zero
    return sp.simplify(sp.integrate(laplace_pdf(Z, b_rho), (Z, region.inf, region.sup)))


@functools.lru_cache(maxsize=None)
def svt3_density(q, q_last, b_rho, b_nu):
    """Density of ``a = (⊥^m, 0)`` for Alg. 3 (c = 1) on ``D = (q^m, q_last)``, ``q ≥ 0``.

    Notes
    -----
    Lyu et al., Appendix 9.1, Eq. (13): releasing ``v = 0`` at the last query forces ``z ≤ 0``, so
    ``f(a) = p_{b_ν}(0 − q_last) ∫_{−∞}^0 p_{b_ρ}(z) F_{b_ν}(z − q)^m dz`` and on ``z ≤ 0`` every
    CDF is on its left branch: ``2^{−m−1} e^{−mq/b_ν} / (1 + m b_ρ/b_ν) · p_{b_ν}(q_last)``.
    """
    integral = sp.integrate(laplace_pdf(Z, b_rho).subs(sp.Abs(Z), -Z)
                            * laplace_cdf(Z - q, b_nu, negative=True) ** M,
                            (Z, -sp.oo, 0), conds="none")
    return sp.simplify(integral * laplace_pdf(-q_last, b_nu))


def svt3_log_ratio(q_last_d, q_last_d2):
    """``ln(f_D(a) / f_D'(a))`` for Alg. 3 with ε budget, c = 1, ``D = (0^m, q_last_d)``,
    ``D' = (1^m, q_last_d2)``, ``a = (⊥^m, 0)``: ``mε/2`` for a fixed last query (0 vs 0),
    ``(m−1)ε/2`` for a moving one (1 vs 0) (Lyu et al., Appendix 9.1).

    Examples
    --------
    >>> svt3_log_ratio(0, 0)
    epsilon*m/2
    """
    b_rho = b_nu = 2 / EPS
    ratio = svt3_density(0, q_last_d, b_rho, b_nu) / svt3_density(1, q_last_d2, b_rho, b_nu)
    return sp.factor(sp.simplify(sp.expand_log(sp.log(sp.simplify(ratio)), force=True)))


def pair_ratio_pieces(b):
    """The per-copy integrand ratio ``κ(z) = F(z)S(z−1) / (F(z−1)S(z))`` of the (⊥ at 0, ⊤ at 1)
    vs (⊥ at 1, ⊤ at 0) pair, divided by ``e^{1/b}``, on ``z < 0``, ``0 ≤ z < 1``, ``z ≥ 1``.

    Notes
    -----
    Lyu et al., Appendix 9.2 (``svt6``, ``b = 2/ε``) and Chen & Machanavajjhala's κ(z) (GPTT,
    ``b = 1/ε2``).  Each piece is ≥ 1 (``(2 − e^{(z−1)/b})/(2 − e^{z/b})``,
    ``(2 − e^{−z/b})(2 − e^{(z−1)/b})`` and ``(2e^{z/b} − 1)/(2e^{z/b} − e^{1/b})``), so
    ``κ(z) ≥ e^{1/b}`` everywhere and the ratio of the integrals is at least ``e^{t/b}``.

    Returns
    -------
    tuple of (str, sympy expression)
    """
    def ratio(z_negative, z_below_one):
        f = functools.partial(laplace_cdf, b=b)
        numerator = f(Z, negative=z_negative) * f(1 - Z, negative=not z_below_one)
        denominator = f(Z - 1, negative=z_below_one) * f(-Z, negative=not z_negative)
        return sp.simplify(numerator / denominator * sp.exp(-1 / b))

    return (("z < 0", ratio(True, True)), ("0 ≤ z < 1", ratio(False, True)),
            ("z ≥ 1", ratio(False, False)))


def pair_ratio_infimum(b):
    """``inf_z κ(z) = lim_{z→±∞} κ(z) = e^{1/b}`` (see :func:`pair_ratio_pieces`).

    Examples
    --------
    >>> pair_ratio_infimum(2 / EPS)
    exp(epsilon/2)
    """
    (_, left), _, (_, right) = pair_ratio_pieces(b)
    low, high = sp.limit(left, Z, -sp.oo), sp.limit(right, Z, sp.oo)
    if sp.simplify(low - high) != 0:
        raise ArithmeticError(f"the two limits of κ(z) differ: {low} vs {high}")
    return sp.simplify(low * sp.exp(1 / b))


def copy_growth_rate(b_nu):
    """``lim_{t→∞} (1/t) ln(Pr_D/Pr_D')`` for ``D = (0^t, 1^t)``, ``D' = (1^t, 0^t)``,
    ``a = (⊥^t, ⊤^t)`` with query noise ``Lap(b_ν)`` (GPTT, Alg. 6).

    Notes
    -----
    Laplace's method: ``(1/t) ln ∫ p(z) A(z)^t dz → ln max A``.  Both per-copy integrands
    ``A(z) = F(z)S(z−1)`` and ``B(z) = F(z−1)S(z)`` are log-concave and symmetric about z = ½, so
    the rate is ``ln(A(½)/B(½)) = 2 ln(F(½)/F(−½)) = 2 ln(2e^{1/(2b_ν)} − 1)``.

    Examples
    --------
    >>> copy_growth_rate(2 / EPS)      # GPTT with ε2 = 1/2 ε, i.e. Alg. 6
    2*log(2*exp(epsilon/4) - 1)
    """
    peak_ratio = laplace_cdf(_HALF, _B, negative=False) / laplace_cdf(-_HALF, _B, negative=True)
    per_copy = peak_ratio ** 2
    rate = sp.expand_log(sp.log(sp.simplify(per_copy)), force=True)
    return sp.simplify(rate.subs(_B, b_nu))


def shift_limit(b_rho, b_nu, tops):
    """``lim ln(Pr_D/Pr_D')`` for ``D = (0^k, 1^tops)``, ``D' = (1^k, 0^tops)``,
    ``a = (⊥^k, ⊤^tops)`` as k → ∞ (Alg. 4 and Alg. 1 tightness).

    Notes
    -----
    As k grows the mass of both integrals moves to large z (the ⊥ factors ``F(z)^k`` vanish
    elsewhere), where every factor is on its right branch.  Substituting ``z → z + 1`` in
    ``Pr_D'`` turns its ⊥ factors into those of ``Pr_D``, so the ratio tends to the ratio of the
    remaining factors, ``p_{b_ρ}(z) S(z−1)^c / (p_{b_ρ}(z+1) S(z+1)^c) = e^{1/b_ρ + 2c/b_ν}``:
    ``(1+6c)ε/4`` for Alg. 4 (``b_ρ = 4/ε``, ``b_ν = 4/(3ε)``), ε for Alg. 1 with c ⊤'s and
    ε/2 for Alg. 1's all-⊥ outputs (c = 0; Lyu et al., Lemma 1).
    """
    def right_sf(x):
        return sp.exp(-x / b_nu) / 2

    def right_pdf(x):
        return sp.exp(-x / b_rho) / (2 * b_rho)

    ratio = right_pdf(Z) * right_sf(Z - 1) ** tops / (right_pdf(Z + 1) * right_sf(Z + 1) ** tops)
    return sp.factor(sp.simplify(sp.expand_log(sp.log(ratio), force=True)))


def numeric(expr, dps: int, **values) -> mpmath.mpf:
    """``expr`` with symbols replaced by ``values`` (by name), evaluated to ``dps`` digits.

    Examples
    --------
    >>> print(mpmath.nstr(numeric(copy_growth_rate(2 / EPS), 12, epsilon=1), 12))
    0.899666681295
    """
    symbols = {symbol.name: symbol for symbol in expr.free_symbols}
    substituted = expr.subs({symbols[name]: sp.nsimplify(value) for name, value in values.items()
                             if name in symbols})
    with mpmath.workdps(dps + 10):
        return mpmath.mpf(str(sp.N(substituted, dps + 10)))


def function(expr, variable, **values):
    """``expr`` as a fast mpmath function of ``variable``, other symbols fixed by ``values``.

    Examples
    --------
    >>> f = function(svt3_log_ratio(0, 0), M, epsilon=1)
    >>> print(f(10))
    5.0
    """
    symbols = {symbol.name: symbol for symbol in expr.free_symbols}
    fixed = expr.subs({symbols[name]: sp.nsimplify(value) for name, value in values.items()
                       if name in symbols})
    return sp.lambdify(variable, fixed, "mpmath")


def latex(expr) -> str:
    """``expr`` in LaTeX, for ``claims.md``."""
    return sp.latex(expr)
