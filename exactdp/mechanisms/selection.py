"""Selection mechanisms known to ``exactdp utility`` only: their expected utility is exact
(``exact/selection/``), the probability of one output is not implemented (every other command
refuses them in one line).

* ``em_top`` — the exponential mechanism run ``c`` times without replacement, budget ``ε/c``
  each, weights ``exp(ε q_i/(2cΔ))`` (``exp(ε q_i/(cΔ))`` for monotone queries; McSherry &
  Talwar, FOCS 2007; Lyu, Su & Li, PVLDB 2017, §6).  By the Gumbel-max view it selects the top
  ``c`` of ``q_i + Gumbel(β)``, ``β = 2cΔ/ε`` (``cΔ/ε``) (Durfee & Rogers, NeurIPS 2019,
  "Practical differentially private top-k selection with pay-what-you-get composition", §3).
* ``svt_retraversal`` — Sparse Vector with retraversal (Lyu, Su & Li, PVLDB 2017, §5): one
  threshold ``T + ρ``, ``ρ ~ Lap(Δ/ε1)``; the queries are traversed in order, each compared with
  fresh noise ``ν ~ Lap(2cΔ/ε2)`` (``Lap(cΔ/ε2)`` if monotone); while fewer than ``c`` are
  selected, the unselected ones are traversed again, until ``c`` are selected.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..noise import Gumbel, Laplace, NoiseLaw
from .base import Mechanism, Neighbours, OutputKind
from .catalogue import CatalogueEntry, Param, register
from .svt import CUTOFF, EPS, LYU, SENSITIVITY, THRESHOLD

MONOTONE = Param("monotone", "flag", False, "queries are monotone (Lyu §4.3)")


@dataclass(frozen=True, kw_only=True)
class ExponentialTopMechanism(Mechanism):
    """The top ``c`` of ``q_i + η_i``, ``η_i ~ noise = Gumbel(β)`` i.i.d. (module docstring)."""

    c: int
    noise: NoiseLaw

    @property
    def output_kind(self) -> OutputKind:
        """The set of selected indices."""
        return OutputKind.SELECTION


@dataclass(frozen=True, kw_only=True)
class RetraversalMechanism(Mechanism):
    """Sparse Vector with retraversal until ``c`` queries are selected (module docstring)."""

    c: int
    threshold: Fraction
    threshold_noise: NoiseLaw
    query_noise: NoiseLaw

    @property
    def output_kind(self) -> OutputKind:
        """The set of selected indices."""
        return OutputKind.SELECTION


def _build_em_top(p):
    scale = (1 if p["monotone"] else 2) * p["c"] * p["sensitivity"] / p["eps"]
    return ExponentialTopMechanism(
        name="em_top", c=p["c"], noise=Gumbel(scale), sensitivity=p["sensitivity"],
        neighbours=Neighbours.MONOTONE if p["monotone"] else Neighbours.ALL_DIFFER,
        claimed_eps=p["eps"], params=dict(p))


def _build_retraversal(p):
    c, delta = p["c"], p["sensitivity"]
    query_scale = (1 if p["monotone"] else 2) * c * delta / p["eps2"]
    return RetraversalMechanism(
        name="svt_retraversal", c=c, threshold=p["T"], threshold_noise=Laplace(delta / p["eps1"]),
        query_noise=Laplace(query_scale), sensitivity=delta,
        neighbours=Neighbours.MONOTONE if p["monotone"] else Neighbours.ALL_DIFFER,
        params=dict(p))


register(CatalogueEntry(
    "em_top", "Exponential mechanism, c times without replacement (Lyu, Su & Li, PVLDB 2017, §6)",
    "top c of q_i + Gumbel(2cΔ/ε) (Gumbel(cΔ/ε) if monotone): EM with budget ε/c per pick",
    (EPS, CUTOFF, SENSITIVITY, MONOTONE), _build_em_top, "ε", "ε", utility_only=True))

register(CatalogueEntry(
    "svt_retraversal", f"{LYU}, §5 (SVT with retraversal)",
    "ρ~Lap(Δ/ε1), ν~Lap(2cΔ/ε2) (Lap(cΔ/ε2) if monotone) fresh per comparison; unselected "
    "queries traversed again until c are selected",
    (Param("eps1", "budget", Fraction(1, 2), "threshold budget ε1"),
     Param("eps2", "budget", Fraction(1, 2), "query budget ε2"),
     CUTOFF, THRESHOLD, SENSITIVITY, MONOTONE),
    _build_retraversal, "ε1+ε2",
    "ε1+ε2 (Sparse Vector's guarantee holds for any stream of queries with at most c ⊤; "
    "retraversal only lengthens the stream)", utility_only=True))
