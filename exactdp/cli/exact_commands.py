"""``exactdp prob``, ``loss`` and ``maxloss``: the exact engine on the command line
(an output, or with ``--event`` an event of ``exactdp.events``)."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ..exact import (CertifiedPrivacyLoss, CertifiedProbability, max_privacy_loss, privacy_loss,
                     probability)
from ..exact.event_probability.rules import event_privacy_loss, event_probability
from ..formatting import format_value, loss_record, probability_record
from .common import (add_any_pair_argument, add_json_argument, add_mechanism_arguments,
                     add_precision_arguments, build_mechanism, chosen_method, emit,
                     query_text)


def _check_event_method(args: argparse.Namespace) -> None:
    args.method = chosen_method(args)
    if args.event is not None and args.method != "auto":
        raise InputError(f"--method applies to --output only (events choose their own method), "
                         f"got --method {args.method} with --event")


def run_prob(args: argparse.Namespace) -> int:
    mech = build_mechanism(args)
    _check_event_method(args)
    if args.event is not None:
        result = event_probability(mech, args.queries, args.event, dps=args.dps)
        what = f"probability of the event {args.event}"
    else:
        result = probability(mech, args.queries, args.output, dps=args.dps, method=args.method)
        what = f"{'density' if result.is_density else 'probability'} of the output"
    certified = " (certified)" if isinstance(result, CertifiedProbability) else ""
    emit(args, {**probability_record(result, args.dps, text=not args.json),
                "method": result.method}, f"{mech}: {what}{certified}")
    return 0


def run_loss(args: argparse.Namespace) -> int:
    mech = build_mechanism(args)
    _check_event_method(args)
    if args.event is not None:
        loss = event_privacy_loss(mech, args.d1, args.d2, args.event, dps=args.dps,
                                  allow_any_pair=args.any_pair)
        what = f"the event {args.event}"
    else:
        loss = privacy_loss(mech, args.d1, args.d2, args.output, dps=args.dps,
                            method=args.method, allow_any_pair=args.any_pair)
        what = "the output"
    certified = " (certified)" if isinstance(loss, CertifiedPrivacyLoss) else ""
    emit(args, {**loss_record(loss, args.dps, text=not args.json), "method": loss.p1.method},
         f"{mech}: privacy loss ln(p1/p2) of {what}{certified}")
    return 0


def run_maxloss(args: argparse.Namespace) -> int:
    """The worst output and its loss; a supremum that no output attains says where it is
    approached (``output`` ``null`` and ``approached`` in JSON); ``outputs_enumerated``,
    ``sum_p1``, ``sum_p2`` when the outputs were enumerated (not for a released number; Sparse
    Vector taken run by run of equal queries has ``outputs_enumerated`` alone)."""
    mech = build_mechanism(args)
    result = max_privacy_loss(mech, args.d1, args.d2, dps=args.dps, allow_any_pair=args.any_pair)
    text = not args.json
    if result.output is not None:
        record = {"output": str(result.output)}
    elif text:
        record = {"output": f"none (not attained: approached as {result.approached})"}
    else:
        record = {"output": None, "approached": result.approached}
    record |= {**loss_record(result.loss, args.dps, text=text), "method": result.method}
    if result.outputs is not None:
        record |= {"outputs_enumerated": str(result.outputs)}
    if result.total1 is not None:
        record |= {"sum_p1": format_value(result.total1, args.dps),
                   "sum_p2": format_value(result.total2, args.dps)}
    emit(args, record, f"{mech}: largest |ln(p1/p2)| over every output")
    return 0


def _add_output_or_event(parser: argparse.ArgumentParser) -> None:
    chosen = parser.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--output", metavar="O", help="one output, e.g. F*1000,T*1000")
    chosen.add_argument("--event", metavar="E", help="an event instead of one output: clauses "
                        "joined by 'and', e.g. 'out0<3.5', 'out1 in [0,2)' (outJ: the J-th "
                        "number of a numeric output), 'false_count=3', 'hamming=2', 'index=0', "
                        "'last in (-inf, 2.5)', 'last=F'; bounds are exact decimals")


def register(subparsers) -> None:
    """Add ``prob``, ``loss`` and ``maxloss``."""
    prob = subparsers.add_parser("prob")
    add_mechanism_arguments(prob)
    prob.add_argument("--queries", required=True, metavar="Q", type=query_text,
                      help="e.g. 0*1000,1*1000, or @FILE: one number per line")
    _add_output_or_event(prob)
    add_precision_arguments(prob)
    add_json_argument(prob)
    prob.set_defaults(run=run_prob)

    for name in ("loss", "maxloss"):
        sub = subparsers.add_parser(name)
        add_mechanism_arguments(sub)
        sub.add_argument("--d1", required=True, metavar="Q", type=query_text,
                         help="query answers on D1 (or @FILE: one number per line)")
        sub.add_argument("--d2", required=True, metavar="Q", type=query_text,
                         help="query answers on D2 (or @FILE)")
        if name == "loss":
            _add_output_or_event(sub)
        add_precision_arguments(sub, method=name == "loss")
        add_any_pair_argument(sub)
        add_json_argument(sub)
        sub.set_defaults(run=run_loss if name == "loss" else run_maxloss)
