"""Decimal spelling of computed numbers for tables and JSON (``"inf"``, ``"-inf"`` allowed):
what is printed is what is proven — a value to the digits its bound supports, enclosure ends
rounded outward, and an error bound that covers the printed decimal itself."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import MAX_EMAX, Decimal
from fractions import Fraction

import mpmath
from flint import arb, ctx

from .errors import PrecisionError
from .precision import CertifiedPrivacyLoss, CertifiedProbability, exact_mpf
from .sequences import format_number


def format_value(value, digits: int) -> str:
    """``value`` to ``digits`` significant digits, as a decimal string.

    Infinities are spelled ``"inf"`` and ``"-inf"``; an exact zero is ``"0"``.
    """
    if mpmath.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == 0:
        return "0"
    with mpmath.workdps(digits + 10):
        return mpmath.nstr(value, digits, min_fixed=-4, max_fixed=digits)


def decimal_text(value: Fraction | float, digits: int) -> str:
    """An exact rational number (an input such as ``--eps 1/2``) as a decimal string that
    ``float``, ``decimal.Decimal`` and ``mpmath.mpf`` all read: its exact decimal when its
    denominator has no prime factor but 2 and 5, else rounded to ``digits`` significant digits
    (an infinite order ``α = inf``, a float, is ``"inf"``).

    Examples
    --------
    >>> decimal_text(Fraction(1, 2), 8), decimal_text(Fraction(3, 8), 8)
    ('0.5', '0.375')
    >>> decimal_text(Fraction(1, 3), 8), decimal_text(Fraction(7), 8)
    ('0.33333333', '7')
    """
    if not isinstance(value, Fraction):
        return format_value(value, digits)  # ±inf
    rest, scale = value.denominator, 0  # value = numerator·(10^scale/denominator)/10^scale
    for prime in (2, 5):
        power = 0
        while rest % prime == 0:
            rest, power = rest // prime, power + 1
        scale = max(scale, power)
    if rest != 1:
        with mpmath.workdps(digits + 10):
            return format_value(mpmath.mpf(value.numerator) / value.denominator, digits)
    scaled = value.numerator * 10**scale // value.denominator  # exact
    return str(Decimal(f"{scaled}e-{scale}")).replace("E", "e")


def echoed_number(value: Fraction | float, digits: int, text: bool) -> str:
    """An exact input echoed in a record (an ε, a ``t``): spelled exactly for a table
    (:func:`~exactdp.sequences.format_number`: ``1/3``), as a decimal for JSON
    (:func:`decimal_text`: ``0.333…`` to ``digits`` digits); an infinity is ``"inf"``."""
    if not isinstance(value, Fraction):
        return format_value(value, digits)
    return format_number(value) if text else decimal_text(value, digits)


def format_bound(value, digits: int, upward: bool) -> str:
    """``value`` rounded *outward* to ``digits`` significant digits: the largest decimal
    ``≤ value`` (``upward=False``) or the smallest ``≥ value`` (``upward=True``), so that printed
    ends of an enclosure still enclose.

    The scaling ``value·10^{−m}`` is done in Arb ball arithmetic, so the rounding direction is
    guaranteed however large the exponent.

    Examples
    --------
    >>> import mpmath
    >>> format_bound(mpmath.mpf(2) / 3, 5, False), format_bound(mpmath.mpf(2) / 3, 5, True)
    ('0.66666', '0.66667')
    >>> format_bound(-mpmath.exp(-10**6), 3, True)    # −e^{−10^6}: far below any float
    '-3.29e-434295'
    """
    if mpmath.isinf(value) or value == 0:
        return format_value(value, digits)
    if value < 0:
        return "-" + format_bound(mpmath.fneg(value, exact=True), digits, not upward)
    mantissa, exponent = (int(part) for part in value.man_exp)
    with ctx.workprec(mantissa.bit_length() + 64 + 4 * digits):
        exact = arb(mantissa) * arb(2) ** exponent  # exact: the precision holds every bit
        magnitude = int(mpmath.floor(mpmath.log10(abs(value))))
        shift = digits - 1 - magnitude
        scaled = exact * arb(10) ** shift
        end = scaled.upper() if upward else scaled.lower()
        integer = int((end.ceil() if upward else end.floor()).unique_fmpz())
    text = str(integer).rstrip("0") or "0"
    point = len(str(integer)) - shift  # digits before the decimal point
    if -4 < point <= digits:
        if point <= 0:
            return f"0.{'0' * -point}{text}"
        whole, fraction = text[:point].ljust(point, "0"), text[point:]
        return f"{whole}.{fraction}" if fraction else whole
    body = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"{body}e{point - 1:+d}"


def format_error(error) -> str:
    """An error bound rounded *up* to 2 significant digits (it still bounds)."""
    return format_bound(error, 2, upward=True)


def _upper(ball) -> mpmath.mpf:
    """The upper end of an Arb ball, as an exact mpf (``inf`` for a ball that is not finite,
    e.g. a distance to an infinite end)."""
    end = ball.upper()
    return exact_mpf(end) if end.is_finite() else mpmath.inf


@dataclass(frozen=True)
class PrintedNumber:
    """A computed number as printed, with what proves it.

    Attributes
    ----------
    value : str
        A decimal ``float``, ``decimal.Decimal`` and ``mpmath.mpf`` all parse (or ``"inf"``,
        ``"-inf"``): the centre to the significant digits its error supports, never fewer than
        one (inside the printed enclosure when there is one).
    error : str
        A bound on ``|value − exact|`` for the *printed* decimal, rounding included, rounded up
        to 2 significant digits.
    text : str
        The spelling for tables: ``value``, or ``"0 ± E"`` when the error reaches the value's own
        size (then not even its sign is proven; ``E`` bounds the distance from 0).
    lower, upper : str or None
        The ends of a certified enclosure rounded outward (``None`` for an estimate).
    """

    value: str
    error: str
    text: str
    lower: str | None = None
    upper: str | None = None

    def fields(self, name: str, text: bool) -> dict[str, str]:
        """``{name: …}`` plus the enclosure: ``name_lower``/``name_upper`` in JSON, one
        ``name_enclosure`` entry ``[lower, upper]`` in text."""
        if self.lower is None:
            return {name: self.text if text else self.value}
        if text:
            return {name: self.text, f"{name}_enclosure": f"[{self.lower}, {self.upper}]"}
        return {name: self.value, f"{name}_lower": self.lower, f"{name}_upper": self.upper}


def printed_number(centre, digits: int, error=None, enclosure=None) -> PrintedNumber:
    """The decimal to print for ``centre``, whose distance to the exact value is at most
    ``error`` (an estimate's bound) or which lies in ``enclosure = (lower, upper)`` with the
    exact value (a certified result), and the error bound that covers that decimal.

    Rule: with ``spread`` the engine's error (or the larger distance from ``centre`` to an end),
    the centre is printed to ``s = floor(log10(|centre|/spread))`` significant digits, clamped to
    ``[1, digits]`` (more if needed to land inside the printed enclosure); the printed error is
    ``spread + |printed − centre|`` (estimate) or ``max(printed − lower, upper − printed)``
    (enclosure), bounded above in Arb ball arithmetic (any exponent) and rounded up.
    Infinities and exact values (``spread = 0``) print as they are.  JSON takes ``value`` (it
    always parses); tables take ``text``, which says ``0 ± E`` where no digit is proven.

    Examples
    --------
    >>> import mpmath
    >>> third = mpmath.mpf(1) / 3
    >>> printed_number(third, 5, error=mpmath.mpf("1e-20"))
    PrintedNumber(value='0.33333', error='3.4e-6', text='0.33333', lower=None, upper=None)
    >>> tiny = printed_number(mpmath.mpf("-1.4e-48"), 30, error=mpmath.mpf("1.2e-43"))
    >>> tiny.value, tiny.error, tiny.text
    ('-1.0e-48', '1.3e-43', '0 ± 1.3e-43')
    """
    if mpmath.isinf(centre):
        infinite = format_value(centre, digits)
        ends = (infinite, infinite) if enclosure is not None else (None, None)
        return PrintedNumber(infinite, "0", infinite, *ends)
    for number in (centre, *(enclosure or (error,))):
        _check_printable(number)
    printed_ends = (None, None)
    if enclosure is not None:
        printed_ends = (format_bound(enclosure[0], digits, False),
                        format_bound(enclosure[1], digits, True))
    # Arb balls hold every input exactly at this precision (or enclose it), whatever the exponent
    with ctx.workprec(128 + 4 * digits + max(int(x.man).bit_length() for x in
                                             (centre, *(enclosure or (error,))))):
        if enclosure is not None:
            low, high = arb(enclosure[0]), arb(enclosure[1])

            def distance(decimal: str) -> mpmath.mpf:
                return max(_upper(arb(decimal) - low), _upper(high - arb(decimal)))
        else:
            engine_error, exact_centre = arb(error), arb(centre)

            def distance(decimal: str) -> mpmath.mpf:
                return _upper(engine_error + abs(arb(decimal) - exact_centre))
        spread = (max(_upper(arb(centre) - low), _upper(high - arb(centre)))
                  if enclosure is not None else _upper(arb(error)))
        if spread == 0:
            shown = digits
        elif spread >= abs(centre):
            shown = 1
        else:
            with mpmath.workdps(20):
                supported = int(mpmath.floor(mpmath.log10(abs(centre) / spread)))
            shown = max(1, min(digits, supported))
        value = format_value(centre, shown)
        if enclosure is not None:  # ends at the exact binary centre at the latest
            while not Decimal(printed_ends[0]) <= Decimal(value) <= Decimal(printed_ends[1]):
                shown += 1
                value = format_value(centre, shown)
        text = value
        if spread > 0 and spread >= abs(centre):
            text = f"0 ± {format_error(distance('0'))}"
        return PrintedNumber(value, format_error(distance(value)), text, *printed_ends)


def _check_printable(value) -> None:
    """:class:`~exactdp.errors.PrecisionError` for a finite ``value`` whose decimal exponent is
    beyond ``decimal.MAX_EMAX`` (``10^18 − 1``): no decimal string that Python's ``decimal``
    reads spells it (a probability near ``e^{−2.5·10^599}``, from a Gaussian of scale ``1e-300``
    between queries 1 apart)."""
    if value == 0 or not mpmath.isfinite(value):
        return
    mantissa, exponent = value.man_exp
    binary_exponent = int(exponent) + int(mantissa).bit_length()  # |value| < 2^binary_exponent
    if abs(binary_exponent) > MAX_EMAX / math.log10(2):  # an int beyond floats compares
        decimal_exponent = mpmath.nstr(binary_exponent * mpmath.log10(2), 6)
        raise PrecisionError(f"a result near 10^{decimal_exponent} has a decimal exponent "
                             f"beyond ±{MAX_EMAX}, the range of the decimal numbers exactdp "
                             f"prints (a noise scale far smaller than the distances between "
                             f"the queries); the Python API returns it as an mpmath number")


def ball_bounds(ball: arb) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The ends of an Arb ball as exact binary mpf values, rounded outward (at 64 bits beyond
    the ball's midpoint, so the rounding is far below its radius)."""
    with ctx.workprec(max(ctx.prec, ball.mid().bits() + 64)):
        return exact_mpf(ball.lower()), exact_mpf(ball.upper())


def printed_ball(ball: arb, digits: int) -> PrintedNumber:
    """:func:`printed_number` of a certified ball: its midpoint, within its enclosure."""
    return printed_number(exact_mpf(ball.mid()), digits, enclosure=ball_bounds(ball))


def _log_error_bound(probability):
    """A bound on the error of ``ln(value)`` of an estimated probability: with
    ``r = error/value < 1``, ``|ln v − ln v̂| ≤ −ln(1 − r)`` (ball arithmetic, upper end);
    ``inf`` when ``r ≥ 1``."""
    if probability.is_zero:  # ln 0 = −∞ exactly
        return mpmath.mpf(0)
    with ctx.workprec(128):
        relative = arb(probability.error) / arb(probability.value)
        if _upper(relative) >= 1:
            return mpmath.inf
        return _upper(-(-relative).log1p())


def printed_probability(result, digits: int) -> tuple[PrintedNumber, PrintedNumber]:
    """The printed probability (or density) and its natural log, for a
    :class:`~exactdp.precision.Probability` estimate (its ``error``; for the log,
    ``−ln(1 − error/value)``) or a :class:`~exactdp.precision.CertifiedProbability`
    (its enclosures ``[lower, upper]`` and ``[log_lower, log_upper]``)."""
    if isinstance(result, CertifiedProbability):
        return (printed_number(result.value, digits, enclosure=(result.lower, result.upper)),
                printed_number(result.log_value, digits,
                               enclosure=(result.log_lower, result.log_upper)))
    return (printed_number(result.value, digits, error=result.error),
            printed_number(result.log_value, digits, error=_log_error_bound(result)))


def printed_log_ratio(loss, digits: int) -> PrintedNumber:
    """The printed ``ln(p1/p2)`` of a :class:`~exactdp.precision.PrivacyLoss` (its ``error``)
    or of a :class:`~exactdp.precision.CertifiedPrivacyLoss` (its enclosure)."""
    if isinstance(loss, CertifiedPrivacyLoss):
        return printed_number(loss.log_ratio, digits,
                              enclosure=(loss.log_ratio_lower, loss.log_ratio_upper))
    return printed_number(loss.log_ratio, digits, error=loss.error)


def probability_record(result, digits: int, text: bool = False) -> dict[str, str]:
    """The printed fields of a probability: ``probability``, ``log_probability``, ``error`` and
    ``log_error`` (each covering its printed decimal), for a certified result ``lower``,
    ``upper``, ``log_lower``, ``log_upper`` rounded outward (in ``text``: ``enclosure`` and
    ``log_enclosure`` lines, and ``0 ± E`` for a value without a proven digit)."""
    value, log = printed_probability(result, digits)
    record = {"probability": value.text if text else value.value}
    if value.lower is not None and text:
        record["enclosure"] = f"[{value.lower}, {value.upper}]"
    record["log_probability"] = log.text if text else log.value
    if log.lower is not None:
        record |= ({"log_enclosure": f"[{log.lower}, {log.upper}]"} if text else
                   {"lower": value.lower, "upper": value.upper,
                    "log_lower": log.lower, "log_upper": log.upper})
    return record | {"error": value.error, "log_error": log.error}


def loss_record(loss, digits: int, text: bool = False) -> dict[str, str]:
    """The printed fields of a privacy loss: ``p1``, ``p2`` (none for a supremum that no output
    attains), ``log_ratio`` (for a certified loss also ``log_ratio_lower``/``log_ratio_upper``,
    in ``text`` one ``log_ratio_enclosure``) and ``error``, the bound on the printed
    ``log_ratio``'s distance to the exact one."""
    ratio = printed_log_ratio(loss, digits)
    record = {}
    if loss.p1 is not None:
        p1, p2 = (printed_probability(side, digits)[0] for side in (loss.p1, loss.p2))
        record = {"p1": p1.text if text else p1.value, "p2": p2.text if text else p2.value}
    return {**record, **ratio.fields("log_ratio", text), "error": ratio.error}
