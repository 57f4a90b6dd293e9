"""The catalogue of published claims: the :class:`Claim` record and its registry.

A claim module (``gptt.py``, ``lyu.py``, …) declares each claim once with :func:`register_claim`;
importing the module registers it.  To add a claim, write a module that builds a :class:`Claim`
(its ``evaluate`` returns a :class:`ClaimResult`) and import it in ``exactdp/claims/__init__.py``.

Examples
--------
>>> from exactdp.claims import claim_ids, get_claim
>>> claim_ids()[:2]
('gptt-inf', 'gptt-copies')
>>> get_claim("svt4-tight").source
'Lyu, Su & Li, PVLDB 10(6) 2017 (arXiv:1603.01699), §3.2 (Alg. 4 is (1+6c)ε/4-DP, tight)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..registry import Registry
from .figure_spec import FigureSpec

#: Verdicts: the paper's statement holds for the exact numbers, or it does not, or certified
#: enclosures (``claims/certify.py``) could not decide it at the precision used.
CONFIRMED = "confirmed"
REFUTED = "refuted"
UNDECIDED = "undecided at this precision"


def verdict(holds: bool) -> str:
    """:data:`CONFIRMED` when the exact numbers bear the statement out, else :data:`REFUTED`."""
    return CONFIRMED if holds else REFUTED


@dataclass(frozen=True)
class ClaimResult:
    """What the exact computation says about one claim.

    Attributes
    ----------
    verdict : {"confirmed", "refuted", "undecided at this precision"}
        Whether the exact numbers agree with the paper's statement (undecided: the certified
        enclosures straddle a bound).
    detail : str
        The deciding number in one sentence (e.g. "exact ln ratio exceeds 2ε1 from t = 2").
    points : tuple of dict
        One JSON-ready record per evaluated family member: ``size`` (int), ``log_ratio`` (decimal
        string, ``"inf"`` allowed) and claim-specific fields (all strings or ints).
    figure : FigureSpec
        What ``DIR/<id>.png`` shows.
    closed_forms : tuple of (str, str)
        Symbolic results behind the claim: (what it is, LaTeX expression), derived with sympy.
    certified : bool
        True when the (in)equalities that decide the verdict were decided by certified
        enclosures (ball arithmetic, ``claims/certify.py``): the verdict is then a proof, not
        an agreement of two numerical methods.
    """

    verdict: str
    detail: str
    points: tuple
    figure: FigureSpec
    closed_forms: tuple = ()
    certified: bool = False


@dataclass(frozen=True)
class Claim:
    """A published claim about a mechanism family, and how to judge it exactly.

    Attributes
    ----------
    id : str
        Stable identifier (the ``--only`` value and the PNG's name).
    source : str
        Paper and section.
    statement : str
        The paper's statement as a function of the family size.
    family : str
        Mechanism and parameters, D(t), D'(t) and the output a(t).
    evaluate : callable
        ``evaluate(progress)`` computes the claim; ``progress()`` is called after each exact
        evaluation (for the progress bar).
    cost : float
        Rough run time in seconds on a 2-core machine: ``exactdp reproduce`` starts the costliest
        claims first when it runs them in parallel.
    """

    id: str
    source: str
    statement: str
    family: str
    evaluate: Callable[[Callable[[], None]], ClaimResult]
    cost: float = 10.0


_CLAIMS: Registry[Claim] = Registry("claim id")


def register_claim(claim: Claim) -> Claim:
    """Add ``claim`` to the catalogue (ids are unique) and return it."""
    return _CLAIMS.add(claim.id, claim)


def claim_ids() -> tuple[str, ...]:
    """Every registered claim id, in registration order."""
    return _CLAIMS.names()


def get_claim(claim_id: str) -> Claim:
    """The claim called ``claim_id`` (an :class:`~exactdp.errors.InputError` naming the choices
    otherwise)."""
    return _CLAIMS.get(claim_id)
