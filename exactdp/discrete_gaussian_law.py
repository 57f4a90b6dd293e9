"""The discrete Gaussian law on the integers, ``N_ℤ(0, σ²)``.

Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
arXiv:2004.00010, Definition 1::

    Pr[η = k] = e^{−k²/(2σ²)} / Z,      Z = Σ_{j∈ℤ} e^{−j²/(2σ²)} = θ₃(0, q),  q = e^{−1/(2σ²)},

``θ₃`` the Jacobi theta function.  As for every integer-valued law (``noise.DiscreteLaplace``),
``F(x) = Pr[η < x]`` and ``S(x) = Pr[η ≥ x]``, so ``F + S = 1``; by symmetry
``F(x) = S(1 − ⌈x⌉)`` and ``S(x) = S(⌈x⌉)``.  With the tail sum
``T(n) = Σ_{k≥n} e^{−k²/(2σ²)}``, ``S(n) = T(n)/Z`` for ``n ≥ 1`` and ``1 − T(1 − n)/Z`` for
``n ≤ 0`` (then ``T(1 − n)/Z ≤ T(1)/Z < ½``: no cancellation).

**Certified.**  ``Z`` is Arb's ``θ₃(0, τ)`` at ``τ = i/(2πσ²)`` (``acb.modular_theta``, whose
``q = e^{iπτ}``; Arb bounds the series it truncates).  ``T(n)`` is a sum of its first terms plus
a bound of the rest: for integers ``k ≥ m ≥ 0``, ``k² − m² = (k − m)(k + m) ≥ (k − m)(2m + 1)``,
so ``e^{−k²/(2σ²)} ≤ e^{−m²/(2σ²)}·r^{k−m}`` with ``r = e^{−(2m+1)/(2σ²)} < 1`` and ::

    Σ_{k≥m} e^{−k²/(2σ²)} ≤ e^{−m²/(2σ²)} / (1 − e^{−(2m+1)/(2σ²)})        (m ≥ 0),

which is added as the ball ``[0, bound]`` (docs/mathematics.md §3).  Every value is an
enclosure, whatever the precision.  The mpmath functions (the estimate side, the samplers'
checks) are the same balls' centres at mpmath's precision plus guard bits.

**Log-concave.**  ``log Pr[η = k] = −k²/(2σ²) − log Z`` is concave in ``k``, and the tail sums
of a log-concave sequence are log-concave (docs/mathematics.md §3), so the mass, ``S`` and ``F``
are log-concave sequences: what the sum over an integer hub bounds its tails with
(``exact/backends/discrete_hub.py``).

**Sampler.**  Canonne, Kamath & Steinke's Algorithm 3 (arXiv:2004.00010): with ``t = ⌊σ⌋ + 1``, draw
``Y ~ DLap(t)`` and accept it with probability ``exp(−(|Y| − σ²/t)²/(2σ²))``; repeated until
accepted, ``Y`` has the law ``N_ℤ(0, σ²)``.  Vectorised: a batch of candidates at a time, as many
as the acceptance rate so far says are needed.  The acceptance test compares a uniform double
with the probability in doubles (the paper's Bernoulli sampler is exact in rationals; a double
is exact to 2^{−53}, the precision of every continuous sampler here).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, ClassVar

import mpmath
from flint import acb, arb, ctx
from mpmath import mpf

from .errors import PrecisionError
from .noise import DiscreteLaplace, IntegerValued, Kind, NoiseLaw
from .precision import exact_mpf, to_arb

if TYPE_CHECKING:  # numpy is imported where samples are drawn, not to list the catalogue
    import numpy as np

#: Tail sums stored per block computed upwards (downwards each costs one term).
BLOCK = 64
#: How often (in terms) a tail sum beyond its block tries the bound of the rest.
CHECK_EVERY = 16
#: The most terms one tail sum may add (``T(n)`` costs about ``σ·√(2·bits·ln 2)`` terms at
#: ``n = 0``): a larger ``σ`` is refused rather than summed for minutes.
MAX_TERMS = 10 ** 6
#: Bits beyond mpmath's precision at which the mpmath functions take their balls' centres.
MPMATH_GUARD_BITS = 20


@dataclass(frozen=True)
class DiscreteGaussian(IntegerValued, NoiseLaw):
    """``N_ℤ(0, σ²)`` on the integers, ``σ`` the scale: ``Pr[η = k] = e^{−k²/(2σ²)}/Z``
    (Canonne, Kamath & Steinke, NeurIPS 2020; module docstring)."""

    symbol: ClassVar[str] = "DGauss"
    symmetric: ClassVar[bool] = True

    def __str__(self) -> str:
        return f"N_Z(0, {self.scale}²)"

    def log_size(self, distance: Fraction) -> Fraction:
        """``(1 + distance/σ)²``: ``log Pr[η = k] = −k²/(2σ²) − log Z``, and the logs of the
        tails are as large."""
        return (1 + distance / self.scale) ** 2

    def log_ball_integer(self, kind: Kind, n: int) -> arb:
        """``log Pr[η = n]``, ``log Pr[η < n]`` or ``log Pr[η ≥ n]`` in balls at an integer ``n``
        (flint's current precision; module docstring)."""
        tails = _tails(self.scale, ctx.prec)
        if kind is Kind.PDF:
            return -to_arb(n * n * tails.rate) - tails.log_normaliser
        if kind is Kind.CDF:
            n = 1 - n
        if n >= 1:
            return tails.log_tail(n) - tails.log_normaliser
        return (-(tails.log_tail(1 - n) - tails.log_normaliser).expm1()).log()

    def _log_mpmath(self, kind: Kind, n: int) -> mpf:
        """:meth:`log_ball_integer` as an mpf: the ball's centre at mpmath's precision plus
        :data:`MPMATH_GUARD_BITS`."""
        with ctx.workprec(mpmath.mp.prec + MPMATH_GUARD_BITS):
            return +exact_mpf(self.log_ball_integer(kind, n).mid())

    def interval(self, low: mpf, high: mpf) -> mpf:
        """``Pr[low < η < high]`` (ends may be ±inf): ``Pr[a ≤ η < b + 1]`` of the integers
        ``a … b`` strictly inside, from :meth:`~exactdp.noise.NoiseLaw.log_interval_ball`."""
        first = None if low == -mpmath.inf else int(mpmath.floor(low)) + 1
        end = None if high == mpmath.inf else int(mpmath.ceil(high))
        with ctx.workprec(mpmath.mp.prec + MPMATH_GUARD_BITS):
            log = self.log_interval_ball(first, end)
            return mpf(0) if log is None else +exact_mpf(log.exp().mid())

    def sample(self, rng: np.random.Generator, size, loc=0.0) -> np.ndarray:
        """``loc + η`` by Canonne, Kamath & Steinke's Algorithm 3 (module docstring): candidates
        ``Y ~ DLap(t)``, ``t = ⌊σ⌋ + 1``, accepted with probability
        ``exp(−(|Y| − σ²/t)²/(2σ²))``, in batches until ``size`` are accepted."""
        import numpy as np
        sigma = float(self.scale)
        t = math.floor(self.scale) + 1
        proposal = DiscreteLaplace(Fraction(t))
        shift, spread = sigma * sigma / t, 2 * sigma * sigma
        wanted = 1 if size is None else int(np.prod(size))
        accepted, drawn, kept = [], 0, 0
        while kept < wanted:
            # a batch of what the acceptance rate so far (a guess of 1/4 before the first
            # batch, never below 1/20) says is still needed
            rate = max(kept / drawn, 0.05) if drawn else 0.25
            batch = max(64, math.ceil(1.1 * (wanted - kept) / rate))
            candidates = proposal.sample(rng, batch, loc=0)
            accept = rng.random(batch) < np.exp(-(np.abs(candidates) - shift) ** 2 / spread)
            accepted.append(candidates[accept])
            drawn, kept = drawn + batch, kept + int(np.count_nonzero(accept))
        draws = np.concatenate(accepted)[:wanted]
        return loc + (draws[0] if size is None else draws.reshape(size))


class _Tails:
    """``log Z`` and ``log T(n)`` (``n ≥ 0``) of ``N_ℤ(0, σ²)`` in balls at one Arb precision,
    each ``T(n)`` computed once: from a stored ``T(n + 1)`` as ``e^{−n²/(2σ²)} + T(n + 1)``,
    else with the :data:`BLOCK` values above it (:meth:`_block`)."""

    def __init__(self, sigma: Fraction, prec: int):
        #: ``1/(2σ²)``, exact
        self.rate = 1 / (2 * sigma ** 2)
        self.sigma = sigma
        self.prec = prec
        tau = acb(0, 1 / (2 * arb.pi() * to_arb(sigma) ** 2))
        #: ``log θ₃(0, τ)`` (module docstring)
        self.log_normaliser = acb(0).modular_theta(tau)[2].real.log()
        self.rate_ball = to_arb(self.rate)
        self.sums: dict[int, arb] = {}

    def weight(self, k: int) -> arb:
        """``e^{−k²/(2σ²)}``."""
        return (-(k * k) * self.rate_ball).exp()

    def rest(self, m: int) -> arb:
        """The bound ``e^{−m²/(2σ²)}/(1 − e^{−(2m+1)/(2σ²)})`` on ``T(m)``, ``m ≥ 0`` (module
        docstring)."""
        return self.weight(m) / -(-(2 * m + 1) * self.rate_ball).expm1()

    def log_tail(self, n: int) -> arb:
        """``log T(n)`` for an integer ``n ≥ 0``."""
        value = self.sums.get(n)
        if value is None:
            above = self.sums.get(n + 1)
            if above is None:
                self._block(n)
            else:
                self.sums[n] = self.weight(n) + above
            value = self.sums[n]
        return value.log()

    def _block(self, n: int) -> None:
        """``T(k)`` for ``k = n … n + BLOCK − 1`` at least: the terms from ``n`` up to the first
        ``m`` whose bound of the rest is below ``2^{−prec}·e^{−(n+BLOCK−1)²/(2σ²)}``, the rest
        added as the ball ``[0, bound]``, then the sums from the top down, each ``T(k)`` stored
        where the bound is at most ``2^{−prec}·e^{−k²/(2σ²)}`` of it (every ``k`` of the block,
        and the ``k`` above it as far as that holds)."""
        last = n + BLOCK - 1
        scale = arb(2) ** -self.prec
        target = (self.weight(last) * scale).lower()
        weights = []
        m = n
        # the bound is tried every CHECK_EVERY terms beyond the block (it costs two exponentials)
        while m <= last or (m - last) % CHECK_EVERY or not self.rest(m).upper() <= target:
            if len(weights) > MAX_TERMS:
                raise PrecisionError(f"{DiscreteGaussian(self.sigma)}: a tail sum needs more "
                                     f"than {MAX_TERMS} terms (σ is too large)")
            weights.append(self.weight(m))
            m += 1
        rest = self.rest(m).upper()
        total = arb(0, rest).nonnegative_part()
        for k in range(m - 1, n - 1, -1):
            total += weights[k - n]
            if k <= last or (weights[k - n] * scale).lower() >= rest:
                self.sums[k] = total


@functools.lru_cache(maxsize=64)
def _tails(sigma: Fraction, prec: int) -> _Tails:
    """The tail sums of ``N_ℤ(0, σ²)`` at the Arb precision ``prec`` (flint's current one)."""
    return _Tails(sigma, prec)
