"""Report Noisy Max (Dwork & Roth, §3.3) and StatDP's four variants (Ding et al., CCS 2018).

Each query answer ``q_i`` gets independent noise of scale ``2Δ/ε`` (Laplace, or one-sided
exponential); the mechanism outputs the index of the largest noisy answer (correct, ε-DP) or the
largest noisy *value* (StatDP's incorrect v1b/v2b: not ε-DP).  Read by
``exactdp.exact.noisy_max`` (exact) and ``exactdp.sampling.families`` (sampling).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from .catalogue import CatalogueEntry, register
from .declared import Declared
from .statdp import STATDP
from .svt import EPS, SENSITIVITY

DWORK_ROTH = "Dwork & Roth 2014, §3.3 (Report Noisy Max)"


class NoiseKind(enum.Enum):
    """The noise added to every query answer."""

    #: ``Lap(b)``: density ``e^{−|x|/b}/(2b)``
    LAPLACE = "laplace"
    #: ``Exp(b)``: density ``e^{−x/b}/b`` for ``x ≥ 0``
    EXPONENTIAL = "exponential"


@dataclass(frozen=True)
class NoisyMaxMechanism(Declared):
    """``argmax_i (q_i + η_i)`` (or ``max_i``), ``η_i`` i.i.d. of kind ``noise`` and scale
    ``scale``.

    Attributes
    ----------
    name : str
    noise : NoiseKind
    scale : Fraction
        ``b = 2Δ/ε``.
    releases_value : bool
        Output the largest noisy value (a density) instead of its index (0-based, as numpy's
        ``argmax``).
    sensitivity, monotone, claimed_eps, params
        See :class:`~exactdp.mechanisms.declared.Declared`.
    """

    name: str
    noise: NoiseKind
    scale: Fraction
    releases_value: bool


def _declare(name: str, source: str, noise: NoiseKind, releases_value: bool, true_privacy: str):
    def build(p):
        return NoisyMaxMechanism(name, noise, 2 * p["sensitivity"] / p["eps"], releases_value,
                                 sensitivity=p["sensitivity"], claimed_eps=p["eps"],
                                 params=dict(p))

    law = "Lap" if noise is NoiseKind.LAPLACE else "Exp"
    output = "the largest noisy value" if releases_value else "the index of the largest"
    register(CatalogueEntry(name, source, f"q_i + {law}(2Δ/ε), outputs {output}",
                            (EPS, SENSITIVITY), build, "ε", true_privacy))


_INDEX_PRIVACY = "ε"
#: (generic name, StatDP's name, noise, releases the value, true privacy)
_VARIANTS = (
    ("noisy_max_laplace", "statdp.noisy_max_v1a", NoiseKind.LAPLACE, False, _INDEX_PRIVACY),
    ("noisy_max_laplace_value", "statdp.noisy_max_v1b", NoiseKind.LAPLACE, True,
     "not ε-DP (loss up to nε/2 on n queries that all move)"),
    ("noisy_max_exponential", "statdp.noisy_max_v2a", NoiseKind.EXPONENTIAL, False,
     _INDEX_PRIVACY),
    ("noisy_max_exponential_value", "statdp.noisy_max_v2b", NoiseKind.EXPONENTIAL, True,
     "not private for any finite ε"),
)
for _generic, _statdp_name, _noise, _value, _truth in _VARIANTS:
    _declare(_generic, DWORK_ROTH, _noise, _value, _truth)
    _declare(_statdp_name, f"{STATDP}, noisy max {_statdp_name[-3:]}", _noise, _value, _truth)
