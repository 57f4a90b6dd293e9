"""The Laplace histogram (Dwork & Roth, §3.3) and StatDP's Lap(ε) bug (Ding et al., CCS 2018,
Algorithms 9–10, seed 000).

Every bin ``q_i`` gets independent ``Lap(b)`` noise.  Neighbouring histograms differ in one bin by
at most ``Δ`` ("one differ"), so ``b = Δ/ε`` gives ε-DP; StatDP's incorrect variant uses ``b = ε``,
which is ``Δ/ε``-DP instead (seed 000: "satisfies 1/ε0-differential privacy").  StatDP's own
versions output only the first noisy bin.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .catalogue import CatalogueEntry, register
from .declared import Declared
from .statdp import STATDP
from .svt import EPS, SENSITIVITY

DWORK_ROTH = "Dwork & Roth 2014, §3.3 (Laplace histogram)"


@dataclass(frozen=True)
class HistogramMechanism(Declared):
    """``(q_i + Lap(scale))_i``, or only its first entry.

    Attributes
    ----------
    name : str
    scale : Fraction
        The Laplace scale ``b`` of every bin's noise.
    first_bin_only : bool
        Output only the first noisy bin (StatDP's ``histogram`` and ``histogram_eps``).
    sensitivity, monotone, claimed_eps, params
        See :class:`~exactdp.mechanisms.declared.Declared`.
    """

    name: str
    scale: Fraction
    first_bin_only: bool


def _declare(name: str, source: str, correct: bool, first_bin_only: bool) -> None:
    def build(p):
        scale = p["sensitivity"] / p["eps"] if correct else p["eps"]
        return HistogramMechanism(name, scale, first_bin_only, sensitivity=p["sensitivity"],
                                  one_differ=True, claimed_eps=p["eps"], params=dict(p))

    noise = "Lap(Δ/ε)" if correct else "Lap(ε) (the bug: ε instead of 1/ε)"
    output = "the first noisy bin" if first_bin_only else "every noisy bin"
    register(CatalogueEntry(name, source, f"q_i + {noise} per bin, outputs {output}",
                            (EPS, SENSITIVITY), build, "ε", "ε" if correct else "Δ/ε"))


_declare("histogram", DWORK_ROTH, True, False)
_declare("histogram_eps", f"{STATDP}, Alg. 10", False, False)
_declare("statdp.histogram", f"{STATDP}, Alg. 9", True, True)
_declare("statdp.histogram_eps", f"{STATDP}, Alg. 10", False, True)
