"""The Gauss–Legendre planner (``exactdp.exact.backends.node_planner``): its orders against a
brute-force search over ``n`` of the bound ``h·(64/15)·M·ρ^{2−2n}/(ρ² − 1)``, evaluated term by
term in double precision or in balls."""

from __future__ import annotations

import math

import numpy as np
from flint import arb

from exactdp.exact.backends.gauss_legendre import error_bound
from exactdp.exact.backends.node_planner import MAX_NODES, checked_nodes, plan


def _log_bound(half, rho, order, log_modulus):
    """The log of the bound, written out (not ``gauss_legendre.log_error_bound``)."""
    return (math.log(half) + math.log(64 / 15) + log_modulus - math.log(rho * rho - 1)
            - (2 * order - 2) * math.log(rho))


def _fewest_by_search(half, rho, log_modulus, log_share, limit=10_000):
    """The first ``n ≥ 2`` whose bound is at most the share, by trying every ``n``."""
    for order in range(2, limit):
        if _log_bound(half, rho, order, log_modulus) <= log_share + 1e-9:
            return order
    return math.inf


def test_checked_nodes_checks_its_rule_in_balls():
    # the rule returned has a bound within the share, and one node fewer would not
    rho, half, share = arb(4), arb(1) / 2, arb(10) ** -20
    for modulus in (arb(0), arb(1), arb(10) ** 300):
        order, bound = checked_nodes(modulus, rho, half, share)
        assert bound <= share and bound == error_bound(modulus, rho, order, half)
        assert order == 2 or not error_bound(modulus, rho, order - 1, half) <= share


def test_checked_nodes_gives_up_beyond_the_largest_rule():
    # a modulus near 10^(10^40), as a double exponential reaches on a large ellipse: the
    # order from the logarithms (about 10^40/(2·log10 4) nodes) comes with an infinite bound,
    # at once, instead of a ball check that powers of ρ this large never pass
    modulus = arb(10) ** (arb(10) ** 40)
    order, bound = checked_nodes(modulus, arb(4), arb(1), arb(10) ** -20)
    assert order > MAX_NODES and not bound.is_finite()


def test_the_plan_takes_each_integrands_best_ellipse_and_the_most_nodes_per_piece():
    # two integrands (rows) on three pieces: M grows with ρ as e^{growth·ρ}
    rhos = (2.0, 4.0, 16.0)
    half = np.array([0.5, 0.1, 2.0])
    growth = np.array([[0.1, 0.5, 3.0], [1.0, 0.01, 0.2]])
    log_share = np.array([[-40.0], [-20.0]])
    rules = plan(half, lambda k: growth * rhos[k], log_share, rhos, max_order=60)
    for p in range(3):
        best = [min(_fewest_by_search(half[p], rho, growth[i, p] * rho, log_share[i, 0])
                    for rho in rhos) for i in range(2)]
        assert rules.orders[p] == max(best)
        for i in range(2):  # the bound of the chosen rule, on the integrand's best ellipse
            expected = min(_log_bound(half[p], rho, rules.orders[p], growth[i, p] * rho)
                           for rho in rhos)
            assert math.isclose(rules.log_errors[i, p], expected, rel_tol=1e-12)
            assert rules.log_errors[i, p] <= log_share[i, 0] + 1e-9
    assert not rules.split.any()


def test_a_piece_needing_more_than_the_largest_rule_is_split():
    # M = 1 on every ellipse, share e^{-200}: ρ = 2 needs about 145 nodes, ρ = 4 about 73
    rhos = (2.0, 4.0)
    half = np.array([1.0, 1.0])
    log_share = np.array([-200.0, -20.0])
    rules = plan(half, lambda k: np.zeros(2), log_share, rhos, max_order=64)
    assert rules.split.tolist() == [True, False]
    assert rules.orders[1] == _fewest_by_search(1.0, 4.0, 0.0, -20.0)
    assert rules.log_errors[0] == math.inf


def test_an_integrand_no_piece_needs_gets_no_nodes():
    rules = plan(np.array([1.0, 1.0]), lambda k: np.zeros((2, 2)), np.full((2, 1), -30.0),
                 (4.0,), needed=np.array([[True, False], [False, False]]))
    assert rules.orders.tolist() == [_fewest_by_search(1.0, 4.0, 0.0, -30.0), 0]
