"""Noise laws as values: Laplace, one-sided exponential, Gumbel, Gaussian, discrete Laplace and
"no noise".

A law is a frozen value with its scale.  It gives, at mpmath precision, the log density, log CDF
and log survival function and their derivatives (the exact engine), the probability of an
interval, its support, the points where its log functions are not smooth, its piecewise
exponential form where it has one (:meth:`NoiseLaw.piece`: exact rationals, which the exact
engine converts to its arithmetics in one place, ``exact/backends/exponential_sums.piece_in``),
the same log functions in Arb ball arithmetic on real and complex balls
(:meth:`NoiseLaw.ball_log`, the certified engine), and a numpy sampler (the sampling side).
Every other module reads laws through this interface; adding a law is adding one class.  The
discrete Gaussian, whose tail sums need their own machinery, is the class ``DiscreteGaussian`` of
``discrete_gaussian_law.py``.

Notation (``b`` the scale):

* ``Lap(b)``: density ``e^{−|x|/b}/(2b)``; CDF ``½e^{x/b}`` for ``x < 0``, ``1 − ½e^{−x/b}``
  for ``x ≥ 0``; survival ``S(x) = F(−x)`` (Dwork & Roth 2014, Def. 3.2);
* ``Exp(b)``: density ``e^{−x/b}/b`` on ``x ≥ 0``; CDF ``1 − e^{−x/b}``; survival ``e^{−x/b}``
  (StatDP's ``noisy_max_v2a``/``v2b``: Ding et al., CCS 2018);
* ``Gumbel(b)``: density ``e^{−(x/b + e^{−x/b})}/b``; CDF ``exp(−e^{−x/b})``; survival
  ``1 − exp(−e^{−x/b})`` (report noisy max with Gumbel noise is the exponential mechanism:
  McSherry & Talwar, FOCS 2007; Dwork & Roth 2014, §3.4);
* ``N(0, σ²)`` (Gaussian, scale ``σ``): density ``e^{−x²/(2σ²)}/(σ√(2π))``; CDF
  ``½ erfc(−x/(σ√2))``; survival ``½ erfc(x/(σ√2))`` (the Gaussian Sparse Vector: Zhu & Wang,
  "Improving Sparse Vector Technique with Rényi Differential Privacy", NeurIPS 2020);
* ``DLap(b)`` (discrete Laplace on the integers): ``Pr[η = k] = (1 − p)/(1 + p)·p^{|k|}`` with
  ``p = e^{−1/b}`` (Inusah & Kozubowski, "A discrete analogue of the Laplace distribution", J.
  Stat. Plann. Inference 2006; Canonne, Kamath & Steinke, "The Discrete Gaussian for
  Differential Privacy", NeurIPS 2020, §2); for an integer-valued law the CDF is
  ``F(x) = Pr[η < x]`` and the survival function ``S(x) = Pr[η ≥ x]``, so that ``F + S = 1``
  and ``⊤ iff q + ν ≥ T + ρ`` is ``S_ν(T + ρ − q)`` as for the continuous laws;
* no noise: the point mass at 0 (CDF and survival are indicators, there is no density).

The survival function is computed directly, never as ``1 − F`` (cancellation).  All four
continuous laws are log-concave (their density, CDF and survival function), which the
peak-aware quadrature relies on.
"""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, ClassVar, NamedTuple

import mpmath
from flint import acb, arb, ctx
from mpmath import mpf

from .errors import MethodUnavailableError, PrecisionError
from .precision import to_arb, to_mpf

if TYPE_CHECKING:  # numpy is imported where samples are drawn, not to list the catalogue
    import numpy as np

_NEG_INF = mpf("-inf")
#: Largest ``−x/b`` at which the Gumbel law is evaluated (``exp(−e^{10^18})`` is still an mpf).
GUMBEL_EXPONENT_LIMIT = 10 ** 18


class Kind(enum.Enum):
    """Which function of a law a factor uses."""

    #: ``F(x) = Pr[η ≤ x]`` (``Pr[η < x]`` for an integer-valued law)
    CDF = "cdf"
    #: ``S(x) = Pr[η ≥ x]``
    SF = "sf"
    #: the density ``p(x)`` (the probability mass ``Pr[η = x]`` for an integer-valued law)
    PDF = "pdf"


class Piece(NamedTuple):
    """On one side of a law's kink, its function is ``coefficient·e^{rate·x}``
    (``one_minus=False``) or ``1 − coefficient·e^{rate·x}`` (``one_minus=True``), with
    ``coefficient > 0`` and ``rate`` exact rationals."""

    coefficient: Fraction
    rate: Fraction
    one_minus: bool


class BallLog(NamedTuple):
    """``log g``, its derivative and ``g`` itself on one smooth piece of a law's function ``g``,
    in Arb ball arithmetic at the precision they were made at.

    ``log(x)`` and ``value(x)`` take a real ball (``arb``) or a complex ball (``acb``: the
    analytic continuation of the piece); ``slope(x)`` takes a real ball.  ``value`` is entire
    (what ``acb.integral`` needs: an integrand ``Π g_j^{m_j}`` has no branch cut to check, and
    a zero of ``g`` at the end of a segment, the exponential CDF's at 0, is a zero, not a
    singularity of ``log g``).
    """

    log: Callable
    slope: Callable
    value: Callable


@dataclass(frozen=True)
class NoiseLaw:
    """Base class of the noise laws.

    Attributes
    ----------
    scale : Fraction
        The scale ``b`` (0 only for :class:`NoNoise`).
    symbol : str
        Short name for display (``Lap``, ``Exp``, ``Gumbel``).
    closed_form : bool
        Whether :meth:`piece` exists (the law is piecewise exponential).
    kinks : tuple of Fraction
        Points (in units of the scale) where the log functions are not smooth.
    median : Fraction
        The median in units of the scale (where :meth:`interval` switches from the CDF to the
        survival function).
    symmetric : bool
        Whether ``−η`` has the law of ``η``.
    integer_valued : bool
        Whether ``η`` takes integer values only (its "density" is a probability mass; such a
        law gives ``log_ball_integer(kind, n)``, its functions at the integers in balls, and its
        mass, CDF and survival function are log-concave sequences, which the sum over an integer
        hub bounds its tails with: ``exact/backends/discrete_hub.py``).
    """

    scale: Fraction
    symbol: ClassVar[str] = ""
    closed_form: ClassVar[bool] = False
    kinks: ClassVar[tuple] = ()
    median: ClassVar[Fraction] = Fraction(0)
    symmetric: ClassVar[bool] = False
    integer_valued: ClassVar[bool] = False

    def __post_init__(self):
        if not isinstance(self.scale, Fraction) or self.scale <= 0:
            raise ValueError(f"{self.symbol} needs a positive Fraction scale, got {self.scale!r}")

    def __str__(self) -> str:
        return f"{self.symbol}({self.scale})"

    @property
    def b(self) -> mpf:
        """The scale as an mpf at the current precision (cached per precision on the value;
        the cache is not a field, so equality and hashing ignore it)."""
        cache = self.__dict__.setdefault("_scale_at_precision", {})
        prec = mpmath.mp.prec
        if prec not in cache:
            cache[prec] = to_mpf(self.scale)
        return cache[prec]

    @property
    def is_point_mass(self) -> bool:
        """True for "no noise": its CDF and survival factors are constraints, not factors."""
        return False

    def positive_region(self, kind: Kind) -> tuple:
        """``(low, high)``: the interval of ``x`` where ``kind`` is positive (``None`` ends are
        infinite)."""
        return None, None

    def functions(self, kind: Kind) -> tuple:
        """``(log g, d log g)`` as bound methods, for ``g`` the CDF, survival function or
        density."""
        if kind is Kind.CDF:
            return self.logcdf, self.dlogcdf
        if kind is Kind.SF:
            return self.logsf, self.dlogsf
        return self.logpdf, self.dlogpdf

    def log(self, kind: Kind, x: mpf) -> mpf:
        """``log F(x)``, ``log S(x)`` or ``log p(x)``."""
        return self.functions(kind)[0](x)

    def kink_points(self) -> tuple:
        """:attr:`kinks` in the units of ``x`` (exact rationals)."""
        return tuple(Fraction(k) * self.scale for k in self.kinks)

    def log_size(self, distance: Fraction) -> Fraction:
        """The size of ``|log g(x)|`` at ``|x| ≤ distance`` for the working precision (not a
        bound): ``1 + distance/b``, as the logs of the Laplace and exponential laws are linear
        in ``x/b``."""
        return 1 + distance / self.scale

    def off_axis_growth(self) -> Fraction | None:
        """A constant ``C`` with ``|g(x + iy)| ≤ g(x)·e^{C·y²}`` for all real ``x``, ``y`` and
        every function ``g`` of the law (density, CDF, survival function, continued
        analytically), or ``None`` if the law has none.  The certified quadrature bounds the
        integrand off the real line with it (``exact/backends/certified.py``) and takes the logs of
        such a law's functions as concave on the whole line: a law with a constant is smooth
        (no kinks) and log-concave."""
        return None

    def float_log(self, kind: Kind, x: np.ndarray):
        """``(log g(x), (log g)'(x))`` in double precision (numpy arrays), each within a few
        units in the last place, for a law with :meth:`off_axis_growth`; ``None`` if the law
        gives none (``exact/backends/smooth_shared_nodes.py`` bounds with them)."""
        return None

    def interval(self, low: mpf, high: mpf) -> mpf:
        """``Pr[low < η < high]`` (ends may be ±inf) without cancellation: split at the median
        ``m``, ``(F(min(high, m)) − F(low)) + (S(max(low, m)) − S(high))``, each difference
        taken as ``e^a·(−expm1(b − a))`` of two values on the same side of the median."""
        if not low < high:
            return mpf(0)
        median = to_mpf(self.median) * self.b
        total = mpf(0)
        if low < median:
            total += _difference(self._logcdf_or_limit(min(high, median)),
                                 self._logcdf_or_limit(low))
        if high > median:
            total += _difference(self._logsf_or_limit(max(low, median)),
                                 self._logsf_or_limit(high))
        return total

    @staticmethod
    def interval_as_difference(low, high, position: Callable = lambda end: end):
        """``Pr[low < η < high]`` as ``g(big) − g(small)`` of one function ``g`` (``None`` ends
        are infinite): ``(Kind.SF, low, high)`` right of 0 and ``(Kind.CDF, high, low)``
        otherwise, so that the two values subtracted are both small in a tail, never both near
        1; ``None`` for an empty interval.  A ``None`` big end stands for ``g = 1``, a ``None``
        small end for ``g = 0``.  ``position`` maps an end to the rational it sits at (ends
        that move with an integration variable are decided at one point of their range)."""
        if low is not None and high is not None and not position(low) < position(high):
            return None
        if low is not None and position(low) >= 0:
            return Kind.SF, low, high
        return Kind.CDF, high, low

    def log_interval_ball(self, low: Fraction | None, high: Fraction | None) -> arb | None:
        """``log Pr[low < η < high]`` as a ball at flint's current precision for exact rational
        ends (``None``: infinite), by :meth:`interval_as_difference` and
        :func:`log_difference`; ``None`` for an exact zero.  For an integer-valued law, whose
        ``F(x) = Pr[η < x]`` and ``S(x) = Pr[η ≥ x]``, it is ``log Pr[low ≤ η < high]``."""
        form = self.interval_as_difference(low, high)
        if form is None:
            return None
        kind, big, small = form
        return log_difference(arb(0) if big is None else self.log_ball_at(kind, big),
                              None if small is None else self.log_ball_at(kind, small))

    def _logcdf_or_limit(self, x: mpf) -> mpf:
        return _NEG_INF if x == -mpmath.inf else mpf(0) if x == mpmath.inf else self.logcdf(x)

    def _logsf_or_limit(self, x: mpf) -> mpf:
        return mpf(0) if x == -mpmath.inf else _NEG_INF if x == mpmath.inf else self.logsf(x)

    def side(self, x) -> int:
        """The side of the law's kink containing ``x``: ``−1`` left, ``+1`` right (a point at
        the kink counts as right; a law without kinks has one side, ``+1``)."""
        kinks = self.kink_points()
        return -1 if kinks and x < kinks[0] else 1

    def piece(self, kind: Kind, x) -> Piece | None:
        """The piecewise exponential form of ``kind`` on the side of the kink containing ``x``
        (an exact or mpmath number; ``±1`` names a side), exact rationals; ``None`` where the
        function vanishes (a value, not an error: callers skip that piece)."""
        raise NotImplementedError(f"{self.symbol} noise has no piecewise exponential form")

    def ball_log(self, kind: Kind, side: int = 1) -> BallLog | None:
        """``log g`` and ``(log g)'`` in balls on the side ``side`` (``±1``, see :meth:`side`)
        of the kink, for ``g`` the CDF, survival function or density, made at flint's current
        precision (cached per precision); ``None`` where ``g`` vanishes on that side.  On a
        complex ball the caller chooses the side: the piece of the real segment being
        integrated."""
        return _ball_log(self, kind, side, ctx.prec)

    def _ball_log(self, kind: Kind, side: int) -> BallLog | None:
        """:meth:`ball_log` without the cache.  A piecewise exponential law takes it from its
        :meth:`piece`: ``u = log c + r·x`` and ``log g = u`` or ``log(−expm1(u))``, whose
        derivative is ``r`` or ``−r/expm1(−u)``."""
        if not self.closed_form:
            raise MethodUnavailableError(f"certified evaluation has no rule for {self} noise")
        piece = self.piece(kind, side)
        if piece is None:
            return None
        coefficient, rate, one_minus = piece
        log_coefficient, rate = to_arb(coefficient).log(), to_arb(rate)
        if not one_minus:
            return BallLog(lambda x: log_coefficient + rate * x, lambda x: rate,
                           lambda x: (log_coefficient + rate * x).exp())
        return BallLog(lambda x: (-(log_coefficient + rate * x).expm1()).log(),
                       lambda x: -rate / (-(log_coefficient + rate * x)).expm1(),
                       lambda x: -(log_coefficient + rate * x).expm1())

    def log_ball_at(self, kind: Kind, point: Fraction) -> arb | None:
        """``log g(point)`` as a ball at flint's current precision for an exact rational
        ``point``, ``None`` where ``g`` vanishes (decided exactly)."""
        if self.log(kind, to_mpf(point)) == _NEG_INF:
            return None
        return self.ball_log(kind, self.side(point)).log(to_arb(point))

    def sample(self, rng: np.random.Generator, size, loc=0.0) -> np.ndarray:
        """Draws of ``loc + η`` (a numpy array of shape ``size``; ``loc`` broadcasts), the shift
        applied inside numpy's draw where it takes one, which saves a pass over the array."""
        raise NotImplementedError


@functools.lru_cache(maxsize=4096)
def _ball_log(law: NoiseLaw, kind: Kind, side: int, prec: int) -> BallLog | None:
    return law._ball_log(kind, side)


def log_difference(log_big: arb | None, log_small: arb | None) -> arb | None:
    """``log(e^{log_big} − e^{log_small})`` for ``log_big > log_small`` (``None``: ``−∞``, an
    exact zero), as ``log_big + log(−expm1(log_small − log_big))``: no cancellation."""
    if log_big is None or log_small is None:
        return log_big
    return log_big + (-(log_small - log_big).expm1()).log()


def _difference(log_big: mpf, log_small: mpf) -> mpf:
    """``e^{log_big} − e^{log_small}`` for ``log_big ≥ log_small``."""
    if log_big == _NEG_INF:
        return mpf(0)
    return mpmath.exp(log_big) * -mpmath.expm1(log_small - log_big)


@dataclass(frozen=True)
class Laplace(NoiseLaw):
    """``Lap(b)``: density ``e^{−|x|/b}/(2b)`` (module docstring)."""

    symbol: ClassVar[str] = "Lap"
    closed_form: ClassVar[bool] = True
    symmetric: ClassVar[bool] = True
    kinks: ClassVar[tuple] = (0,)

    def logpdf(self, x: mpf) -> mpf:
        """``−|x|/b − log(2b)``."""
        b = self.b
        return -abs(x) / b - mpmath.log(2 * b)

    def dlogpdf(self, x: mpf) -> mpf:
        """``−sign(x)/b`` (the right derivative ``−1/b`` at 0)."""
        return -1 / self.b if x >= 0 else 1 / self.b

    def logcdf(self, x: mpf) -> mpf:
        """``x/b − log 2`` for ``x < 0``, ``log(1 − ½e^{−x/b})`` for ``x ≥ 0`` (accurate in
        absolute terms, which is what a sum of logs needs)."""
        if x < 0:
            return x / self.b - mpmath.ln2
        return mpmath.log(1 - mpmath.exp(-x / self.b) / 2)

    def dlogcdf(self, x: mpf) -> mpf:
        """``1/b`` for ``x < 0``, ``1/(b(2e^{x/b} − 1))`` for ``x ≥ 0``."""
        b = self.b
        return 1 / b if x < 0 else 1 / (b * (2 * mpmath.exp(x / b) - 1))

    def logsf(self, x: mpf) -> mpf:
        """``log S(x) = log F(−x)`` (symmetry)."""
        return self.logcdf(-x)

    def dlogsf(self, x: mpf) -> mpf:
        """``−(d log F)(−x)``."""
        return -self.dlogcdf(-x)

    def piece(self, kind: Kind, x) -> Piece:
        """``p = e^{∓x/b}/(2b)``; ``F = ½e^{x/b}`` (``x < 0``) or ``1 − ½e^{−x/b}``
        (``x ≥ 0``); ``S = ½e^{−x/b}`` (``x ≥ 0``) or ``1 − ½e^{x/b}`` (``x < 0``)."""
        inverse, right = 1 / self.scale, x >= 0
        if kind is Kind.PDF:
            return Piece(inverse / 2, -inverse if right else inverse, False)
        rate = inverse if kind is Kind.CDF else -inverse
        below = not right if kind is Kind.CDF else right  # the exponential side
        return Piece(Fraction(1, 2), rate if below else -rate, not below)

    def sample(self, rng: np.random.Generator, size, loc=0.0) -> np.ndarray:
        """``rng.laplace(loc, b, size)``."""
        return rng.laplace(loc, float(self.scale), size)


@dataclass(frozen=True)
class Exponential(NoiseLaw):
    """``Exp(b)``: density ``e^{−x/b}/b`` on ``x ≥ 0`` (module docstring)."""

    symbol: ClassVar[str] = "Exp"
    closed_form: ClassVar[bool] = True
    kinks: ClassVar[tuple] = (0,)
    median: ClassVar[Fraction] = Fraction(693147180559945309, 10 ** 18)  # ln 2 (any value near it)

    def positive_region(self, kind: Kind) -> tuple:
        """``x > 0`` for the density and the CDF; the survival function is positive everywhere."""
        return (None, None) if kind is Kind.SF else (Fraction(0), None)

    def logpdf(self, x: mpf) -> mpf:
        """``−x/b − log b`` for ``x ≥ 0``, ``−inf`` below."""
        return -x / self.b - mpmath.log(self.b) if x >= 0 else _NEG_INF

    def dlogpdf(self, x: mpf) -> mpf:
        """``−1/b``."""
        return -1 / self.b

    def logcdf(self, x: mpf) -> mpf:
        """``log(1 − e^{−x/b})`` for ``x > 0``, ``−inf`` otherwise."""
        return mpmath.log(-mpmath.expm1(-x / self.b)) if x > 0 else _NEG_INF

    def dlogcdf(self, x: mpf) -> mpf:
        """``1/(b(e^{x/b} − 1))`` (``+inf`` at ``x ≤ 0``)."""
        return 1 / (self.b * mpmath.expm1(x / self.b)) if x > 0 else mpf("inf")

    def logsf(self, x: mpf) -> mpf:
        """``−x/b`` for ``x ≥ 0``, 0 below."""
        return -x / self.b if x >= 0 else mpf(0)

    def dlogsf(self, x: mpf) -> mpf:
        """``−1/b`` for ``x ≥ 0``, 0 below."""
        return -1 / self.b if x >= 0 else mpf(0)

    def piece(self, kind: Kind, x) -> Piece | None:
        """On ``x ≥ 0``: ``p = e^{−x/b}/b``, ``F = 1 − e^{−x/b}``, ``S = e^{−x/b}``; on
        ``x < 0`` only ``S = 1 = e^{0}`` is positive (``None`` for the vanishing two)."""
        inverse = 1 / self.scale
        if kind is Kind.SF:
            return Piece(Fraction(1), -inverse if x >= 0 else Fraction(0), False)
        if x < 0:
            return None
        if kind is Kind.PDF:
            return Piece(inverse, -inverse, False)
        return Piece(Fraction(1), -inverse, True)

    def sample(self, rng: np.random.Generator, size, loc=0.0) -> np.ndarray:
        """``loc + rng.exponential(b, size)``."""
        return loc + rng.exponential(float(self.scale), size)


@dataclass(frozen=True)
class Gumbel(NoiseLaw):
    """``Gumbel(b)`` (location 0): CDF ``exp(−e^{−x/b})`` (module docstring)."""

    symbol: ClassVar[str] = "Gumbel"
    # −ln ln 2 (any value near)
    median: ClassVar[Fraction] = Fraction(-366512920581664327, 10 ** 18)

    def _tail(self, x: mpf) -> mpf:
        """``e^{−x/b}``; refused (PrecisionError) beyond ``x/b < −10^18``, where the exponent of
        ``exp(−e^{−x/b})`` no longer fits mpmath's number format."""
        u = -x / self.b
        if u > GUMBEL_EXPONENT_LIMIT:
            raise PrecisionError(f"Gumbel noise: e^(-x/b) at x/b = {mpmath.nstr(-u, 5)} is beyond "
                                 f"the range exactdp evaluates (x/b ≥ -1e18)")
        return mpmath.exp(u)

    def logpdf(self, x: mpf) -> mpf:
        """``−log b − x/b − e^{−x/b}``."""
        return -mpmath.log(self.b) - x / self.b - self._tail(x)

    def dlogpdf(self, x: mpf) -> mpf:
        """``(e^{−x/b} − 1)/b``."""
        return (self._tail(x) - 1) / self.b

    def logcdf(self, x: mpf) -> mpf:
        """``−e^{−x/b}``."""
        return -self._tail(x)

    def dlogcdf(self, x: mpf) -> mpf:
        """``e^{−x/b}/b``."""
        return self._tail(x) / self.b

    def logsf(self, x: mpf) -> mpf:
        """``log(1 − exp(−e^{−x/b}))``, as ``log(−expm1(−e^{−x/b}))``."""
        return mpmath.log(-mpmath.expm1(-self._tail(x)))

    def dlogsf(self, x: mpf) -> mpf:
        """``−p(x)/S(x)``."""
        return -mpmath.exp(self.logpdf(x) - self.logsf(x))

    def _ball_log(self, kind: Kind, side: int) -> BallLog:
        """With ``t = e^{−x/b}`` (a ball: no overflow, Arb's exponents are unbounded):
        ``log F = −t``, ``(log F)' = t/b``; ``log p = −log b − x/b − t``,
        ``(log p)' = (t − 1)/b``; ``log S = log(−expm1(−t))``, ``(log S)' = −p/S``.  ``F``,
        ``p`` and ``S = −expm1(−t)`` are entire in ``x``; every log is concave on the real line
        (module docstring)."""
        inverse, log_scale = to_arb(1 / self.scale), to_arb(self.scale).log()

        def tail(x):
            return (-x * inverse).exp()

        def log_pdf(x):
            return -log_scale - x * inverse - tail(x)

        def log_sf(x):
            return (-(-tail(x)).expm1()).log()

        if kind is Kind.CDF:
            return BallLog(lambda x: -tail(x), lambda x: tail(x) * inverse,
                           lambda x: (-tail(x)).exp())
        if kind is Kind.PDF:
            return BallLog(log_pdf, lambda x: (tail(x) - 1) * inverse,
                           lambda x: log_pdf(x).exp())
        return BallLog(log_sf, lambda x: -(log_pdf(x) - log_sf(x)).exp(),
                       lambda x: -(-tail(x)).expm1())

    def sample(self, rng: np.random.Generator, size, loc=0.0) -> np.ndarray:
        """``rng.gumbel(loc, b, size)``."""
        return rng.gumbel(loc, float(self.scale), size)


@dataclass(frozen=True)
class Gaussian(NoiseLaw):
    """``N(0, σ²)`` with ``σ`` the scale: density ``e^{−x²/(2σ²)}/(σ√(2π))``, CDF
    ``½ erfc(−x/(σ√2))``, survival ``½ erfc(x/(σ√2))`` (module docstring)."""

    symbol: ClassVar[str] = "N"
    symmetric: ClassVar[bool] = True

    def __str__(self) -> str:
        return f"N(0, {self.scale}²)"

    def _standard(self, x: mpf) -> mpf:
        """``x/(σ√2)``."""
        return x / (self.b * mpmath.sqrt(2))

    def logpdf(self, x: mpf) -> mpf:
        """``−x²/(2σ²) − log(σ√(2π))``."""
        return -(x / self.b) ** 2 / 2 - mpmath.log(self.b * mpmath.sqrt(2 * mpmath.pi))

    def dlogpdf(self, x: mpf) -> mpf:
        """``−x/σ²``."""
        return -x / self.b ** 2

    def logcdf(self, x: mpf) -> mpf:
        """``log(½ erfc(−x/(σ√2)))`` (``erfc`` keeps the far left tail without underflow)."""
        return mpmath.log(mpmath.erfc(-self._standard(x)) / 2)

    def dlogcdf(self, x: mpf) -> mpf:
        """``p(x)/F(x)``: :meth:`_tail_ratio` at ``u = −x/(σ√2) ≥ 1``, else
        ``e^{log p − log F}``."""
        u = -self._standard(x)
        return self._tail_ratio(u) if u >= 1 else mpmath.exp(self.logpdf(x) - self.logcdf(x))

    def logsf(self, x: mpf) -> mpf:
        """``log(½ erfc(x/(σ√2)))``."""
        return mpmath.log(mpmath.erfc(self._standard(x)) / 2)

    def dlogsf(self, x: mpf) -> mpf:
        """``−p(x)/S(x)``: :meth:`_tail_ratio` at ``u = x/(σ√2) ≥ 1``, else
        ``−e^{log p − log S}``."""
        u = self._standard(x)
        return -(self._tail_ratio(u) if u >= 1 else mpmath.exp(self.logpdf(x) - self.logsf(x)))

    def _tail_ratio(self, u: mpf) -> mpf:
        """``p/T`` in the tail ``u ≥ 1`` of ``T = ½ erfc(u)`` (the CDF or the survival
        function), ``√2/(σ·U(½, ½, u²))``: ``erfc(u) = e^{−u²}U(½, ½, u²)/√π`` (``U`` the
        confluent hypergeometric function: ``U(a, a, z) = e^z Γ(1 − a, z)`` and
        ``Γ(½, u²) = √π erfc(u)``, DLMF §13.6 and §8.4).  There ``log p`` and ``log T`` are
        both about ``−u²``, and ``e^{log p − log T}`` loses ``log10(u²)`` digits, as many as
        the ratio has (a Gaussian of scale ``10^{−30}`` at 0.5 from its centre:
        ``u² ≈ 10^{59}``); this form loses none."""
        return mpmath.sqrt(2) / (self.b * mpmath.hyperu(0.5, 0.5, u * u))

    def log_size(self, distance: Fraction) -> Fraction:
        """``(1 + distance/σ)²``: ``log p(x) = −x²/(2σ²) − log(σ√(2π))``, and ``log F`` and
        ``log S`` are as large in their tails."""
        return (1 + distance / self.scale) ** 2

    def off_axis_growth(self) -> Fraction:
        """``C = 1/(2σ²)``.  With ``u = x/(σ√2)``, ``v = y/(σ√2)``: ``|e^{−(u + iv)²}| =
        e^{−u²}·e^{v²}``, so the density meets the bound with equality; and for every complex
        ``w``, ``erfc(w) = (2/√π)∫_0^∞ e^{−(w + t)²} dt`` (the path from ``w`` parallel to the
        real axis), so ``|erfc(u + iv)| ≤ (2/√π)∫_0^∞ e^{−(u + t)²} dt·e^{v²} = erfc(u)·e^{v²}``:
        the CDF ``½ erfc(−u)`` and the survival function ``½ erfc(u)`` meet it too."""
        return 1 / (2 * self.scale ** 2)

    def float_log(self, kind: Kind, x: np.ndarray):
        """With ``t = ∓x/(σ√2)`` (``−`` for the CDF): ``log F`` or ``log S = log(½ erfc(t))``,
        the slopes ``±p/g = ±√(2/π)/(σ·erfcx(t))``, ``erfcx(t) = e^{t²} erfc(t)`` (no
        cancellation of two large logs in the tails; both from ``normal_doubles.py``), and the
        density's ``−x/σ²``."""
        from .normal_doubles import log_half_erfc_and_erfcx
        sigma = float(self.scale)
        if kind is Kind.PDF:
            return (-(x / sigma) ** 2 / 2 - math.log(sigma * math.sqrt(2 * math.pi)),
                    -x / sigma ** 2)
        sign = -1.0 if kind is Kind.CDF else 1.0
        log_tail, scaled = log_half_erfc_and_erfcx(sign * x / (sigma * math.sqrt(2)))
        return log_tail, -sign * math.sqrt(2 / math.pi) / (sigma * scaled)

    def _ball_log(self, kind: Kind, side: int) -> BallLog:
        """In balls, with ``u = x/(σ√2)``: ``log F = log(½ erfc(−u))``, ``log S =
        log(½ erfc(u))``, ``log p = −u² − log(σ√(2π))``; the derivatives ``p/F``, ``−p/S`` and
        ``−x/σ²``.  ``erfc`` and ``e^{−u²}`` are entire; every log is concave on the real line
        (the normal law is log-concave, and so are its CDF and survival function)."""
        sigma = to_arb(self.scale)
        inverse = 1 / (sigma * arb(2).sqrt())
        log_norm = (sigma * (2 * arb.pi()).sqrt()).log()

        def log_pdf(x):
            return -(x * inverse) ** 2 - log_norm

        def tail(x, sign):
            return _erfc(sign * x * inverse) / 2

        half = arb(1) / 2

        def tail_slope(x, sign):
            """``−sign·p/T`` (:meth:`_tail_ratio`: in the tail, ``u ≥ 1`` on the whole ball, from
            ``U(½, ½, u²)``, Arb's ``hypgeom_u``)."""
            u = sign * x * inverse
            if isinstance(u, arb) and u >= 1:
                return -sign * 2 * inverse / (u * u).hypgeom_u(half, half)
            return -sign * (log_pdf(x) - tail(x, sign).log()).exp()

        if kind is Kind.PDF:
            return BallLog(log_pdf, lambda x: -x / sigma ** 2, lambda x: log_pdf(x).exp())
        sign = -1 if kind is Kind.CDF else 1
        return BallLog(lambda x: tail(x, sign).log(), lambda x: tail_slope(x, sign),
                       lambda x: tail(x, sign))

    def sample(self, rng: np.random.Generator, size, loc=0.0) -> np.ndarray:
        """``rng.normal(loc, σ, size)``."""
        return rng.normal(loc, float(self.scale), size)


def _erfc(u):
    """``erfc(u)`` on a real (``arb``) or complex (``acb``) ball.  On a real ball that is not
    a point, Arb propagates the radius with a bound that loses about ``u²·2^{−27}`` nats at a
    large ``u`` (every digit from ``u ≈ 3·10^5``, where a Gaussian of scale ``10^{−6}`` is
    evaluated 0.5 from its centre): here ``erfc`` is taken at the midpoint and the radius
    propagated by the mean value theorem with the largest ``|erfc'(x)| = (2/√π)e^{−x²}`` on
    the ball, at its smallest ``|x|``.  On a complex ball of a radius at least 1/8, the disc
    ``|erfc(x + iy)| ≤ min(erfc(x₋)·e^{Y²}, 2 + erfc(−x₊)·e^{Y²})`` (docs/mathematics.md §16;
    ``x₋ ≤ x₊`` its real ends, ``Y`` its largest ``|y|``): about as tight as Arb's there, five
    times cheaper."""
    if isinstance(u, acb) and max(u.real.rad(), u.imag.rad()) >= 0.125:
        growth = (arb(abs(u.imag).upper()) ** 2).exp()
        bound = min((growth * _erfc(arb(u.real.lower()))).upper(),
                    (2 + growth * _erfc(-arb(u.real.upper()))).upper())
        return acb(arb(0, bound), arb(0, bound))
    if not isinstance(u, arb) or u.is_exact():
        return u.erfc()
    nearest = u.abs_lower()
    slope = 2 * (-nearest * nearest).exp() / arb.pi().sqrt()
    return arb(u.mid()).erfc() + arb(0, (slope * u.rad()).upper())


class IntegerValued:
    """What every integer-valued law shares, read from its ``log_ball_integer(kind, n)`` (balls)
    and ``_log_mpmath(kind, n)`` (mpmath) at the integer ``n``: ``F(x) = Pr[η < ⌈x⌉]``,
    ``S(x) = Pr[η ≥ ⌈x⌉]`` and the mass, 0 off the integers."""

    integer_valued: ClassVar[bool] = True

    def logpdf(self, x: mpf) -> mpf:
        """``log Pr[η = x]`` (``−inf`` off the integers)."""
        return self._log_mpmath(Kind.PDF, int(x)) if mpmath.isint(x) else _NEG_INF

    def logcdf(self, x: mpf) -> mpf:
        """``log Pr[η < x]``."""
        return self._log_mpmath(Kind.CDF, int(mpmath.ceil(x)))

    def logsf(self, x: mpf) -> mpf:
        """``log Pr[η ≥ x]``."""
        return self._log_mpmath(Kind.SF, int(mpmath.ceil(x)))

    def log_ball_at(self, kind: Kind, point: Fraction) -> arb | None:
        """``log g(point)`` in balls, ``point`` an exact rational (``None`` for the mass off the
        integers)."""
        point = Fraction(point)
        if kind is Kind.PDF and point.denominator != 1:
            return None
        return self.log_ball_integer(kind, math.ceil(point))


@dataclass(frozen=True)
class DiscreteLaplace(IntegerValued, NoiseLaw):
    """``DLap(b)`` on the integers: ``Pr[η = k] = (1 − p)/(1 + p)·p^{|k|}``, ``p = e^{−1/b}``
    (Inusah & Kozubowski 2006; Canonne, Kamath & Steinke, NeurIPS 2020, §2).

    Its tails are geometric sums: ``Pr[η ≥ n] = p^n/(1 + p)`` for an integer ``n ≥ 1`` and
    ``1 − p^{1−n}/(1 + p)`` for ``n ≤ 0``; by symmetry ``F(x) = Pr[η < x] = Pr[η ≥ 1 − ⌈x⌉]``
    and ``S(x) = Pr[η ≥ ⌈x⌉]`` at any real ``x``.  Each is written once, in logs, for any
    arithmetic (:meth:`_log_at`): mpmath (:meth:`logpdf`, :meth:`logcdf`, :meth:`logsf`) and
    Arb balls (:meth:`log_ball_at`).  η is the difference of two independent geometric
    variables of success probability ``1 − p`` (Inusah & Kozubowski 2006): the sampler.
    """

    symbol: ClassVar[str] = "DLap"
    symmetric: ClassVar[bool] = True

    @staticmethod
    def _log_at(kind: Kind, n: int, log_p, log_norm, log_one_minus_exp):
        """``log Pr[η = n]``, ``log Pr[η < n]`` or ``log Pr[η ≥ n]`` at an integer ``n``, from
        ``log p = −1/b``, ``log(1 + p)`` and ``u ↦ log(1 − e^u)`` of one arithmetic."""
        if kind is Kind.PDF:
            return log_one_minus_exp(log_p) - log_norm + abs(n) * log_p
        if kind is Kind.CDF:
            n = 1 - n
        if n >= 1:
            return n * log_p - log_norm
        return log_one_minus_exp((1 - n) * log_p - log_norm)

    def _log_mpmath(self, kind: Kind, n: int) -> mpf:
        log_p = -1 / self.b
        return self._log_at(kind, n, log_p, mpmath.log1p(mpmath.exp(log_p)),
                            lambda u: mpmath.log(-mpmath.expm1(u)))

    def log_ball_integer(self, kind: Kind, n: int) -> arb:
        """``log Pr[η = n]``, ``log Pr[η < n]`` or ``log Pr[η ≥ n]`` in balls at an integer
        ``n`` (the terms of a sum over an integer hub)."""
        log_p, log_norm = _discrete_ball_constants(self.scale, ctx.prec)
        return self._log_at(kind, n, log_p, log_norm, _log_one_minus_exp)

    def closed_interval(self, low, high) -> mpf:
        """``Pr[low ≤ η ≤ high]`` for integers (or infinite ends) ``low ≤ high``, in closed form:
        ``(p^a − p^{b+1})/(1 + p)`` for ``0 ≤ a ≤ b``, its mirror for ``a ≤ b ≤ 0``, and
        ``1 − (p^{1−a} + p^{b+1})/(1 + p)`` for ``a < 0 < b``."""
        if low > high:
            return mpf(0)
        p = mpmath.exp(-1 / self.b)

        def power(n):
            return mpf(0) if mpmath.isinf(n) else p ** n

        if low < 0 < high:
            return 1 - (power(1 - low) + power(high + 1)) / (1 + p)
        if low < 0:
            low, high = -high, -low
        if mpmath.isinf(high):
            return power(low) / (1 + p)
        return power(low) * -mpmath.expm1(-(high - low + 1) / self.b) / (1 + p)

    def interval(self, low: mpf, high: mpf) -> mpf:
        """``Pr[low < η < high]`` (ends may be ±inf): :meth:`closed_interval` of the integers
        strictly inside."""
        first = low if mpmath.isinf(low) else mpmath.floor(low) + 1
        last = high if mpmath.isinf(high) else mpmath.ceil(high) - 1
        return self.closed_interval(first, last)

    def sample(self, rng: np.random.Generator, size, loc=0.0) -> np.ndarray:
        """``loc + G1 − G2`` with ``G1, G2`` geometric of success probability
        ``1 − p = −expm1(−1/b)``."""
        success = -math.expm1(-1 / float(self.scale))
        return loc + (rng.geometric(success, size) - rng.geometric(success, size))


def _log_one_minus_exp(u: arb) -> arb:
    """``log(1 − e^u)`` for a ball ``u < 0``."""
    return (-u.expm1()).log()


@functools.lru_cache(maxsize=256)
def _discrete_ball_constants(scale: Fraction, prec: int) -> tuple[arb, arb]:
    """``(log p, log(1 + p))`` of ``DLap(scale)`` in balls at the Arb precision ``prec``."""
    log_p = -1 / to_arb(scale)
    return log_p, log_p.exp().log1p()


@dataclass(frozen=True)
class NoNoise(NoiseLaw):
    """The point mass at 0: ``F(x) = 1[x ≥ 0]``, ``S(x) = 1[x ≤ 0]``; no density."""

    scale: Fraction = Fraction(0)
    symbol: ClassVar[str] = "none"

    def __post_init__(self):
        if self.scale != 0:
            raise ValueError(f"no noise has scale 0, got {self.scale!r}")

    def __str__(self) -> str:
        return "no noise"

    @property
    def is_point_mass(self) -> bool:
        """Always True."""
        return True

    def positive_region(self, kind: Kind) -> tuple:
        """``x ≥ 0`` for the CDF, ``x ≤ 0`` for the survival function."""
        if kind is Kind.PDF:
            raise ValueError("a point mass has no density")
        return (Fraction(0), None) if kind is Kind.CDF else (None, Fraction(0))

    def logcdf(self, x: mpf) -> mpf:
        """``log 1[x ≥ 0]``."""
        return mpf(0) if x >= 0 else _NEG_INF

    def logsf(self, x: mpf) -> mpf:
        """``log 1[x ≤ 0]``."""
        return mpf(0) if x <= 0 else _NEG_INF

    def dlogcdf(self, x: mpf) -> mpf:
        """0 (the indicator is flat where it is positive)."""
        return mpf(0)

    dlogsf = dlogcdf

    def interval(self, low: mpf, high: mpf) -> mpf:
        """``1[low < 0 < high]``."""
        return mpf(int(low < 0 < high))

    def sample(self, rng: np.random.Generator, size, loc=0.0) -> np.ndarray:
        """``loc`` everywhere (no randomness is drawn)."""
        import numpy as np
        return np.zeros(size) + loc


def noise_or_none(scale: Fraction, law: type[NoiseLaw] = Laplace) -> NoiseLaw:
    """``law(scale)``, or :class:`NoNoise` for ``scale = 0``."""
    return NoNoise() if scale == 0 else law(scale)
