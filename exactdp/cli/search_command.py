"""``exactdp search``: the exact worst-case search over neighbouring inputs (``exactdp.search``)."""

from __future__ import annotations

import argparse

from .. import search as worst_case
from ..errors import InputError
from .common import add_json_argument, add_mechanism_arguments, build_mechanism, emit


def run_search(args: argparse.Namespace) -> int:
    mech = build_mechanism(args)
    if args.rho is not None:
        return run_zcdp_search(args, mech)
    if args.alpha is not None:
        return run_renyi_search(args, mech)
    if args.delta is not None:
        return run_delta_search(args, mech)
    if args.eps is not None:
        raise InputError(f"--eps={args.eps} needs --delta: the search by loss checks the "
                         f"mechanism's own claimed ε")
    result = worst_case.search(mech, max_length=args.max_length, seed=args.seed,
                               budget=args.budget, max_evaluations=args.evaluations, dps=args.dps,
                               progress=True)
    record = result.record(args.dps, text=not args.json)
    emit(args, record if args.json else {key: str(value) for key, value in record.items()},
         f"{mech}: largest exact privacy loss found")
    return 0


def run_delta_search(args: argparse.Namespace, mech) -> int:
    from ..delta_search import search_delta

    result = search_delta(mech, args.delta, args.eps, max_length=args.max_length, seed=args.seed,
                          budget=args.budget, max_evaluations=args.evaluations, dps=args.dps,
                          progress=True)
    emit(args, result.record(args.dps, text=not args.json),
         f"{mech}: largest certified δ(ε) found")
    return 0


def run_renyi_search(args: argparse.Namespace, mech) -> int:
    from ..renyi_search import search_renyi

    return _divergence_search(
        args, mech, search_renyi, args.alpha, (args.delta, args.eps),
        "--alpha searches for the largest Rényi divergence D_α: it takes neither --delta nor "
        "--eps", "largest certified Rényi divergence D_α found")


def run_zcdp_search(args: argparse.Namespace, mech) -> int:
    from ..renyi_search import search_zcdp

    return _divergence_search(
        args, mech, search_zcdp, args.rho, (args.delta, args.eps, args.alpha),
        "--rho searches for the largest zCDP ρ = sup_α D_α/α: it takes neither --delta, --eps "
        "nor --alpha", "largest certified zCDP ρ = sup_α D_α/α found")


def _divergence_search(args: argparse.Namespace, mech, search, target, others: tuple,
                       refusal: str, found: str) -> int:
    """``search(mech, target, …)`` (``--alpha`` or ``--rho``) with the common options, refused
    in one line when one of ``others`` is given too."""
    if any(option is not None for option in others):
        raise InputError(refusal)
    result = search(mech, target, max_length=args.max_length, seed=args.seed,
                    budget=args.budget, max_evaluations=args.evaluations, dps=args.dps,
                    progress=True)
    emit(args, result.record(args.dps, text=not args.json), f"{mech}: {found}")
    return 0


def register(subparsers) -> None:
    """Add the ``search`` subcommand."""
    sub = subparsers.add_parser("search")
    add_mechanism_arguments(sub)
    sub.add_argument("--max-length", type=int, default=5, metavar="N",
                     help=f"longest query vector tried (default 5; a Sparse Vector variant may "
                     f"have at most {worst_case.MAX_PATTERNS} ⊤/⊥ outputs on it, e.g. N ≤ 12 "
                     f"without cutoff); progress is reported on stderr")
    sub.add_argument("--seed", type=int, default=0,
                     help="seed of the candidates, a non-negative integer (default 0)")
    sub.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                     help="wall-clock limit "
                     "(default: none, so the result depends on the seed only)")
    sub.add_argument("--evaluations", type=int, default=200, metavar="K",
                     help="limit on input pairs scored; the reproducible limit (default 200)")
    sub.add_argument("--delta", metavar="D", default=None,
                     help="search for δ(ε) > D instead (an (ε, δ) claim, D in [0, 1)): each pair "
                     "is scored by its certified privacy profile δ(ε), the larger direction")
    sub.add_argument("--eps", metavar="E", default=None,
                     help="the ε of the (ε, δ) claim with --delta (default: the mechanism's "
                     "claimed ε)")
    sub.add_argument("--alpha", metavar="A", default=None,
                     help="search for the largest Rényi divergence D_α(M(D1) ‖ M(D2)) instead "
                     "(A > 1 or inf): each pair is scored by its certified D_α, the larger "
                     "direction")
    sub.add_argument("--rho", metavar="R", default=None,
                     help="check a claim of R-zCDP instead (R > 0): each pair is scored by its "
                     "certified ρ = sup over α > 1 of D_α/α, the larger direction; a pair whose "
                     "ρ lies above R is a violation")
    sub.add_argument("--dps", type=int, default=15, help="significant digits (default 15)")
    add_json_argument(sub)
    sub.set_defaults(run=run_search)
