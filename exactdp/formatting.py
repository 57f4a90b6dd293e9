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
