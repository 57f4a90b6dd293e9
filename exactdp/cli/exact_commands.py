"""``exactdp prob``, ``loss`` and ``maxloss``: the exact engine on the command line
(an output, or with ``--event`` an event of ``exactdp.events``)."""

from __future__ import annotations

import argparse

from ..errors import InputError
from ..exact import (CertifiedPrivacyLoss, CertifiedProbability, max_privacy_loss, privacy_loss,
                     probability)
from ..exact.events import event_privacy_loss, event_probability
from ..formatting import format_bound, format_supported, format_value
from .common import (add_any_pair_argument, add_json_argument, add_mechanism_arguments,
                     add_precision_arguments, build_mechanism, chosen_method, emit,
                     error_digits)


def _check_event_method(args: argparse.Namespace) -> None:
    args.method = chosen_method(args)
    if args.event is not None and args.method != "auto":
        raise InputError(f"--method applies to --output only (events choose their own method), "
                         f"got --method {args.method} with --event")


def _enclosure(lower, upper, dps: int) -> str:
    """``[lower, upper]`` rounded outward to ``dps`` digits (the printed ends still enclose)."""
    return f"[{format_bound(lower, dps, False)}, {format_bound(upper, dps, True)}]"


def _certified_prob_fields(result, dps: int) -> dict[str, str]:
    """The enclosure of the probability and of its log, ends rounded outward."""
    return {"lower": format_bound(result.lower, dps, False),
            "upper": format_bound(result.upper, dps, True),
            "log_lower": format_bound(result.log_lower, dps, False),
            "log_upper": format_bound(result.log_upper, dps, True)}


def run_prob(args: argparse.Namespace) -> int:
    mech = build_mechanism(args)
    _check_event_method(args)
    if args.event is not None:
        result = event_probability(mech, args.queries, args.event, dps=args.dps)
        what = f"probability of the event {args.event}"
    else:
        result = probability(mech, args.queries, args.output, dps=args.dps, method=args.method)
        what = f"{'density' if result.is_density else 'probability'} of the output"
    if isinstance(result, CertifiedProbability):
        record = {"probability": format_supported(result.value, result.error, args.dps),
                  "log_probability": format_supported(
                      result.log_value, (result.log_upper - result.log_lower) / 2, args.dps),
                  **_certified_prob_fields(result, args.dps)}
        if not args.json:
            record = {"probability": record["probability"],
                      "enclosure": _enclosure(result.lower, result.upper, args.dps),
                      "log_probability": record["log_probability"],
                      "log_enclosure": _enclosure(result.log_lower, result.log_upper, args.dps)}
        emit(args, {**record, "error": error_digits(result.error), "method": result.method},
             f"{mech}: {what} (certified)")
        return 0
    emit(args, {
        "probability": format_value(result.value, args.dps),
        "log_probability": format_value(result.log_value, args.dps),
        "error": error_digits(result.error),
        "method": result.method,
    }, f"{mech}: {what}")
    return 0


def _loss_record(loss, dps: int, text: bool = False) -> dict[str, str]:
    """``p1``, ``p2``, ``log_ratio``, its computed error bound ``error`` and the ``method``; a
    certified loss has its enclosure instead of the error (``log_ratio_lower``,
    ``log_ratio_upper``, or one ``log_ratio_enclosure`` line in text)."""
    if isinstance(loss, CertifiedPrivacyLoss):
        ends = (format_bound(loss.log_ratio_lower, dps, False),
                format_bound(loss.log_ratio_upper, dps, True))
        ratio = ({"log_ratio_enclosure": f"[{ends[0]}, {ends[1]}]"} if text else
                 {"log_ratio_lower": ends[0], "log_ratio_upper": ends[1]})
        return {"p1": format_supported(loss.p1.value, loss.p1.error, dps),
                "p2": format_supported(loss.p2.value, loss.p2.error, dps),
                "log_ratio": format_supported(loss.log_ratio, loss.error, dps),
                **ratio, "error": error_digits(loss.error), "method": loss.p1.method}
    return {
        "p1": format_value(loss.p1.value, dps),
        "p2": format_value(loss.p2.value, dps),
        "log_ratio": format_supported(loss.log_ratio, loss.error, dps),
        "error": error_digits(loss.error),
        "method": loss.p1.method,
    }


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
    emit(args, _loss_record(loss, args.dps, text=not args.json),
         f"{mech}: privacy loss ln(p1/p2) of {what}{certified}")
    return 0


def run_maxloss(args: argparse.Namespace) -> int:
    mech = build_mechanism(args)
    result = max_privacy_loss(mech, args.d1, args.d2, dps=args.dps, allow_any_pair=args.any_pair)
    record = {"output": str(result.output), **_loss_record(result.loss, args.dps),
              "outputs_enumerated": str(result.outputs),
              "sum_p1": format_value(result.total1, args.dps),
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
    prob.add_argument("--queries", required=True, metavar="Q", help="e.g. 0*1000,1*1000")
    _add_output_or_event(prob)
    add_precision_arguments(prob)
    add_json_argument(prob)
    prob.set_defaults(run=run_prob)

    for name in ("loss", "maxloss"):
        sub = subparsers.add_parser(name)
        add_mechanism_arguments(sub)
        sub.add_argument("--d1", required=True, metavar="Q", help="query answers on D1")
        sub.add_argument("--d2", required=True, metavar="Q", help="query answers on D2")
        if name == "loss":
            _add_output_or_event(sub)
        add_precision_arguments(sub, method=name == "loss")
        add_any_pair_argument(sub)
        add_json_argument(sub)
        sub.set_defaults(run=run_loss if name == "loss" else run_maxloss)
