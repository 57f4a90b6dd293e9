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
