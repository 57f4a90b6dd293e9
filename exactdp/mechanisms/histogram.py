"""The Laplace histogram (Dwork & Roth 2014, §3.3) and StatDP's Lap(ε) bug (Ding et al.,
CCS 2018, Algorithms 9–10).

Every bin ``q_i`` gets independent ``Lap(b)`` noise.  Neighbouring histograms differ in one bin by
at most ``Δ`` ("one differ"), so ``b = Δ/ε`` gives ε-DP; StatDP's incorrect variant uses ``b = ε``,
which is ``Δ/ε``-DP instead (Ding et al.: "satisfies 1/ε0-differential privacy").  StatDP's own
versions output only the first noisy bin.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..noise import Laplace, NoiseLaw
from .base import Mechanism, Neighbours, OutputKind
from .catalogue import CatalogueEntry, register
from .statdp import STATDP
from .svt import EPS, SENSITIVITY

DWORK_ROTH = "Dwork & Roth 2014, §3.3 (Laplace histogram)"


@dataclass(frozen=True, kw_only=True)
class HistogramMechanism(Mechanism):
    """``(q_i + η_i)_i``, ``η_i`` i.i.d. draws of ``noise``, or only its first entry.

    Attributes
    ----------
    noise : NoiseLaw
        The law of every bin's noise.
    first_bin_only : bool
        Output only the first noisy bin (StatDP's ``histogram`` and ``histogram_eps``).
    name, sensitivity, neighbours, claimed_eps, params
        See :class:`~exactdp.mechanisms.base.Mechanism`.
    """

    noise: NoiseLaw
    first_bin_only: bool

    @property
    def output_kind(self) -> OutputKind:
        """One number (first bin only) or the vector of noisy bins."""
        return OutputKind.NUMBER if self.first_bin_only else OutputKind.NUMBERS


def _declare(name: str, source: str, correct: bool, first_bin_only: bool) -> None:
    def build(p):
        scale = p["sensitivity"] / p["eps"] if correct else p["eps"]
        return HistogramMechanism(name=name, noise=Laplace(scale), first_bin_only=first_bin_only,
                                  sensitivity=p["sensitivity"], neighbours=Neighbours.ONE_DIFFER,
                                  claimed_eps=p["eps"], params=dict(p))

    noise = "Lap(Δ/ε)" if correct else "Lap(ε) (the bug: ε instead of 1/ε)"
    output = "the first noisy bin" if first_bin_only else "every noisy bin"
    register(CatalogueEntry(name, source, f"q_i + {noise} per bin, outputs {output}",
                            (EPS, SENSITIVITY), build, "ε", "ε" if correct else "Δ/ε"))


_declare("histogram", DWORK_ROTH, True, False)
_declare("histogram_eps", f"{STATDP}, Alg. 10", False, False)
_declare("statdp.histogram", f"{STATDP}, Alg. 9", True, True)
_declare("statdp.histogram_eps", f"{STATDP}, Alg. 10", False, True)
