"""``exactdp event``: exact probabilities (and their log ratio) of interval and box events on
numeric outputs (``exactdp.exact.continuous_events``)."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ..exact.continuous_events import event_privacy_loss, event_probability
from ..formatting import format_value
from .common import (add_json_argument, add_mechanism_arguments, add_precision_arguments,
                     build_mechanism, emit, error_digits)


def run_event(args: argparse.Namespace) -> int:
    mech = build_mechanism(args)
    pair = args.d1 is not None or args.d2 is not None
    if pair == (args.queries is not None) or (pair and (args.d1 is None or args.d2 is None)):
        raise InputError("give either --queries, or both --d1 and --d2")
    if not pair:
        result = event_probability(mech, args.queries, args.event, dps=args.dps)
        emit(args, {"probability": format_value(result.value, args.dps),
                    "log_probability": format_value(result.log_value, args.dps),
                    "error": error_digits(result.error), "method": result.method},
             f"{mech}: probability of the event {args.event}")
        return 0
    loss = event_privacy_loss(mech, args.d1, args.d2, args.event, dps=args.dps,
                              allow_any_pair=args.any_pair)
    emit(args, {"p1": format_value(loss.p1.value, args.dps),
                "p2": format_value(loss.p2.value, args.dps),
                "log_ratio": format_value(loss.log_ratio, args.dps),
                "log_ratio_error": error_digits(loss.error)},
         f"{mech}: ln(Pr[event | D1] / Pr[event | D2]) for {args.event}")
    return 0


def register(subparsers) -> None:
    """Add the ``event`` subcommand."""
    sub = subparsers.add_parser("event", help="exact probability of an interval/box event on "
                                "numeric outputs, or its privacy loss between two inputs")
    add_mechanism_arguments(sub)
    sub.add_argument("--event", required=True, metavar="E",
                     help="e.g. 'out0<3.5', 'out1 in [0,2)', clauses joined by 'and' or ';'")
    sub.add_argument("--queries", metavar="Q", help="query answers (probability of the event)")
    sub.add_argument("--d1", metavar="Q", help="query answers on D1 (with --d2: the loss)")
    sub.add_argument("--d2", metavar="Q", help="query answers on D2")
    sub.add_argument("--any-pair", action="store_true",
                     help="do not require D1 and D2 to be neighbours")
    add_precision_arguments(sub, method=False)
    add_json_argument(sub)
    sub.set_defaults(run=run_event)
