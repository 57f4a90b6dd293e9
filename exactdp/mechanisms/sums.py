"""CheckDP's noisy-sum benchmarks (Wang et al., CCS 2020, appendix D.3–D.4; arXiv:2008.07485):
``partial_sum``, ``bad_partial_sum``, ``smart_sum`` and ``bad_smart_sum``.

Every mechanism of this family releases numbers that are linear in the queries and the noise.
Output ``j`` is::

    o_j = (o_{j−1} if carry_j else 0) + Σ_{k ∈ [first_j, last_j)} q_k + η_j,   η_j ~ Lap(scale_j)

(``scale_j = 0``: no noise, the coordinate is deterministic given the previous one).  The
declaration states only the layout and the noise scales; :meth:`NoisySum.terms` derives the terms
for ``n`` queries, and the exact engine (``exactdp.exact.form.sums``) and the sampler
(``exactdp.sampling.sums``) both read them.

* PartialSum (CheckDP Fig. 16, ``examples/partialsum.c``): one output ``Σ q + Lap(1/ε)``;
  BadPartialSum uses ``Lap(1/(2ε))`` and is 2ε-DP, not ε-DP.
* SmartSum (CheckDP Fig. 17, ``examples/smartsum.c``; Chan, Shi & Song 2011): positions
  ``i = 0..min(n−1, T)``; at a block end (``(i+1) mod M = 0``) it outputs the sum of the block's
  queries plus ``Lap(1/ε)``, elsewhere the previous output plus ``q_i + Lap(1/ε)``.  Each query
  enters at most two noisy terms: 2ε-DP (the claim ``check(2ε)``).  BadSmartSum sets the block-end
  noise to 0 (CheckDP: "changing Line 4 to η1 := 0"): the block sum is released exactly.

Neighbouring inputs differ in at most one query, by at most Δ (CheckDP's ``ONE_DIFFER``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from ..errors import InputError
from ..sequences import format_number
from .base import Mechanism, Neighbours, OutputKind
from .catalogue import CatalogueEntry, Param, register
from .checkdp import CHECKDP
from .svt import EPS, SENSITIVITY


class Layout(enum.Enum):
    """How the noisy sums are laid out over the queries."""

    #: one output: the sum of all queries (PartialSum)
    TOTAL = "total"
    #: running sums restarted at block ends (SmartSum)
    BLOCKS = "blocks"


@dataclass(frozen=True)
class SumTerm:
    """Output ``o = (previous output if carry else 0) + Σ_{first ≤ k < last} q_k + Lap(scale)``."""

    carry: bool
    first: int
    last: int
    scale: Fraction


@dataclass(frozen=True, kw_only=True)
class NoisySum(Mechanism):
    """A fully parametrised mechanism of the noisy-sum family.

    Attributes
    ----------
    layout : Layout
        ``TOTAL`` (one noisy total) or ``BLOCKS`` (SmartSum's running block sums).
    noise_scale : Fraction
        Laplace scale of the noise on every term except SmartSum's block ends.
    block_end_scale : Fraction
        Laplace scale at a block end (0: released exactly, BadSmartSum).
    block_size : int
        ``M``: a block ends at positions ``i`` with ``(i + 1) mod M = 0`` (``BLOCKS`` only).
    horizon : int or None
        ``T``: only positions ``i ≤ T`` are released (``None``: every position).
    name, sensitivity, neighbours, claimed_eps, params
        See :class:`~exactdp.mechanisms.base.Mechanism`; neighbours differ in one query
        (CheckDP's ``ONE_DIFFER``).
    """

    layout: Layout
    noise_scale: Fraction
    block_end_scale: Fraction = Fraction(0)
    block_size: int = 1
    horizon: int | None = None
    neighbours: Neighbours = Neighbours.ONE_DIFFER

    @property
    def output_kind(self) -> OutputKind:
        """A vector of numbers."""
        return OutputKind.NUMBERS

    def output_length(self, n: int) -> int:
        """How many numbers the mechanism outputs on ``n`` queries."""
        if self.layout is Layout.TOTAL:
            return 1
        return n if self.horizon is None else min(n, self.horizon + 1)

    def terms(self, n: int) -> tuple[SumTerm, ...]:
        """The linear terms of the outputs on ``n`` queries (see the module docstring).

        Examples
        --------
        >>> from exactdp import mechanism
        >>> [(t.carry, t.first, t.last) for t in mechanism("smart_sum", M=2).terms(3)]
        [(False, 0, 1), (False, 0, 2), (True, 2, 3)]
        """
        if self.layout is Layout.TOTAL:
            return (SumTerm(False, 0, n, self.noise_scale),)
        terms, block_start = [], 0
        for i in range(self.output_length(n)):
            if (i + 1) % self.block_size == 0:
                terms.append(SumTerm(False, block_start, i + 1, self.block_end_scale))
                block_start = i + 1
            else:
                terms.append(SumTerm(i > 0, i, i + 1, self.noise_scale))
        return tuple(terms)


def _horizon(value) -> int | None:
    if value is None:
        return None
    if value.denominator != 1 or value < 0:
        raise InputError(f"T must be a non-negative integer, got T={format_number(value)}")
    return int(value)


BLOCK = Param("M", "count", 2, "SmartSum block size M")
HORIZON = Param("T", "real", None, "SmartSum horizon: release positions 0..T (default: all)")


def _partial(name: str, divisor: int, true_privacy: str) -> None:
    def build(p):
        return NoisySum(name=name, layout=Layout.TOTAL,
                        noise_scale=p["sensitivity"] / (divisor * p["eps"]),
                        sensitivity=p["sensitivity"], claimed_eps=p["eps"], params=dict(p))

    noise = "Lap(Δ/ε)" if divisor == 1 else f"Lap(Δ/({divisor}ε))"
    register(CatalogueEntry(name, f"{CHECKDP}, Fig. 16 ({name.replace('_', '')})",
                            f"outputs Σq + {noise}; one query differs", (EPS, SENSITIVITY), build,
                            "ε", true_privacy))


def _smart(name: str, exact_block_end: bool, true_privacy: str) -> None:
    def build(p):
        scale = p["sensitivity"] / p["eps"]
        return NoisySum(name=name, layout=Layout.BLOCKS, noise_scale=scale,
                        block_end_scale=Fraction(0) if exact_block_end else scale,
                        block_size=p["M"], horizon=_horizon(p["T"]), sensitivity=p["sensitivity"],
                        claimed_eps=2 * p["eps"], params=dict(p))

    end = "no noise" if exact_block_end else "Lap(Δ/ε)"
    register(CatalogueEntry(name, f"{CHECKDP}, Fig. 17 ({name.replace('_', '')})",
                            f"running sums + Lap(Δ/ε), block sums at every M-th position + {end}",
                            (EPS, BLOCK, HORIZON, SENSITIVITY), build, "2ε", true_privacy))


_partial("partial_sum", 1, "ε (tight)")
_partial("bad_partial_sum", 2, "2ε")
_smart("smart_sum", False, "2ε")
_smart("bad_smart_sum", True, "not private for any finite ε")
