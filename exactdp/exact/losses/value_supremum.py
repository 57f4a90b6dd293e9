"""``D_∞`` of report noisy max releasing its largest noisy value, certified: the supremum
``sup_v ln f1(v) − ln f2(v)`` over the values ``v`` that ``d1`` can produce, as an Arb-ball
enclosure, with a value that attains it, or the end where it is only approached.

The density of the largest value (``noisy_max.value_form``; StatDP's noisy max v1b/v2b: Ding,
Wang, Wang, Zhang & Kifer, "Detecting Violations of Differential Privacy", CCS 2018) is, with
``c_i`` copies of each distinct answer ``q_i``,

    f_d(v) = Σ_i c_i · p(v − q_i) · Π_j F(v − q_j)^{c_j − [j = i]}.

The method and its proof are in docs/mathematics.md §11 ("The largest noisy value"); for a
law with a piecewise exponential form (``NoiseLaw.piece``: Laplace, exponential):

1. *Pieces and coordinate.*  The distinct answers of both inputs cut the line into pieces.  On
   each, with ``V`` its finite end (the lower one; the upper one on the left tail) and
   ``σ = ±1`` accordingly, ``s = e^{−σ(v − V)/b} ∈ [s_0, 1]`` (0 at ``v = ±∞``) makes every
   factor ``C·s^k`` or ``1 − C·s^k``, ``k`` an integer, or zero on the whole piece.
2. *Factoring.*  ``f_d = s^{K_d} (1 − s)^{e_d} P_d(s)`` with ``P_d > 0`` on the closed piece
   (``e_d`` counts the factors vanishing at ``V``: an exponential CDF at its kink), so
   ``g = (K_1 − K_2) ln s + (e_1 − e_2) ln(1 − s) + ln P_1 − ln P_2``; on a tail
   ``K_1 = K_2``, and ``g`` is analytic up to its limit at ``±∞``.
3. *Infinite suprema.*  ``f1 > 0 = f2`` on a piece: ``+∞``, attained; ``e_1 < e_2``: ``+∞``
   approached as ``v → V``.
4. *Branch and bound* on boxes of ``s``: the mean-value bound ``g(c) + |g'(S)|·max|s − c|``,
   or ``g`` at one end where ``g'(S)`` has a sign (:meth:`_Piece.slope`); points give lower
   bounds; the box of the largest bound is split until it is within ``10^{−dps}`` (relative)
   of the largest lower bound.

The output is the evaluated value of the largest ``g``, rounded to a short decimal within the
enclosure; a limit (``±∞``, or ``V`` where ``f1(V) = 0``) is reported as approached only if it
is certainly above every evaluated output.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import mpmath
from flint import arb, arb_poly, arb_series

from ...errors import MethodUnavailableError, PrecisionError
from ...mechanisms.noisy_max import NoisyMaxMechanism
from ...precision import (COMBINE_GUARD_DIGITS, PART_GUARD_DIGITS, Enclosure, exact_mpf, to_arb,
                           working_bits)
from ...sequences import Runs, format_number
from ..form.noisy_max import answer_counts, value_form
from ..divergences.output_pairs import density_supremum
from ..backends.piece_series import flint_context

#: Boxes the branch and bound may examine per digit asked for before it gives up
#: (:class:`~exactdp.errors.PrecisionError`); a smooth maximum needs a few per halving.
BOXES_PER_DIGIT = 200


@dataclass(frozen=True)
class ValueSupremum:
    """``D_∞(M(d1) ‖ M(d2))`` of the largest noisy value and where it is reached.

    Attributes
    ----------
    divergence : Enclosure
        The supremum of ``ln f1(v) − ln f2(v)`` and its enclosure (``+inf`` when unbounded).
    output : Fraction or None
        A value whose loss lies in the enclosure (where ``f1 > 0 = f2`` for ``+∞``); ``None``
        when the supremum is only approached.
    approached : str or None
        Where an unattained supremum is approached: ``out0 → +inf``, ``out0 → -inf`` or
        ``out0 → V from above``.
    """

    divergence: Enclosure
    output: Fraction | None
    approached: str | None = None


def value_supremum(mech: NoisyMaxMechanism, d1: Runs, d2: Runs, dps: int) -> ValueSupremum:
    """``D_∞(M(d1) ‖ M(d2)) = sup_v ln(f1(v)/f2(v))`` for noisy max releasing its largest
    value, certified to ``dps`` digits (the module's docstring); exactly 0 when the inputs are
    the same multiset of answers (the same distribution).

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.sequences import Runs
    >>> m = exactdp.mechanism("noisy_max_laplace_value", eps=1)       # Lap(2)
    >>> result = value_supremum(m, Runs.from_items([0, 0]), Runs.from_items([1, 0]), 20)
    >>> print(mpmath.nstr(result.divergence.value, 15), result.output <= 0)   # 1/b at v ≤ 0
    0.5 True
    """
    law = mech.noise
    if not law.closed_form:
        raise MethodUnavailableError(f"{mech.name}: D_∞ of the largest value needs noise with a "
                                     f"piecewise exponential form, got {law}")
    answers1, answers2 = answer_counts(d1), answer_counts(d2)
    if answers1 == answers2:
        return ValueSupremum(Enclosure.of_ball(arb(0)), max(answers1) + law.scale)
    breaks = sorted(set(answers1) | set(answers2))
    ends = [None, *breaks, None]
    # the expansion of slope() cancels about a bit per power (certified.closed_piece)
    with flint_context(working_bits(dps + PART_GUARD_DIGITS, 2 ** len(d1), COMBINE_GUARD_DIGITS)):
        pieces = [_Piece(mech, d1, d2, low, high) for low, high in itertools.pairwise(ends)]
        infinite = _infinite(pieces)
        if infinite is not None:
            return infinite
        return _Search(pieces).supremum(dps, mech.name)


def _infinite(pieces: list[_Piece]) -> ValueSupremum | None:
    """``+∞`` where ``d1`` produces values ``d2`` cannot (attained), else where ``f2`` vanishes
    faster than ``f1`` at a piece's end (approached); ``None`` when ``g`` is bounded."""
    for piece in pieces:
        if piece.terms1 is not None and piece.terms2 is None:
            return ValueSupremum(Enclosure.of_ball(arb("inf")), piece.split(piece.low, piece.high))
    for piece in pieces:
        if piece.terms1 is not None and piece.beta < 0:
            return ValueSupremum(Enclosure.of_ball(arb("inf")), None, piece.approach(piece.anchor))
    return None


class _Term(NamedTuple):
    """One term of a density on a piece, in ``s``: ``constant · s^power · Π (1 − C·s^k)^m ·
    Π ((1 − s^k)/(1 − s))^m · (1 − s)^excess``, ``factors`` the ``(C, k, m)``, ``vanishing``
    the ``(k, m)``."""

    constant: arb
    power: int
    factors: tuple
    vanishing: tuple
    excess: int

    def at(self, x: arb_series) -> arb_series:
        """The term at ``s`` (a Taylor series in ``s``)."""
        value = self.constant * _power(x, self.power)
        for coefficient, exponent, power in self.factors:
            value *= _power(1 - coefficient * x ** exponent, power)
        for exponent, power in self.vanishing:
            value *= _power(sum((x ** k for k in range(exponent)), 0 * x), power)
        return value * _power(1 - x, self.excess)

    @property
    def lowest(self) -> int:
        """The lowest power of ``s`` in the expanded term."""
        return self.power + sum(k * m for _, k, m in self.factors if k < 0)

    def polynomial(self, shift: int) -> arb_poly:
        """``s^shift`` times the term, expanded (``shift ≥ −lowest``): a factor with ``k < 0``
        is ``s^k (s^{−k} − C)``."""
        poly = arb_poly([0] * (self.lowest + shift) + [self.constant])
        for coefficient, exponent, power in self.factors:
            ends = [1, -coefficient] if exponent >= 0 else [-coefficient, 1]
            poly *= arb_poly([ends[0]] + [0] * (abs(exponent) - 1) + [ends[1]]) ** power
        for exponent, power in self.vanishing:
            poly *= arb_poly([1] * exponent) ** power
        return poly * arb_poly([1, -1]) ** self.excess


def _term(law, term, middle: Fraction, anchor: Fraction, sigma: int) -> _Term | None:
    """A term of ``value_form`` at ``middle`` as a :class:`_Term` of the piece holding it
    (anchor ``V``, orientation ``σ``), power and excess not yet reduced; ``None`` where a factor
    vanishes on the whole piece."""
    constant, power, factors, vanishing, excess = to_arb(term.multiplicity), 0, [], [], 0
    for factor in term.constants:  # g(v − q)^m with v − q = factor.point at the middle
        low, high = law.positive_region(factor.kind)
        if (low is not None and factor.point <= low) or (high is not None and factor.point >= high):
            return None
        coefficient, rate, one_minus = law.piece(factor.kind, factor.point)
        exponent = -sigma * rate * law.scale
        if exponent.denominator != 1:
            raise MethodUnavailableError(f"{law}: a rate {rate} is not a multiple of 1/b")
        exponent, query = int(exponent), middle - factor.point
        at_anchor = to_arb(coefficient) * to_arb(rate * (anchor - query)).exp()  # C
        if not one_minus:
            constant *= at_anchor ** factor.power
            power += exponent * factor.power
        elif coefficient == 1 and query == anchor:  # 1 − s^k, zero at V
            vanishing.append((exponent, factor.power))
            excess += factor.power
        else:
            factors.append((at_anchor, exponent, factor.power))
    return _Term(constant, power, tuple(factors), tuple(vanishing), excess)


def _density(law, form, middle: Fraction, anchor: Fraction, sigma: int):
    """``(terms of P_d, K_d, e_d)`` on a piece; ``(None, 0, 0)`` where the density vanishes."""
    terms = [t for t in (_term(law, term, middle, anchor, sigma) for term in form.terms)
             if t is not None]
    if not terms:
        return None, 0, 0
    power, excess = min(t.power for t in terms), min(t.excess for t in terms)
    return [t._replace(power=t.power - power, excess=t.excess - excess) for t in terms], \
        power, excess


class _Piece:
    """``g = ln f1 − ln f2`` on one piece ``[low, high]`` (``None``: an infinite end) in the
    coordinate ``s`` (the module's docstring, steps 1 and 2): ``alpha = K_1 − K_2``,
    ``beta = e_1 − e_2``; ``terms1``/``terms2`` are ``None`` where ``f1``/``f2`` vanish."""

    def __init__(self, mech: NoisyMaxMechanism, d1: Runs, d2: Runs, low, high):
        self.low, self.high, self.scale = low, high, mech.noise.scale
        self.sigma = -1 if low is None else 1
        self.anchor = high if low is None else low
        middle = self.split(low, high)
        (self.terms1, power1, excess1), (self.terms2, power2, excess2) = (
            _density(mech.noise, value_form(mech, d, middle), middle, self.anchor, self.sigma)
            for d in (d1, d2))
        self.alpha, self.beta = power1 - power2, excess1 - excess2
        self.vanishing = excess1 > 0  # f1(V) = 0: g(V) is a limit, V no output of d1
        self.numerator, self.shift = None, 0  # N and D of slope(), expanded when first needed
        # on a tail every term has the same power of s (step 2)
        assert self.alpha == 0 or None in (self.terms1, self.terms2) or None not in (low, high)

    def split(self, low, high) -> Fraction:
        """The point splitting a box: its midpoint, or on a tail ``τ ↦ 2τ + b`` for the
        distance ``τ`` of its finite end from ``V``."""
        if low is not None and high is not None:
            return (low + high) / 2
        end = high if low is None else low
        return end + self.sigma * (2 * abs(end - self.anchor) + self.scale)

    def limit(self, v) -> str | None:
        """Where ``v`` is approached when it is no value ``d1`` produces (an infinite end, or
        ``V`` where ``f1`` vanishes), ``None`` for a value it produces."""
        if v is None or (v == self.anchor and self.vanishing):
            return self.approach(v)
        return None

    def approach(self, v) -> str:
        """``v`` approached from within the piece: ``out0 → ±inf`` (``None``), or
        ``out0 → V from above`` (``below``)."""
        if v is None:
            return f"out0 → {'+' if self.sigma > 0 else '-'}inf"
        return f"out0 → {format_number(v)} from {'above' if self.sigma > 0 else 'below'}"

    def s(self, v) -> arb:
        """``s = e^{−σ(v − V)/b}`` (``0`` at an infinite end, ``None``)."""
        return arb(0) if v is None else to_arb(-self.sigma * (v - self.anchor) / self.scale).exp()

    def log_ratio(self, s: arb, singular: bool = True) -> arb:
        """``g`` at the ball ``s``, without the term ``β ln(1 − s)`` unless ``singular``."""
        x, first, second = self._densities(s, 1)
        return _coefficient(first.log() - second.log() + self._logs(x, singular), 0)

    def slope(self, s: arb, singular: bool = True) -> arb:
        """``g'`` on the ball ``s`` (without ``−β/(1 − s)`` unless ``singular``): Arb's Taylor
        series of the factors, intersected with ``N/(Q_1 Q_2) + α/s`` for ``Q_d = s^D P_d`` and
        ``N = Q_1'Q_2 − Q_1 Q_2'`` expanded once — exactly 0 where ``P_1 ∝ P_2`` (left of the
        answers that differ), so the bound stays as narrow as the rounding however wide the
        ball, where the series' bound grows with the ball."""
        x, first, second = self._densities(s, 2)
        logs = self._logs(x, singular)
        series = _coefficient(first.log() - second.log() + logs, 1)
        if self.numerator is None:
            self.shift = -min(t.lowest for t in self.terms1 + self.terms2)
            one, two = (sum((t.polynomial(self.shift) for t in terms), arb_poly([]))
                        for terms in (self.terms1, self.terms2))
            self.numerator = one.derivative() * two - one * two.derivative()
        expanded = self.numerator(s) / (s ** (2 * self.shift) * _coefficient(first, 0)
                                        * _coefficient(second, 0)) + _coefficient(logs, 1)
        if series.is_finite() and expanded.is_finite():
            return series.intersection(expanded)
        return series if series.is_finite() else expanded

    def _densities(self, s: arb, order: int) -> tuple:
        """``(s, P_1(s), P_2(s))`` as Taylor series of ``order`` terms at the ball ``s``."""
        x = arb_series([s, 1], prec=order)
        return x, *(sum((t.at(x) for t in terms), 0 * x) for terms in (self.terms1, self.terms2))

    def _logs(self, x: arb_series, singular: bool) -> arb_series:
        """``α ln s + β ln(1 − s)`` (the last only if ``singular``)."""
        logs = 0 * x
        if self.alpha:
            logs += self.alpha * x.log()
        if self.beta and singular:
            logs += self.beta * (1 - x).log()
        return logs


def _power(x: arb_series, exponent: int) -> arb_series:
    """``x^exponent``: ``e^{exponent·ln x}`` where ``x`` is positive (repeated products widen a
    wide ball at every step), else by products (``s`` at 0, ``1 − s`` at 1)."""
    if exponent == 0:
        return 1 + 0 * x
    if _coefficient(x, 0) > 0:
        return (exponent * x.log()).exp()
    return x ** exponent


def _coefficient(series: arb_series, k: int) -> arb:
    """The coefficient of ``s^k`` of a Taylor series (Arb drops exact trailing zeros)."""
    coefficients = series.coeffs()
    return coefficients[k] if k < len(coefficients) else arb(0)


def _key(upper: arb) -> mpmath.mpf:
    """An upper end as an exact mpf (``+inf`` for a ball that bounds nothing)."""
    return exact_mpf(upper) if upper.is_finite() else mpmath.inf


class _Search:
    """The branch and bound over the pieces where ``f1 > 0`` (the module's docstring, step 4)."""

    def __init__(self, pieces: list[_Piece]):
        self.pieces = pieces
        self.points: dict = {}   # (piece, v) → g(v) as a ball; v None: the tail's limit
        self.lower = None        # the largest lower end of a point
        self.resolved = None     # the largest upper bound of a box settled at an end
        self.heap: list = []
        self.order = itertools.count()
        self.boxes = 0

    def value(self, index: int, v) -> arb:
        """``g(v)`` on piece ``index`` (cached), which raises the lower bound."""
        if (index, v) not in self.points:
            piece = self.pieces[index]
            value = self.points[index, v] = piece.log_ratio(piece.s(v))
            if value.is_finite() and (self.lower is None or value.lower() > self.lower):
                self.lower = value.lower()
        return self.points[index, v]

    def add(self, index: int, low, high) -> None:
        """Bound ``g`` on the box ``[low, high]`` of piece ``index``: settle it at an end where
        ``g`` is monotone, else queue it unless its bound is below the lower bound."""
        self.boxes += 1
        piece = self.pieces[index]
        box = piece.s(low).union(piece.s(high))
        touches = piece.beta > 0 and piece.anchor in (low, high)
        slope = piece.slope(box, singular=not touches)
        if not touches and (slope > 0 or slope < 0):  # monotone: the end of the larger g
            larger_s, smaller_s = (low, high) if piece.sigma > 0 else (high, low)
            upper = self.value(index, larger_s if slope > 0 else smaller_s).upper()
            if self.resolved is None or upper > self.resolved:
                self.resolved = upper
            return
        centre = piece.split(low, high)
        middle = piece.s(centre)
        value = self.value(index, centre)  # also a lower bound
        regular = piece.log_ratio(middle, singular=False) if touches else value
        distance = (box.upper() - middle.lower()).max(middle.upper() - box.lower())
        upper = regular + abs(slope) * distance
        if touches:
            upper += piece.beta * (1 - box.lower()).log()
        upper = upper.upper()
        key = _key(upper)
        if self.lower is None or key >= exact_mpf(self.lower):
            heapq.heappush(self.heap, (-key, next(self.order), index, low, high, upper))

    def supremum(self, dps: int, name: str) -> ValueSupremum:
        """Split the box of the largest bound until it is within ``10^{−dps}`` of the lower
        bound; the enclosure and the point of the largest value."""
        for index, piece in enumerate(self.pieces):
            if piece.terms1 is not None:
                self.add(index, piece.low, piece.high)
        # half the width for the search, half for a short output (_short)
        tolerance, budget = arb(10) ** -dps / 2, BOXES_PER_DIGIT * (dps + PART_GUARD_DIGITS)
        while self.heap and not self._narrow(self.heap[0][-1], tolerance):
            if self.boxes > budget:
                raise PrecisionError(f"{name}: D_∞ of the largest value did not narrow to {dps} "
                                     f"digits within {budget} boxes (between "
                                     f"{self.lower.str(5)} and {self.heap[0][-1].str(5)})")
            _, _, index, low, high, _ = heapq.heappop(self.heap)
            centre = self.pieces[index].split(low, high)
            self.add(index, low, centre)
            self.add(index, centre, high)
        bounds = [self.lower] + [self.resolved] * (self.resolved is not None)
        upper = max(bounds, key=exact_mpf)
        if self.heap:
            upper = max(upper, self.heap[0][-1], key=_key)
        if not self._narrow(upper, tolerance):
            raise PrecisionError(f"{name}: D_∞ of the largest value: the enclosure "
                                 f"[{self.lower.str(5)}, {upper.str(5)}] is not {dps} digits")
        best, approached = self._where()
        lower = self.lower
        if best is None:
            output = None
        else:
            output, value = self._short(*best, self.lower - tolerance * self.lower)
            lower = min(lower, value.lower(), key=exact_mpf)
        middle = ((lower + upper) / 2).mid()
        return ValueSupremum(Enclosure(*(exact_mpf(end) for end in (middle, lower, upper))),
                             output, approached)

    def _narrow(self, upper: arb, tolerance: arb) -> bool:
        """Whether the bound ``upper`` is within ``tolerance`` (relative) of a positive lower
        bound."""
        return self.lower is not None and self.lower > 0 and \
            upper - self.lower <= tolerance * self.lower

    def _where(self) -> tuple[tuple | None, str | None]:
        """``((piece, v), None)`` for the evaluated output of the largest centre, or
        ``(None, where)`` when a limit (``Piece.limit``) is certainly above every evaluated
        output."""
        outputs, limits = [], []
        for (index, v), value in self.points.items():
            where = self.pieces[index].limit(v)
            if where is None:
                outputs.append((value, (index, v)))
            else:
                limits.append((value, where))
        if limits:
            limit, where = max(limits, key=lambda item: item[0].mid())
            if all(limit.lower() > value.upper() for value, _ in outputs):
                return None, where
        return max(outputs, key=lambda item: item[0].mid())[1], None

    def _short(self, index: int, v: Fraction, floor: arb) -> tuple[Fraction, arb]:
        """The first of ``v`` rounded to 0, 1, 2, … decimals (an output of ``d1`` on the same
        piece) whose ``g`` is certainly at least ``floor``, and its ``g``; ``v`` itself once the
        decimals are as long as its denominator."""
        piece = self.pieces[index]
        for places in itertools.count():
            if 10 ** places >= v.denominator:
                return v, self.points[index, v]
            candidate = Fraction(round(v * 10 ** places), 10 ** places)
            inside = (piece.low is None or candidate >= piece.low) and \
                (piece.high is None or candidate <= piece.high)
            if inside and piece.limit(candidate) is None:
                value = piece.log_ratio(piece.s(candidate))
                if value.lower() >= floor:
                    return candidate, value


@density_supremum.register
def _(mech: NoisyMaxMechanism):
    return value_supremum if mech.releases_value else None
