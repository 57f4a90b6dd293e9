"""The one precision policy of exactdp: working precision, exact rationals as mpf, the exact
zero, the single check that a result reaches the digits asked for, and the results that carry
it (a probability, a privacy loss, each estimated or certified).

Every exact computation follows the same rules:

* the caller asks for ``dps`` significant digits (1 to :data:`MAX_DPS`), checked where it asks
  (:func:`check_dps`); the intermediate results exactdp combines carry guard digits beyond
  them, up to :data:`MAX_GUARD_DIGITS` more (:func:`check_working_dps`);
* the work is done at :func:`working_dps` digits (mpmath) or :func:`working_bits` bits (Arb
  balls, mpmath's binary precision): the digits asked for, plus a guard (:data:`GUARD_DIGITS`
  unless a named guard below fits the computation better), plus what an intermediate quantity
  of size ``magnitude`` costs in absolute accuracy; the precision is raised once where a
  computation starts and passed down as bits;
* inputs are exact rationals (``Fraction``), converted with :func:`to_mpf` at the working
  precision;
* an impossible output is an exact zero (:meth:`Probability.exact_zero`), never an underflow;
* a value whose computed relative error bound exceeds ``10^-dps`` is never returned:
  :func:`require_digits` raises :class:`~exactdp.errors.PrecisionError` with a message that says
  what to change.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from flint import arb, fmpq
from mpmath import mpf

from .errors import InputError, PrecisionError
from .sequences import to_fraction

#: Bits of one decimal digit, ``log2 10``.
BITS_PER_DIGIT = math.log2(10)
#: Digits carried beyond the requested ones by a computation whose rounding is not tracked
#: (mpmath's estimates) or is tracked but not budgeted (a sum of balls).
GUARD_DIGITS = 15
#: Digits asked of each part exactdp combines into one result beyond the digits asked of the
#: result: the output probabilities of a divergence (a difference ``p1 − e^ε p2`` or a sum over
#: many outputs loses a few).
PART_GUARD_DIGITS = 10
#: Digits of the precision at which enclosures or estimates are combined (summed, subtracted,
#: a log of their ratio taken) beyond the digits they carry: the combination's own rounding
#: stays ``10^{−20}`` below their widths.
COMBINE_GUARD_DIGITS = 20
#: Digits of the accuracy a certified quadrature aims at (its goal ``2^{−goal}``) beyond the
#: digits asked for: the enclosure, a few goals wide, still reaches them.
GOAL_GUARD_DIGITS = 3
#: Digits of the accuracy the ball-arithmetic estimate (``piecewise_gauss.integrate_pieces``)
#: aims at beyond the digits asked for: its error is estimated, not proven, so it aims higher.
ESTIMATE_GOAL_GUARD_DIGITS = 6
#: Digits of a ball quadrature's Arb precision beyond the digits (or the goal) it must reach:
#: the rounding of its rule sums, a few units of ``2^{−bits}`` per node, stays far below.
ROUNDING_GUARD_DIGITS = 9
#: Digits of the Arb precision beyond the digits asked for where every output's ball is a
#: product over ``n`` factors summed on shared nodes (the bits of ``n`` are added): the
#: rounding, a few units of ``2^{−bits}`` per factor, stays below ``10^{−dps}`` by ``10^4``.
FACTOR_ROUNDING_GUARD_DIGITS = 4
#: Digits of the Arb precision of the selection probabilities beyond the absolute digits asked
#: of each (their sums over ``n`` queries add the bits of ``n²``): the rounding of the
#: quadrature's sums and of the FNR's and SER's sums stays ``10^{−14}`` below them.
SELECTION_GUARD_DIGITS = 14
#: Largest number of significant digits a caller may ask for.
MAX_DPS = 1000
#: Most digits exactdp adds to a caller's ``dps`` for the intermediate results it combines (the
#: output probabilities of a divergence, the outputs an event sums, both sides of a
#: difference): the engine evaluates up to ``MAX_DPS + MAX_GUARD_DIGITS`` digits.
MAX_GUARD_DIGITS = 100
#: The evaluation methods of :func:`exactdp.probability`: ``"auto"`` (the default) and
#: ``"certified"`` give enclosures proven by ball arithmetic (``"auto"`` falls back to the
#: estimate for a noise law without a certified rule), ``"estimate"`` two independent methods
#: whose agreement bounds the error, ``"quad"`` and ``"closed"`` one method each.
METHODS = ("auto", "certified", "estimate", "quad", "closed")
#: The methods that return enclosures.
CERTIFIED_METHODS = ("auto", "certified")


def check_dps(dps: object, name: str = "dps") -> int:
    """``dps`` if it is an integer from 1 to :data:`MAX_DPS`, else an :class:`InputError` naming
    the argument ``name``: the digits a caller asks for."""
    return _check_digits(dps, MAX_DPS, name)


def check_working_dps(dps: object) -> int:
    """``dps`` if it is an integer from 1 to ``MAX_DPS + MAX_GUARD_DIGITS``, else an
    :class:`InputError`: the digits the engine is asked for, a caller's (:func:`check_dps`) plus
    the guard digits exactdp adds to them."""
    return _check_digits(dps, MAX_DPS + MAX_GUARD_DIGITS)


def _check_digits(dps: object, most: int, name: str = "dps") -> int:
    if isinstance(dps, bool) or not isinstance(dps, int) or not 1 <= dps <= most:
        raise InputError(f"{name} must be an integer from 1 to {MAX_DPS}, got {name}={dps!r}")
    return dps


def check_method(method: object) -> str:
    """``method`` if it is one of :data:`METHODS`, else an :class:`InputError`."""
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got method={method!r}")
    return method


def working_dps(dps: int, magnitude=1) -> int:
    """Digits to work with (mpmath's ``dps``) for ``dps`` correct ones when intermediate
    quantities reach ``magnitude`` (a log integrand that sums a power of ``10^6`` terms, or the
    log of a density at ``10^6`` scales from its centre, loses 6 digits of absolute accuracy):
    ``dps + GUARD_DIGITS`` plus the number of digits of ``magnitude``, rounded up to a multiple
    of 10 so that mpmath's quadrature nodes, cached per precision, are shared.

    Examples
    --------
    >>> working_dps(30), working_dps(30, 10**6)
    (50, 60)
    >>> working_dps(30, Fraction(10**40, 3))    # exact rationals of any size are accepted
    90
    """
    extra = len(str(int(magnitude))) if magnitude >= 1 else 0
    return -(-(dps + GUARD_DIGITS + extra) // 10) * 10


def working_bits(digits: int, magnitude=0, guard: int = GUARD_DIGITS) -> int:
    """Bits to work with (Arb's or mpmath's ``prec``) for ``digits`` correct significant digits
    when intermediate quantities reach ``magnitude``: the policy of :func:`working_dps` in
    bits, unrounded,

    ``⌈d·log₂10⌉ + ⌈g·log₂10⌉ + bitlength(⌊m⌋)``

    for ``d = digits``, ``g = guard`` and ``m = magnitude`` (its bits are lost in absolute
    accuracy; ``0`` for none).  ``digits = 0`` gives the guard and magnitude alone, the bits a
    computation adds to a goal it doubles.  Every dps → bits conversion of exactdp is this one.

    Examples
    --------
    >>> working_bits(30), working_bits(30, 10**6), working_bits(30, guard=GOAL_GUARD_DIGITS)
    (150, 170, 110)
    >>> working_bits(0, 2**20, ROUNDING_GUARD_DIGITS)     # the bits a goal is raised by
    51
    """
    extra = int(magnitude).bit_length() if magnitude >= 1 else 0
    return math.ceil(digits * BITS_PER_DIGIT) + math.ceil(guard * BITS_PER_DIGIT) + extra


def digits_of_bits(bits: int) -> int:
    """Significant digits that hold ``bits`` bits (a goal or a precision in bits, asked of a
    computation that takes digits): ``⌈0.3·bits⌉ + 1``, exact integer arithmetic (``0.3`` is
    ``log10 2`` rounded down; the ``+ 1`` covers the difference up to 970 bits).

    Examples
    --------
    >>> digits_of_bits(working_bits(30, guard=GOAL_GUARD_DIGITS))    # a goal of 110 bits
    34
    """
    return -(-bits * 3 // 10) + 1


def to_mpf(value) -> mpf:
    """An exact rational (``Fraction`` or ``int``) as an mpf, rounded once at the current
    working precision."""
    return _to_mpf(Fraction(value), mpmath.mp.prec)


@functools.lru_cache(maxsize=4096)
def _to_mpf(value: Fraction, prec: int) -> mpf:
    with mpmath.workprec(prec):
        return mpf(value.numerator) / value.denominator


def unit_roundoff() -> mpf:
    """``2^{1−prec}``: a bound on the relative rounding error of one mpmath operation."""
    return mpf(2) ** (1 - mpmath.mp.prec)


def advice(method: str) -> str:
    """What to change when ``method`` cannot reach the digits asked for (never the method
    already in use)."""
    if method in ("auto", "certified", "estimate"):
        return "ask for fewer digits (dps)"
    other = "estimate" if method == "closed" else "closed"
    return f"ask for fewer digits (dps) or try method='{other}'"


def require_digits(relative: mpf, dps: int, what: str, method: str = "auto") -> None:
    """Raise :class:`PrecisionError` unless the relative error bound ``relative`` is at most
    ``10^-dps``; the message names ``what`` was computed and what to change."""
    if not relative <= mpf(10) ** (-dps):
        raise PrecisionError(
            f"{what}: could not reach {dps} significant digits (relative error bound "
            f"{mpmath.nstr(relative, 3)}); {advice(method)}")


@dataclass(frozen=True)
class Probability:
    """The exact probability (or density) of an output or event, with its error bound.

    Attributes
    ----------
    value : mpf
        The probability, or the density for outputs that contain released numbers; an exact
        ``0`` for an impossible output.
    log_value : mpf
        ``log(value)``; ``-inf`` for an exact zero.  Use it for values below ~1e-308.
    error : mpf
        Bound on the absolute error of ``value`` (0 for an exact zero).
    method : str
        How it was obtained: ``"certified …"`` (an enclosure, :class:`CertifiedProbability`),
        ``"estimate …"`` (two methods: ``"closed+quad"``, ``"quad+gauss-legendre"``,
        ``"piecewise-gauss"``, ``"closed+piecewise-gauss"``), ``"closed"``, ``"quad"`` or
        ``"exact zero"``; several integrals give a ``+``-joined set.
    is_density : bool
        True when ``value`` is a density.
    dps : int
        The number of significant digits requested.
    """

    value: mpf
    log_value: mpf
    error: mpf
    method: str
    is_density: bool
    dps: int

    @classmethod
    def exact_zero(cls, is_density: bool, dps: int) -> "Probability":
        """An impossible output: value 0, log −∞, no error."""
        return cls(mpf(0), mpf("-inf"), mpf(0), "exact zero", is_density, dps)

    @classmethod
    def from_log(cls, log_value: mpf, relative: mpf, method: str, is_density: bool, dps: int,
                 what: str = "probability", requested: str = "auto") -> "Probability":
        """The result ``e^{log_value}`` with relative error bound ``relative``, after
        :func:`require_digits` (``requested`` is the method the caller asked for)."""
        require_digits(relative, dps, what, requested)
        value = mpmath.exp(log_value)
        return cls(+value, +log_value, +(value * relative), method, is_density, dps)

    @property
    def is_zero(self) -> bool:
        """True for an impossible output (an exact zero, never an underflow)."""
        return self.value == 0

    @property
    def relative_error(self) -> mpf:
        """``error / value`` (0 for an exact zero)."""
        return mpf(0) if self.is_zero else self.error / self.value


def to_arb(value: Fraction) -> arb:
    """An exact rational as a ball at flint's current precision."""
    value = Fraction(value)
    return arb(fmpq(value.numerator, value.denominator))


def exact_mpf(endpoint) -> mpf:
    """An exact binary number (an endpoint of an Arb ball) as an mpf, without rounding."""
    mantissa, exponent = endpoint.man_exp()
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(mantissa), int(exponent)))


def ball_between(lower: mpf, upper: mpf) -> arb:
    """The ball ``[lower, upper]`` of two exact binary ends: each end becomes a ball exactly (as
    a rational, an end such as ``1e-1085736211`` would need a denominator of 3.6·10⁹ bits), and
    the ball is their union."""
    return arb(lower).union(arb(upper))


def _exact_rational(end: mpf) -> Fraction | float:
    """An exact binary number as a rational, an infinite one as ``±inf`` (which compares with
    rationals)."""
    return float(end) if mpmath.isinf(end) else to_fraction(end, "an end of an enclosure")


@dataclass(frozen=True)
class Enclosure:
    """A computed number and its certified enclosure: exact binary ``mpf`` values with
    ``lower ≤ exact ≤ upper`` and ``value`` the ball's centre (all three ``+inf`` for an
    infinite divergence).  The one result type of a certified real number that is not a
    probability (divergences, δ(ε), the reconstruction attack's accuracies)."""

    value: mpf
    lower: mpf
    upper: mpf

    @classmethod
    def of_ball(cls, ball: arb) -> "Enclosure":
        """The centre and ends of ``ball``, rounded outward at flint's current precision
        (``+inf`` for the exact ``arb("inf")``; a ball of infinite radius encloses nothing
        useful: :class:`~exactdp.errors.PrecisionError`)."""
        if not ball.is_finite():
            if ball.is_exact() and ball > 0:
                return cls(mpmath.inf, mpmath.inf, mpmath.inf)
            raise PrecisionError(f"no finite enclosure: {ball.str(5)}")
        return cls(*(exact_mpf(end) for end in (ball.mid(), ball.lower(), ball.upper())))

    @classmethod
    def exact(cls, value) -> "Enclosure":
        """A number known exactly."""
        value = mpf(value)
        return cls(value, value, value)

    def ball(self) -> arb:
        """The enclosure as one Arb ball."""
        return ball_between(self.lower, self.upper)

    def compared_with(self, claimed: Fraction) -> str:
        """``"violation"`` when the exact value is proven above ``claimed``, ``"within"`` when
        proven at most ``claimed``, else ``"undecided"``: the binary ends compared exactly, as
        rationals (an infinite end as infinity)."""
        if _exact_rational(self.lower) > claimed:
            return "violation"
        return "within" if _exact_rational(self.upper) <= claimed else "undecided"

    @property
    def error(self) -> mpf:
        """A bound on ``|value − exact|``: the larger distance from the centre to an end
        (computed exactly)."""
        return max(mpmath.fsub(self.upper, self.value, exact=True),
                   mpmath.fsub(self.value, self.lower, exact=True))


@dataclass(frozen=True)
class CertifiedProbability(Probability):
    """A :class:`Probability` with a certified enclosure (``method="auto"`` or ``"certified"``).

    The exact value lies in ``[lower, upper]`` and its logarithm in ``[log_lower, log_upper]``:
    guaranteed by ball arithmetic (``exactdp.exact.backends.certified``), not estimated.  ``value``
    and
    ``log_value`` are the centres, ``error`` the largest distance from ``value`` to an end.

    Attributes
    ----------
    lower, upper : mpf
        Exact binary numbers enclosing the probability (or density).
    log_lower, log_upper : mpf
        Exact binary numbers enclosing its natural logarithm.
    """

    lower: mpf = mpf(0)
    upper: mpf = mpf(0)
    log_lower: mpf = mpf("-inf")
    log_upper: mpf = mpf("-inf")

    @classmethod
    def from_log_ball(cls, log_ball, method: str, is_density: bool,
                      dps: int) -> "CertifiedProbability":
        """The enclosure ``e^{log_ball}`` of an Arb ball ``log_ball`` (endpoints exact)."""
        value_ball = log_ball.exp()
        lower, upper = exact_mpf(value_ball.lower()), exact_mpf(value_ball.upper())
        value = exact_mpf(value_ball.mid())
        error = max(mpmath.fsub(upper, value, exact=True), mpmath.fsub(value, lower, exact=True))
        return cls(value, exact_mpf(log_ball.mid()), error, method,
                   is_density, dps, lower, upper, exact_mpf(log_ball.lower()),
                   exact_mpf(log_ball.upper()))

    @property
    def relative_width(self) -> mpf:
        """``(upper − lower)/lower`` (0 for an exact zero)."""
        return mpf(0) if self.is_zero else (self.upper - self.lower) / self.lower


@dataclass(frozen=True)
class PrivacyLoss:
    """Both probabilities of one output and their log ratio.

    Attributes
    ----------
    p1, p2 : Probability
        ``Pr[M(D1) = a]`` and ``Pr[M(D2) = a]``.
    log_ratio : mpf
        ``ln(p1/p2)``; ``+inf`` when only ``p2`` is an exact zero, ``-inf`` when only ``p1`` is.
    error : mpf
        Estimated absolute error of ``log_ratio`` (the sum of both relative errors).
    """

    p1: Probability
    p2: Probability
    log_ratio: mpf
    error: mpf


@dataclass(frozen=True)
class CertifiedPrivacyLoss(PrivacyLoss):
    """A :class:`PrivacyLoss` of two :class:`~exactdp.precision.CertifiedProbability` values:
    the exact ``ln(p1/p2)`` lies in ``[log_ratio_lower, log_ratio_upper]`` (exact differences
    of the ends of the two log enclosures); both ends are ``±inf`` when one side is an exact
    zero (a structural zero certifies an infinite loss)."""

    log_ratio_lower: mpf = mpf(0)
    log_ratio_upper: mpf = mpf(0)
