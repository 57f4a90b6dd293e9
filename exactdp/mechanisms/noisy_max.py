"""Report Noisy Max (Dwork & Roth 2014, §3.3) with Laplace, one-sided exponential or Gumbel
noise, and StatDP's four variants (Ding et al., CCS 2018).

Each query answer ``q_i`` gets independent noise of scale ``2Δ/ε`` from one law; the mechanism
outputs the index of the largest noisy answer (ε-DP) or the largest noisy *value* (StatDP's
incorrect v1b/v2b: not ε-DP).  With Gumbel noise the index is distributed as the exponential
mechanism, ``softmax(ε·q/(2Δ))`` (McSherry & Talwar, FOCS 2007; Dwork & Roth 2014, §3.4).
A new noise law is one class in ``exactdp.noise`` and one line in :data:`VARIANTS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..errors import InputError
from ..noise import Exponential, Gumbel, Laplace, NoiseLaw
from .base import Mechanism, OutputKind
from .catalogue import CatalogueEntry, register
from .statdp import STATDP
from .svt import EPS, SENSITIVITY

DWORK_ROTH = "Dwork & Roth 2014, §3.3 (Report Noisy Max)"


@dataclass(frozen=True, kw_only=True)
class NoisyMaxMechanism(Mechanism):
    """``argmax_i (q_i + η_i)`` (or ``max_i``), ``η_i`` i.i.d. draws of ``noise``.

    Attributes
    ----------
    noise : NoiseLaw
        The law of every ``η_i`` (scale ``2Δ/ε``).
    releases_value : bool
        Output the largest noisy value (a density) instead of its index (0-based, as numpy's
        ``argmax``).
    name, sensitivity, neighbours, claimed_eps, params
        See :class:`~exactdp.mechanisms.base.Mechanism`.
    """

    noise: NoiseLaw
    releases_value: bool

    def __post_init__(self):
        if self.noise.integer_valued:
            raise InputError(f"{self.name}: report noisy max's exact rule assumes ties have "
                             f"probability 0, which {self.noise} noise does not meet: write it "
                             f"as a program (ties then go to the first index)")

    @property
    def output_kind(self) -> OutputKind:
        """The index, or the largest noisy value."""
        return OutputKind.NUMBER if self.releases_value else OutputKind.INDEX


def _declare(name: str, source: str, law: Callable[..., NoiseLaw], releases_value: bool,
             true_privacy: str):
    def build(p):
        return NoisyMaxMechanism(name=name, noise=law(2 * p["sensitivity"] / p["eps"]),
                                 releases_value=releases_value, sensitivity=p["sensitivity"],
                                 claimed_eps=p["eps"], params=dict(p))

    output = "the largest noisy value" if releases_value else "the index of the largest"
    register(CatalogueEntry(name, source, f"q_i + {law.symbol}(2Δ/ε), outputs {output}",
                            (EPS, SENSITIVITY), build, "ε", true_privacy))


#: (generic name, StatDP's name or None, noise law, releases the value, true privacy)
VARIANTS = (
    ("noisy_max_laplace", "statdp.noisy_max_v1a", Laplace, False, "ε"),
    ("noisy_max_laplace_value", "statdp.noisy_max_v1b", Laplace, True,
     "not ε-DP (loss up to nε/2 on n queries that all move)"),
    ("noisy_max_exponential", "statdp.noisy_max_v2a", Exponential, False, "ε"),
    ("noisy_max_exponential_value", "statdp.noisy_max_v2b", Exponential, True,
     "not private for any finite ε"),
    ("noisy_max_gumbel", None, Gumbel, False, "ε (the exponential mechanism)"),
)
for _generic, _statdp_name, _law, _value, _truth in VARIANTS:
    _declare(_generic, DWORK_ROTH, _law, _value, _truth)
    if _statdp_name is not None:
        _declare(_statdp_name, f"{STATDP}, noisy max {_statdp_name[-3:]}", _law, _value, _truth)
