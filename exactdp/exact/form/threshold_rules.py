"""The Sparse Vector family's answers to the questions of the exact engine, registered with each
question's generic function: an output's probability (its integral form, ``threshold.py``), the
largest loss over every ⊤/⊥ output, and both output distributions of a pair (divergences).

Every ⊤/⊥ output is enumerated (:func:`~exactdp.exact.losses.privacy_loss.enumerated_outputs`)
and, where the laws allow, evaluated all at once (``backends/output_tree.py``,
``backends/shared_nodes.py``); otherwise each output's certified probability is computed on its
own.  Beyond the enumeration's limit a cutoff of 1 is taken run by run of equal queries
(``divergences/threshold_runs.py``: the largest loss and ``δ(ε)``;
``divergences/renyi_runs.py``: Rényi divergences).
"""

from __future__ import annotations


from ...mechanisms.description import ThresholdMechanism
from ...precision import check_dps
from ...sequences import Runs
from ..backends import smooth_shared_nodes
from ..divergences import renyi_runs, threshold_runs
from ..divergences.output_pairs import (FormCollector, certified_balls,
                                        output_probabilities)
from ..divergences.profile import profile_by_runs
from ..divergences.renyi import divergence_by_runs, no_divergence
from ..losses.privacy_loss import (MAX_ENUMERATED_QUERIES, MaxPrivacyLoss, all_output_balls,
                                   at_once_or_alone, conclude_max_loss, enumerated_outputs,
                                   enumeration_limit, neighbouring_pair, privacy_loss,
                                   separate_best, worst_of_all_outputs)
from ..losses.supremum import max_privacy_loss
from ..probability import evaluate, probability
from .threshold import build_output_integral

#: Fewest inputs of a domain (``FormCollector.inputs``) from which ``exactdp verify`` collects
#: the forms of a Gaussian ⊤/⊥ mechanism's outputs, each distinct form evaluated once, instead
#: of a pass over all outputs of each input on shared nodes: ``svt_gaussian`` on ``{0,1}^N``
#: takes 0.090 s (pass) against 0.276 s (forms) at N = 3, 1.18 s against 1.30 s at N = 7
#: (128 inputs) and 2.43 s against 1.80 s at N = 8 (benchmarks/verify_small_domains.py).
FORMS_SHARED_FROM = 128


@probability.register
def _(mech: ThresholdMechanism, queries, output, dps: int = 30, method: str = "auto"):
    return evaluate(build_output_integral(mech, queries, output), check_dps(dps), method)


@max_privacy_loss.register
def _(mech: ThresholdMechanism, d1, d2, dps: int = 30,
      allow_any_pair: bool = False) -> MaxPrivacyLoss:
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    if _by_runs(mech, len(d1)):  # the largest loss lies at an end of a run, or at ⊥ⁿ
        best = threshold_runs.run_extremes(mech, d1, d2, dps)[0]
        return MaxPrivacyLoss(best, privacy_loss(mech, d1, d2, best, dps, allow_any_pair=True),
                              len(d1) + 1, None, None)
    outputs, shared = enumerated_outputs(mech, len(d1), "max_privacy_loss")
    best, totals = at_once_or_alone(
        shared, len(d1), lambda: worst_of_all_outputs(mech, d1, d2, outputs, dps),
        lambda: separate_best(mech, d1, d2, outputs, dps))
    return conclude_max_loss(mech, d1, d2, best, totals, len(outputs), dps)


@profile_by_runs.register
def _(mech: ThresholdMechanism, d1: Runs, d2: Runs, dps: int):
    return threshold_runs.run_profile(mech, d1, d2, dps) if _by_runs(mech, len(d1)) else None


@divergence_by_runs.register
def _(mech: ThresholdMechanism, d1: Runs, d2: Runs, dps: int):
    if not (_by_runs(mech, len(d1)) and renyi_runs.applies(mech)):
        return None
    if d1 == d2:   # one distribution: every D_α is 0 exactly
        return no_divergence
    return renyi_runs.run_divergence(mech, d1, d2, dps, enumeration_limit(mech)[1])


def _by_runs(mech: ThresholdMechanism, n: int) -> bool:
    """Whether the largest loss and ``δ(ε)`` are taken run by run (``threshold_runs.py``):
    where they apply and the outputs are too many to enumerate."""
    return threshold_runs.runs_apply(mech) and n > enumeration_limit(mech)[1]


@output_probabilities.register
def _(mech: ThresholdMechanism, d: Runs, dps: int,
      collector: FormCollector | None = None) -> dict:
    outputs, shared = enumerated_outputs(mech, len(d), "a divergence")
    # a caller sharing the forms across many inputs (``collector``) does better one output at a
    # time than with a pass of erfc's per input, where the queries are few and the inputs many
    # (``exactdp verify``)
    shared = shared and not (collector is not None and collector.inputs >= FORMS_SHARED_FROM
                             and len(d) <= MAX_ENUMERATED_QUERIES
                             and smooth_shared_nodes.applies(mech))
    return at_once_or_alone(
        shared, len(d),
        lambda: all_output_balls(mech, d.expand(), [tuple(output) for output in outputs], dps),
        lambda: certified_balls(
            mech, {tuple(output): build_output_integral(mech, d, Runs.from_items(output))
                   for output in outputs}, evaluate, dps, collector))
