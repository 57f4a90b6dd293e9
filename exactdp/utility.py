"""Exact expected utility of selection mechanisms: the probability that each query is selected,
and from it the expected false negative rate and score error rate.

Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6),
2017 (arXiv:1603.01699), §4–6, compare Sparse Vector variants and the exponential mechanism by
the false negative rate (the fraction of the true top ``c`` missed) and the score error rate.
Both are linear in the selection indicators, so their expectations are

    E[FNR] = 1 − Σ_{i ∈ top c} P_i / c,        E[SER] = 1 − Σ_i P_i q_i / Σ_{i ∈ top c} q_i,

with ``P_i = Pr[query i is selected]`` and the top ``c`` the ``c`` largest answers (ties: the
lower index first).  Each ``P_i`` is one integral over one noise of a product of independent
pass probabilities, summed by a truncated generating polynomial (docs/mathematics.md, "Selection
probabilities"):

* Sparse Vector with ⊤/⊥ outputs and a cutoff ``c`` (threshold noise ``z`` drawn once):
  ``P_i = ∫ p_ρ(z) S_i(z) Pr[fewer than c of the queries before i pass | z] dz``, with
  ``S_j(z) = Pr[q_j + ν_j ≥ T + z]``; in a uniformly random order the last factor becomes
  ``Σ_m Pr[m of the others pass | z]·min(1, c/(m + 1))``;
* the exponential mechanism run ``c`` times without replacement (``em_top``): the top ``c`` of
  ``q_i + Gumbel(β)`` (McSherry & Talwar 2007; Durfee & Rogers, NeurIPS 2019, "Practical
  differentially private top-k selection with pay-what-you-get composition", §3), so
  ``P_i = ∫ g_β(x − q_i) Pr[fewer than c others exceed x] dx``.

The integrals are certified (``exact/vector_quadrature.py``): each ``P_i`` is an Arb ball.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, arb_poly, acb_poly, acb, ctx

from .errors import InputError, PrecisionError
from .mechanisms.base import OutputKind
from .mechanisms.description import ThresholdMechanism
from .mechanisms.selection import ExponentialTopMechanism
from .noise import Kind
from .precision import check_dps, to_arb
from .sequences import as_queries
from .exact.vector_quadrature import integrate_vector

ORDERS = ("given", "random")


@dataclass(frozen=True)
class Utility:
    """Selection probabilities and expected utility of one mechanism on one query vector.

    Attributes
    ----------
    selection : list of arb
        ``P_i``, certified enclosures.
    fnr, ser : arb or None
        ``E[FNR]`` and ``E[SER]`` (``ser`` is ``None`` when ``Σ_{top c} q_i ≤ 0``).
    top : tuple of int
        The indices of the true top ``c``.
    """

    selection: list
    fnr: arb
    ser: arb | None
    top: tuple


def _cutoff_of(mech) -> int:
    if isinstance(mech, ExponentialTopMechanism):
        return mech.c
    if not isinstance(mech, ThresholdMechanism) or mech.cutoff is None:
        raise InputError(f"utility needs a selection mechanism with a cutoff c (a ⊤/⊥ Sparse "
                         f"Vector variant or em_top), got {mech.name}")
    if mech.output_kind is not OutputKind.FLAGS:
        raise InputError(f"utility needs ⊤/⊥ outputs, but {mech.name} releases numbers")
    if mech.redraw_threshold:
        raise InputError(f"utility has no rule for {mech.name}: its threshold is redrawn after "
                         f"each ⊤")
    if mech.query_noise.is_point_mass:
        raise InputError(f"utility needs query noise, but {mech.name} has none")
    return mech.cutoff


def _checked(mech, queries, order):
    if order not in ORDERS:
        raise InputError(f"order must be given or random, got {order!r}")
    values = as_queries(queries).expand()
    c = _cutoff_of(mech)
    if c > len(values):
        raise InputError(f"the cutoff c={c} exceeds the number of queries ({len(values)})")
    if order == "random" and isinstance(mech, ExponentialTopMechanism):
        order = "given"  # the exponential mechanism does not depend on the order
    return values, c, order


def selection_probabilities(mech, queries, order: str = "given", dps: int = 15,
                            progress=None) -> list:
    """``P_i = Pr[query i is selected]`` for each query, as Arb balls with absolute radius about
    ``10^{−dps}`` (module docstring).

    Parameters
    ----------
    mech : ThresholdMechanism or ExponentialTopMechanism
        A ⊤/⊥ Sparse Vector variant with a cutoff, or ``em_top``.
    queries : str or sequence of numbers
        The query answers ``q_i``.
    order : {"given", "random"}
        Queries examined in the given order, or in a uniformly random one (the probability
        averaged over every order).
    dps : int
        Decimal digits of absolute accuracy aimed at.
    progress : callable, optional
        Called with the number of finished quadrature pieces.

    Examples
    --------
    >>> from exactdp import mechanism
    >>> p = selection_probabilities(mechanism("svt1", eps=1, c=1), [3, 0], dps=10)
    >>> p[0] > p[1] > 0
    True
    """
    dps = check_dps(dps)
    values, c, order = _checked(mech, queries, order)
    bits = int((dps + 8) * math.log2(10)) + 2 * len(values).bit_length() + 20
    with ctx.workprec(bits):
        tolerance = arb(10) ** (-(dps + 1))
        if isinstance(mech, ExponentialTopMechanism):
            return _exponential_top(mech, values, c, tolerance, progress)
        return _sparse_vector(mech, values, c, order, tolerance, progress)


def expected_utility(mech, queries, order: str = "given", dps: int = 15,
                     progress=None) -> Utility:
    """The selection probabilities and ``E[FNR]``, ``E[SER]`` (module docstring).

    Examples
    --------
    >>> from exactdp import mechanism
    >>> u = expected_utility(mechanism("em_top", eps=1, c=1), [2, 0, 0], dps=10)
    >>> bool(0 < u.fnr < 1), u.top
    (True, (0,))
    """
    values, c, _ = _checked(mech, queries, order)
    selection = selection_probabilities(mech, queries, order, dps, progress)
    bits = int((dps + 8) * math.log2(10)) + 20
    with ctx.workprec(bits):
        top = tuple(sorted(sorted(range(len(values)), key=lambda i: (-values[i], i))[:c]))
        fnr = 1 - sum((selection[i] for i in top), arb(0)) / c
        best = sum((values[i] for i in top), Fraction(0))
        ser = None
        if best > 0:
            gained = sum((p * to_arb(q) for p, q in zip(selection, values)), arb(0))
            ser = 1 - gained / to_arb(best)
    return Utility(selection, fnr, ser, top)


# --- Sparse Vector: one threshold noise z ------------------------------------------------------

def _sparse_vector(mech: ThresholdMechanism, values: list, c: int, order: str,
                   tolerance: arb, progress) -> list:
    hub, noise = mech.threshold_noise, mech.query_noise
    threshold = mech.threshold
    distinct = sorted(set(values))
    # pass iff ν_j ≥ T + z − q_j: the kinks of ν's functions at z = q_j − T + kink
    kinks = {q - threshold + k for q in distinct for k in noise.kink_points()}
    kinks.update(hub.kink_points())
    low, high, tails = _hub_range(hub, tolerance)
    cuts = sorted({low, high} | {k for k in kinks if low < k < high})
    index = {q: k for k, q in enumerate(distinct)}
    positions = [index[q] for q in values]
    shifts = [to_arb(threshold - q) for q in distinct]

    def evaluate(z, middle):
        density = hub.ball_log(Kind.PDF, hub.side(middle)).value(z)
        passes, fails = [], []
        for q, shift in zip(distinct, shifts):
            side = noise.side(threshold + middle - q)
            passes.append(noise.ball_log(Kind.SF, side).value(z + shift))
            fails.append(noise.ball_log(Kind.CDF, side).value(z + shift))
        pass_ = [passes[k] for k in positions]
        fail = [fails[k] for k in positions]
        factor = (_fewer_before if order == "given" else _fewer_random)(pass_, fail, c,
                                                                         isinstance(z, acb))
        return [density * s * f for s, f in zip(pass_, factor)]

    return integrate_vector(evaluate, cuts, tails, tolerance, progress)


def _hub_range(law, tolerance: arb):
    """``(z_L, z_R, tail)``: exact points outside which the law has mass at most ``tail``
    (below a quarter of ``tolerance``); every integrand is at most the law's density."""
    target = tolerance / 8
    ends = []
    for kind, direction in ((Kind.CDF, -1), (Kind.SF, 1)):
        width = Fraction(law.scale)
        while True:
            point = law.median * law.scale + direction * width
            mass = law.ball_log(kind, law.side(point)).value(to_arb(point))
            if mass < target:
                ends.append((point, arb(mass.upper())))
                break
            width *= 2
    return ends[0][0], ends[1][0], ends[0][1] + ends[1][1]


def _poly(complex_: bool):
    return acb_poly if complex_ else arb_poly


def _fewer_before(passes: list, fails: list, c: int, complex_: bool) -> list:
    """``Pr[fewer than c of the queries before i pass]`` for each ``i``: the coefficients of
    degree ``< c`` of ``Π_{j<i}(F_j + S_j x)``, summed (prefix products truncated at degree
    ``c``)."""
    poly_type = _poly(complex_)
    prefix = poly_type([1])
    result = []
    for s, f in zip(passes, fails):
        result.append(prefix(1))
        prefix = (prefix * poly_type([f, s])).truncate(c)
    return result


def _fewer_random(passes: list, fails: list, c: int, complex_: bool) -> list:
    """``Σ_m Pr[m of the others pass]·min(1, c/(m + 1))`` for each ``i`` (the probability that
    ``i``, if it passes, is among the first ``c`` passing queries of a uniformly random order;
    docs/mathematics.md).  With ``A_i = Π_{j<i}(F_j + S_j x)`` and the functional
    ``u^{(i)}_k = Σ_l [x^l]Π_{j>i}(F_j + S_j x)·w_{k+l}``, ``w_m = min(1, c/(m + 1))``, it is
    ``Σ_k [x^k]A_i·u^{(i)}_k``; ``u^{(i−1)}_k = F_i u^{(i)}_k + S_i u^{(i)}_{k+1}``."""
    n = len(passes)
    poly_type = _poly(complex_)
    weights = [arb(1) if m < c else arb(c) / (m + 1) for m in range(n)]
    functional = [None] * n
    current = poly_type(weights)
    for i in range(n - 1, -1, -1):
        functional[i] = current.coeffs()[:i + 1]
        current = current * fails[i] + current.right_shift(1) * passes[i]
    result, prefix = [], poly_type([1])
    for i in range(n):
        coefficients = prefix.coeffs()
        result.append(sum((a * u for a, u in zip(coefficients, functional[i])),
                          poly_type([0])(0)))
        prefix = prefix * poly_type([fails[i], passes[i]])
    return result


# --- the exponential mechanism, top c by Gumbel noise ------------------------------------------

def _exponential_top(mech: ExponentialTopMechanism, values: list, c: int, tolerance: arb,
                     progress) -> list:
    noise = mech.noise
    distinct = sorted(set(values))
    low_hub, high_hub, tails = _hub_range(noise, tolerance)
    low, high = distinct[0] + low_hub, distinct[-1] + high_hub
    steps = max(1, math.ceil((high - low) / noise.scale))
    cuts = [low + (high - low) * Fraction(k, steps) for k in range(steps + 1)]
    index = {q: k for k, q in enumerate(distinct)}
    positions = [index[q] for q in values]
    shifts = [to_arb(q) for q in distinct]
    density_of, below_of, above_of = (noise.ball_log(kind) for kind in (Kind.PDF, Kind.CDF,
                                                                          Kind.SF))

    def evaluate(x, _middle):
        densities = [density_of.value(x - shift) for shift in shifts]
        below = [below_of.value(x - shift) for shift in shifts]
        above = [above_of.value(x - shift) for shift in shifts]
        fewer = _fewer_others([above[k] for k in positions], [below[k] for k in positions], c,
                              isinstance(x, acb))
        return [densities[k] * f for k, f in zip(positions, fewer)]

    return integrate_vector(evaluate, cuts, tails * len(distinct), tolerance, progress)


def _fewer_others(passes: list, fails: list, c: int, complex_: bool) -> list:
    """``[y^{<c}] Π_{j≠i}(F_j + S_j y)`` for each ``i``: prefix and suffix products truncated at
    degree ``c``, ``Σ_{k<c} [y^k]A_i · Σ_{l<c−k} [y^l]B_i``."""
    n = len(passes)
    poly_type = _poly(complex_)
    suffix_sums = [None] * n
    current = poly_type([1])
    for i in range(n - 1, -1, -1):
        coefficients = current.coeffs() + [0] * (c - current.length())
        running, cumulative = 0, []
        for value in coefficients[:c]:
            running = running + value
            cumulative.append(running)
        suffix_sums[i] = cumulative  # cumulative[l] = Σ_{l' ≤ l} [y^{l'}]B_i
        current = (current * poly_type([fails[i], passes[i]])).truncate(c)
    result, prefix = [], poly_type([1])
    for i in range(n):
        coefficients = prefix.coeffs()
        result.append(sum((a * suffix_sums[i][c - 1 - k] for k, a in enumerate(coefficients)),
                          poly_type([0])(0)))
        prefix = (prefix * poly_type([fails[i], passes[i]])).truncate(c)
    return result
