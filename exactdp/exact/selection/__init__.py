"""Exact expected utility of selection mechanisms: the probability that each query is selected,
and from it the expected false negative rate and score error rate.

Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6),
2017 (arXiv:1603.01699), §4–6, compare Sparse Vector variants and the exponential mechanism by
the false negative rate and the score error rate, both linear in the selection indicators
(``rates.py``).  Each ``P_i = Pr[query i is selected]`` is one integral over one noise of a
product of independent pass probabilities, summed by a truncated generating polynomial
(``generating.py``; docs/mathematics.md, "Selection probabilities"), certified
(``exact/backends/vector_quadrature.py``): each ``P_i`` is an Arb ball.  One module per kind of
mechanism, each registering itself by the type of its description (``kinds.py``):

* Sparse Vector with ⊤/⊥ outputs and a cutoff ``c`` (``sparse_vector.py``): one threshold noise
  in the given order (``given_order.py``) or a uniformly random one (``random_order.py``,
  ``random_position.py``), an integer-valued threshold noise (``integer_threshold.py``), the
  threshold redrawn after each ⊤ (``redrawn_threshold.py``, ``threshold_chain.py``);
* Sparse Vector with retraversal (``retraversal.py``);
* the exponential mechanism run ``c`` times without replacement (``exponential_top.py``).

``digits`` are decimal digits of *absolute* accuracy of each probability (every ``P_i`` lies in
``[0, 1]``, and one below ``10^{−digits}`` may be enclosed by ``[0, 10^{−digits}]``), not the
significant digits that ``dps`` means elsewhere in exactdp.
"""

# Importing each kind's module registers it with ``selection_kind``.
from . import exponential_top, retraversal, sparse_vector  # noqa: F401
from .kinds import ORDERS, check_cutoff, selection_cutoff, selection_kind
from .probabilities import selection_probabilities
from .rates import Utility, expected_utility, selection_rates, true_top

__all__ = ["ORDERS", "Utility", "check_cutoff", "expected_utility", "selection_cutoff",
           "selection_kind", "selection_probabilities", "selection_rates", "true_top"]
