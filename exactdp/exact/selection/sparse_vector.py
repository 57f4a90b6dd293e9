"""The Sparse Vector variants with ⊤/⊥ outputs and a cutoff as a selection kind: what is
modelled, and which computation runs — a threshold redrawn after each ⊤
(``redrawn_threshold.py``, given order), an integer-valued threshold noise
(``integer_threshold.py``), else one threshold noise ``z`` integrated over in the given
(``given_order.py``) or a uniformly random order (``random_order.py``)."""

from __future__ import annotations

from ...errors import InputError
from ...mechanisms.base import OutputKind
from ...mechanisms.description import ThresholdMechanism
from .given_order import given_order_probabilities
from .integer_threshold import integer_threshold
from .kinds import SelectionKind, register_kind
from .pass_probabilities import PassProbabilities
from .random_order import random_order_probabilities
from .redrawn_threshold import redrawn_threshold


def _check(mech: ThresholdMechanism, queries) -> None:
    """⊤/⊥ outputs, query noise, and integer answers for integer-valued noise (as
    :func:`exactdp.probability`)."""
    if mech.output_kind is not OutputKind.FLAGS:
        raise InputError(f"utility needs ⊤/⊥ outputs, but {mech.name} releases numbers")
    if mech.query_noise.is_point_mass:
        raise InputError(f"utility needs query noise, but {mech.name} has none")
    mech.check_queries(queries)


def _order(mech: ThresholdMechanism, order: str) -> str:
    """Either order, but the given one only for a threshold redrawn after each ⊤."""
    if order == "random" and mech.redraw_threshold:
        raise InputError(f"{mech.name} redraws its threshold after each ⊤: it is modelled in the "
                         f"given order only")
    return order


def _probabilities(mech: ThresholdMechanism, values: list, c: int, order: str, digits: int,
                   tolerance, progress, jobs: int) -> list:
    """``P_i`` by the computation the variant needs (module docstring)."""
    if mech.redraw_threshold:
        return redrawn_threshold(mech, values, c, tolerance, progress, jobs)
    if mech.threshold_noise.integer_valued:
        return integer_threshold(mech, values, c, order, tolerance, progress)
    laws = PassProbabilities(mech.threshold_noise, mech.query_noise, mech.threshold, values,
                             tolerance)
    if order == "given":
        return given_order_probabilities(laws, c, tolerance, progress, jobs)
    return random_order_probabilities(laws, c, tolerance, progress, jobs)


register_kind(ThresholdMechanism, SelectionKind(
    cutoff=lambda mech: mech.cutoff, check=_check, order=_order, probabilities=_probabilities))
