"""Decimal spelling of mpmath numbers for tables and JSON (``"inf"``, ``"-inf"`` allowed)."""

from __future__ import annotations

import mpmath


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


def format_supported(value, error, digits: int) -> str:
    """``value`` to the significant digits its absolute ``error`` supports, at most ``digits``.

    A value whose error bound reaches its own size has no defensible digit, not even its sign: it
    is spelled ``"0 ± error"``.  Infinities and exact values (``error == 0``) keep ``digits``.

    Examples
    --------
    >>> import mpmath
    >>> format_supported(mpmath.mpf("0.123456789"), mpmath.mpf("1e-5"), 30)
    '0.1235'
    >>> format_supported(mpmath.mpf("-1.4e-48"), mpmath.mpf("1.2e-43"), 30)
    '0 ± 1.2e-43'
    """
    if mpmath.isinf(value) or value == 0 or error == 0:
        return format_value(value, digits)
    if error >= abs(value):
        return f"0 ± {format_value(error, 2)}"
    supported = int(mpmath.floor(mpmath.log10(abs(value) / error)))
    return format_value(value, max(1, min(digits, supported)))


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
    from flint import arb, ctx

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
