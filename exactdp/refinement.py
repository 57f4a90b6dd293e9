"""The one refine-until-narrow loop: repeat a computation at a doubling precision until its
result is narrow enough, else a :class:`~exactdp.errors.PrecisionError`.

Every certified computation that cannot know beforehand how much precision its rounding and
cancellation will take (a ball's radius is known only after the ball is computed) runs through
:func:`refine`: the divergences' enclosures (``exact/divergences/output_pairs.py``), the certified
probabilities' goal (``exact/backends/certified.py``), the reconstruction attacks' truncations and
ceilings (``attacks/``), and, where an attempt measures the digits it lost and the next
precision adds them rather than doubling, the closed form's expansion
(``exact/backends/closed_form.py``) and a program's difference of two CDFs
(``programs/exact.py``).  Doubling costs at most twice the last, sufficient, attempt in all
(``Σ_{k<K} 2^k < 2^K``), and a ball's radius shrinks like ``2^{−precision}`` once the precision
exceeds the digits the computation loses, so a few doublings suffice.
"""

from __future__ import annotations

from typing import Callable, TypeVar

from .errors import PrecisionError

Result = TypeVar("Result")


def refine(attempt: Callable[[int], tuple[bool, Result]], start: int, most: int,
           failure: Callable[[Result, int], str],
           following: Callable[[Result, int], int | None] | None = None,
           tries: int | None = None) -> Result:
    """The result of the first narrow ``attempt(p)`` for ``p = start, 2·start, 4·start, …``
    (or the precisions ``following`` chooses) up to ``most``, in at most ``tries`` attempts.

    Parameters
    ----------
    attempt : callable
        ``attempt(p)`` → ``(narrow, result)``: the computation at precision ``p`` (bits, digits
        or a goal: whatever the caller doubles) and whether ``result`` is narrow enough.
    start : int
        The first precision, positive.
    most : int
        The largest precision tried (``start`` is always tried).
    failure : callable
        ``failure(result, p)`` → the message of the :class:`~exactdp.errors.PrecisionError`
        raised when no attempt was narrow, from the last attempt's result and precision.
    following : callable, optional
        ``following(result, p)`` → the next precision, above ``p``, from what the attempt at
        ``p`` learnt (e.g. the digits a difference cancelled), or ``None`` to stop; doubling by
        default.
    tries : int, optional
        The most attempts (default: as many as ``most`` allows).

    Returns
    -------
    Result
        The first narrow attempt's result.

    Examples
    --------
    >>> refine(lambda p: (p >= 100, p), 32, 1000, lambda result, p: "never")
    128
    """
    precision, attempts = start, 0
    while True:
        narrow, result = attempt(precision)
        attempts += 1
        if narrow:
            return result
        higher = 2 * precision if following is None else following(result, precision)
        if higher is None or higher > most or attempts == tries:
            raise PrecisionError(failure(result, precision))
        precision = higher
