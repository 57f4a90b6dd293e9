"""The normal law's log tail ``log(½ erfc(t))`` and ``erfcx(t) = e^{t²} erfc(t)`` in double
precision, elementwise over numpy arrays, without ``scipy.special`` (whose import, about 0.15 s
and mostly scipy's array-API layer, was most of a short Gaussian call's time).

Where ``erfc(t)`` is a normal double, ``t < TAIL``: the C library's ``erfc`` (``math.erfc``,
within a few units in the last place) of ``|t|``, ``log(½ erfc(t))`` for ``t ≥ 0`` and
``log1p(−½ erfc(−t))`` for ``t < 0`` (no cancellation where the log is near 0), and
``erfcx(t) = e^{t²}·erfc(t)`` (``erfc(t) = 2 − erfc(−t)`` for ``t < 0``), which overflows to
``inf`` for ``t < −26.6`` (where ``1/erfcx`` is below every double).  Rounding ``t²`` costs
``t²·2^{−53} < 2^{−43}`` relative.

From ``TAIL`` on, ``erfc(t) = e^{−t²}·U(½, ½, t²)/√π`` (``U`` the confluent hypergeometric
function: ``U(a, a, z) = e^z Γ(1 − a, z)`` and ``Γ(½, t²) = √π erfc(t)``, DLMF §13.6 and §8.4):
``log(½ erfc(t)) = −t² + log(U(½, ½, t²)/(2√π))`` and ``erfcx(t) = U(½, ½, t²)/√π``, with Arb's
``hypgeom_u`` (a certified ball, of which the midpoint is taken) at each such point; no double
underflows there, however large ``t``.
"""

from __future__ import annotations

import math

import numpy as np
from flint import arb, ctx

#: Where the Arb form takes over: ``erfc(26) ≈ 5.7·10^{−296}``, a normal double.
TAIL = 26.0


def log_half_erfc_and_erfcx(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(log(½ erfc(t)), erfcx(t))`` elementwise (module docstring); ``−inf`` and ``0`` at
    ``t = +inf``, ``0`` and ``inf`` at ``−inf``, ``nan`` at ``nan``."""
    shape = np.shape(t)
    t = np.asarray(t, dtype=float).ravel()
    log_tail = np.full(t.shape, np.nan)
    scaled = np.full(t.shape, np.nan)
    near = t < TAIL
    inside = t[near]
    small = np.fromiter(map(math.erfc, np.abs(inside)), float, inside.size)  # ≤ 1
    positive = inside >= 0
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        log_tail[near] = np.where(positive, np.log(small / 2), np.log1p(-small / 2))
        scaled[near] = np.exp(inside * inside) * np.where(positive, small, 2 - small)
    half = arb(1) / 2
    with ctx.workprec(53):
        log_norm, root_pi = (2 * arb.pi().sqrt()).log(), arb.pi().sqrt()
        for index in np.flatnonzero(t >= TAIL):
            if math.isinf(t[index]):
                log_tail[index], scaled[index] = -math.inf, 0.0
                continue
            square = arb(float(t[index])) ** 2
            u = square.hypgeom_u(half, half)
            log_tail[index] = float((u.log() - log_norm - square).mid())
            scaled[index] = float((u / root_pi).mid())
    return log_tail.reshape(shape), scaled.reshape(shape)
