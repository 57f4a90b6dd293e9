"""The relations of one traced path: its intervals on linear forms of the noises and the
densities of its released values, after each released value is solved for one of its noises.

A released number ``v = e(η)`` is solved for the noise it uses least; the density of ``a·η`` at
``v`` minus the rest of ``e`` (the Jacobian is inside the scaled law) then relates the other
noises, and every interval is rewritten without the solved noises.  ``programs/exact.py`` groups
the relations by the noises they contain and builds the path's integral form from the groups.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from ..noise import NoiseLaw
from .linear import linear_key
from .locations import TracingError
from .tracing import Path


def noise_name(index: int, path: Path) -> str:
    """``η3 (Lap(2), drawn at my.py:4: …)``: a noise as the refusals name it."""
    return f"η{index + 1} ({path.noises[index].law}, drawn at {path.noises[index].line})"


def scaled_law(law: NoiseLaw, factor: Fraction, what: str) -> NoiseLaw:
    """The law of ``factor·η`` for ``η ~ law`` (a negative factor only for a symmetric law:
    Laplace, Gaussian)."""
    if factor < 0 and not law.symmetric:
        raise TracingError(f"{what}: −η for η ~ {law} has no law in exactdp (only the "
                           f"Laplace and Gaussian laws are symmetric)")
    if law.integer_valued and abs(factor) != 1:
        raise TracingError(f"{what}: {factor}·η for η ~ {law} has no law in exactdp (a "
                           f"discrete noise is compared with coefficient ±1 only)")
    return law if factor == 1 else type(law)(law.scale * abs(factor))


def substitute(coeffs: dict, const: Fraction, solved: dict) -> tuple[dict, Fraction]:
    """``Σ coeffs·η + const`` with every solved noise replaced by its expression."""
    coeffs = dict(coeffs)
    while True:
        known = [k for k in coeffs if k in solved]
        if not known:
            return coeffs, const
        for noise in known:
            factor = coeffs.pop(noise)
            inner, shift = solved[noise]
            const += factor * shift
            for other, value in inner.items():
                total = coeffs.get(other, 0) + factor * value
                if total:
                    coeffs[other] = total
                else:
                    coeffs.pop(other, None)


class Relations:
    """The intervals and densities of one path after the released values are solved."""

    def __init__(self, path: Path, releases: list):
        self.path = path
        self.intervals: dict = {}          # key → (low, high) on Σ key·η
        self.densities: list = []          # (law, coeffs, const): density at const + Σ coeffs·η
        self.point_densities: list = []    # (law, point): a density at a fixed point
        self.feasible = True
        if not releases:  # nothing to solve: the path's keys are normalised already
            self.intervals = dict(path.intervals)
            self.feasible = all(low is None or high is None or low < high
                                for low, high in self.intervals.values())
            return
        uses = Counter(k for key in path.intervals for k, _ in key)
        for expression, _ in releases:
            uses.update(expression.coeffs)
        solved: dict = {}
        pending = []
        for expression, value in releases:
            coeffs, const = substitute(expression.coeffs, expression.const, solved)
            if not coeffs:
                raise TracingError(f"a released value ({expression}) is determined by the other "
                                   f"released values: its probability is not a density")
            noise = min(coeffs, key=lambda k: (uses[k], -k))
            if path.noises[noise].law.integer_valued:
                raise TracingError(f"a released value ({expression}) is solved for the "
                                   f"discrete {noise_name(noise, path)}: only comparisons of "
                                   f"discrete noises are modelled")
            slope = coeffs.pop(noise)
            law = scaled_law(path.noises[noise].law, slope, noise_name(noise, path))
            pending.append((law, {k: -v for k, v in coeffs.items()}, value - const))
            solved[noise] = ({k: -v / slope for k, v in coeffs.items()}, (value - const) / slope)
        for key, (low, high) in path.intervals.items():
            coeffs, const = substitute(dict(key), Fraction(0), solved)
            self._add_interval(coeffs, None if low is None else low - const,
                               None if high is None else high - const)
        for law, coeffs, const in pending:
            coeffs, const = substitute(coeffs, const, solved)
            if len(coeffs) > 1:
                names = " and ".join(noise_name(k, path) for k in sorted(coeffs))
                raise TracingError(f"a released value depends on {names} beyond the noise it "
                                   f"is solved for: not a one-dimensional integral")
            if coeffs:
                self.densities.append((law, coeffs, const))
            else:
                self.point_densities.append((law, const))

    def _add_interval(self, coeffs: dict, low, high) -> None:
        if not coeffs:
            if (low is not None and not low < 0) or (high is not None and not 0 < high):
                self.feasible = False
            return
        key, factor = linear_key(coeffs)
        low, high = [None if b is None else b / factor for b in (low, high)]
        if factor < 0:
            low, high = high, low
        old_low, old_high = self.intervals.get(key, (None, None))
        low = old_low if low is None else low if old_low is None else max(low, old_low)
        high = old_high if high is None else high if old_high is None else min(high, old_high)
        if low is not None and high is not None and low >= high:
            self.feasible = False
        self.intervals[key] = (low, high)

    def by_noise_set(self) -> dict:
        """``frozenset of noises → [relations]``; a relation is ``("interval", key, low,
        high)`` or ``("density", law, coeffs, const)``."""
        groups: dict = {}
        for key, (low, high) in self.intervals.items():
            groups.setdefault(frozenset(k for k, _ in key), []).append(
                ("interval", key, low, high))
        for law, coeffs, const in self.densities:
            groups.setdefault(frozenset(coeffs), []).append(("density", law, coeffs, const))
        return groups


def bounds_on(noise: int, other: int | None, relations: list):
    """The lower and upper bounds ``α + β·z`` on ``noise`` from its interval relations with
    ``other`` (whose value is ``z``; ``β = 0`` for a relation of ``noise`` alone)."""
    lowers, uppers = [], []
    for _, key, low, high in relations:
        coefficients = dict(key)
        a, b = coefficients[noise], coefficients.get(other, Fraction(0))
        beta = -b / a
        for bound, is_low in ((low, True), (high, False)):
            if bound is not None:
                (lowers if is_low == (a > 0) else uppers).append((bound / a, beta))
    return lowers, uppers
