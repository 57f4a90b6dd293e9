"""Divergences of one number released with discrete Gaussian noise: ``μ + η``, ``η ~ N_ℤ(0, σ²)``.

Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
arXiv:2004.00010.  By symmetry of the law, every divergence of ``μ1 + η`` against ``μ2 + η``
depends on ``Δ = |μ1 − μ2|`` alone; write ``p(k) = e^{−k²/(2σ²)}/Z`` (``Z = θ(0)``) and
``θ(c) = Σ_{k∈ℤ} e^{−(k − c)²/(2σ²)}`` (docs/mathematics.md, "A discrete Gaussian release").

* ``Δ`` not an integer: the two outputs' supports ``μ1 + ℤ`` and ``μ2 + ℤ`` are disjoint, so
  ``δ(ε) = 1`` and ``D_α = +∞``, exactly.
* ``Δ`` an integer: the loss of the output ``μ1 + k`` is ``(Δ² − 2kΔ)/(2σ²)``, decreasing in
  ``k``, so ``{loss > ε} = {k < n}`` with ``n = ⌈Δ/2 − εσ²/Δ⌉`` and
  ``δ(ε) = F(n) − e^ε·F(n − Δ)``, ``F(x) = Pr[η < x]``;
  ``α k² + (1 − α)(k − Δ)² = (k − c)² + α(1 − α)Δ²`` with ``c = (1 − α)Δ`` gives ::

      D_α = αΔ²/(2σ²) + ln(θ(c)/θ(0)) / (α − 1),

  and ``θ(c) = σ√(2π)·θ₃(c, 2πiσ²)`` (Poisson summation; Arb's ``θ₃(z, τ) =
  Σ_n e^{iπn²τ + 2πinz}``), so ``θ(c)/θ(0) = θ₃(c, τ)/θ₃(0, τ) = Σ_n e^{−2π²σ²n²} cos(2πnc) /
  Σ_n e^{−2π²σ²n²} ≤ 1``, with equality exactly when ``c`` is an integer; ``D_∞ = +∞``.
  Hence ``sup_{α>1} D_α/α = Δ²/(2σ²)``, reached at every integer order (``zcdp.py``).
"""

from __future__ import annotations

from fractions import Fraction

from flint import acb, arb

from ...noise import Kind
from ...precision import Enclosure, to_arb
from .output_pairs import LocationShift, refined


def integer_distance(shift: LocationShift) -> int | None:
    """``Δ`` as an integer, ``None`` when it is not one (the supports are disjoint)."""
    distance = shift.distance
    return int(distance) if distance.denominator == 1 else None


def discrete_shift_delta(shift: LocationShift, eps: Fraction, dps: int) -> Enclosure:
    """``δ(ε) = F(n) − e^ε·F(n − Δ)``, ``n = ⌈Δ/2 − εσ²/Δ⌉`` (module docstring); exactly 0 for
    ``Δ = 0`` and exactly 1 for a ``Δ`` that is not an integer."""
    law, distance = shift.law, integer_distance(shift)
    if distance is None:
        return Enclosure.exact(1)
    if distance == 0:
        return Enclosure.exact(0)
    cut = -((eps * law.scale ** 2 / distance - Fraction(distance, 2)) // 1)   # ⌈Δ/2 − εσ²/Δ⌉

    def compute() -> arb:
        below = law.log_ball_integer(Kind.CDF, cut).exp()
        return below - to_arb(eps).exp() * law.log_ball_integer(Kind.CDF, cut - distance).exp()

    return refined(compute, dps, f"{law} shift by {distance}: δ(ε = {eps})")


def discrete_shift_divergence(shift: LocationShift, alpha: Fraction, dps: int) -> Enclosure:
    """``D_α = αΔ²/(2σ²) + ln(θ₃(c, 2πiσ²)/θ₃(0, 2πiσ²))/(α − 1)``, ``c = (1 − α)Δ`` (module
    docstring): ``αΔ²/(2σ²)`` exactly when ``c`` is an integer; ``+∞`` for ``α = ∞`` or a
    ``Δ`` that is not an integer, 0 for ``Δ = 0``."""
    law, distance = shift.law, integer_distance(shift)
    if distance == 0:
        return Enclosure.exact(0)
    if distance is None or alpha == float("inf"):
        return Enclosure.of_ball(arb("inf"))
    alpha = Fraction(alpha)
    leading = alpha * distance ** 2 / (2 * law.scale ** 2)
    offset = (1 - alpha) * distance
    offset -= round(offset)   # θ is 1-periodic; |c| ≤ 1/2 keeps the series short
    if offset == 0:
        return refined(lambda: to_arb(leading), dps, f"{law}: D_α")

    def compute() -> arb:
        tau = acb(0, 2 * arb.pi() * to_arb(law.scale) ** 2)
        ratio = (acb(to_arb(offset)).modular_theta(tau)[2].real
                 / acb(0).modular_theta(tau)[2].real)
        return to_arb(leading) + ratio.log() / to_arb(alpha - 1)

    return refined(compute, dps, f"{law} shift by {distance}: D_α (α = {alpha})")

