"""``exactdp verify``: a whole-domain verdict, ``(ε, δ)``-DP or ``D_α ≤ B`` on every ordered
pair of neighbouring inputs of ``V^N`` (``exactdp.verify``), with the worst pair certified."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ..verify import verify
from .common import (add_any_pair_argument, add_jobs_argument, add_json_argument,
                     add_mechanism_arguments, add_precision_arguments, add_scheduler_argument,
                     build_mechanism, emit)


def _length(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"--length must be a positive integer, got "
                                         f"--length={text!r}")
    return value


def run_verify(args: argparse.Namespace) -> int:
    if args.eps is None and (args.alpha is None or args.bound is None):
        raise InputError("give --eps E [--delta D], or --alpha A with --bound B")
    if args.eps is not None and (args.alpha is not None or args.bound is not None):
        raise InputError("--eps (with --delta) and --alpha (with --bound) exclude each other")
    if args.delta is not None and args.eps is None:
        raise InputError("--delta goes with --eps")
    mech = build_mechanism(args)
    verdict = verify(mech, args.values, args.length, eps=args.eps,
                     delta="0" if args.delta is None else args.delta, alpha=args.alpha,
                     bound=args.bound, dps=args.dps, allow_any_pair=args.any_pair,
                     jobs=args.jobs, progress=True)
    emit(args, verdict.fields(args.dps, text=not args.json),
         f"{mech}: {verdict.claim_text(args.dps)} on every ordered "
         f"{'pair' if args.any_pair else 'neighbouring pair'} of "
         f"{{{args.values}}}^{args.length}")
    return 0


def register(subparsers) -> None:
    """Add ``verify``."""
    sub = subparsers.add_parser("verify")
    add_mechanism_arguments(sub)
    sub.add_argument("--values", required=True, metavar="V1,V2,…",
                     help="the values each query answer takes, e.g. 0,1 or -1,0,1")
    sub.add_argument("--length", required=True, type=_length, metavar="N",
                     help="the number of queries: the domain is V^N")
    sub.add_argument("--eps", metavar="E", help="claimed ε ≥ 0 of (ε, δ)-DP")
    sub.add_argument("--delta", metavar="D", help="claimed δ in [0, 1) (default 0: pure ε-DP)")
    sub.add_argument("--alpha", metavar="A", help="Rényi order α > 1 or inf (with --bound)")
    sub.add_argument("--bound", metavar="B", help="claimed bound B ≥ 0 on D_α, in nats")
    add_precision_arguments(sub, method=False)  # the digits of the worst pair's value
    add_any_pair_argument(sub, "compare every ordered pair of distinct inputs, not only "
                               "the mechanism's neighbours")
    add_jobs_argument(sub, 1)
    add_scheduler_argument(sub)
    add_json_argument(sub, 'one JSON object {"verdict", "pairs", "worst": {"d1", "d2", '
                      '"delta" (or "divergence"), "delta_lower", "delta_upper"}, '
                      '"certified_pairs", "inputs", "outputs", "method"}')
    sub.set_defaults(run=run_verify)
