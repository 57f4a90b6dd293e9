"""The pieces and the ellipse bounds of the shared Gauss–Legendre nodes (backends/shared_nodes.py);
the probabilities themselves are tested against per-output certified enclosures in test_loss.py."""

import cmath
import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from exactdp.exact.backends.shared_nodes import _bounds_of_pair, _pieces, _rounding_margin


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.floats(-6, 2), st.floats(0, 4), st.floats(0, 3))
def test_the_bounds_hold_on_the_whole_rectangle(low, width, imaginary):
    # |e^t| and |1 − e^t| at a grid of points t = x + iy, x in [low, low + width], |y| ≤
    # imaginary (cmath, double precision), never exceed the bounds raised by the rounding
    # margin their caller adds (_rounding_margin of the bound's size and one).
    high = low + width
    with np.errstate(divide="ignore"):  # log 0 = −inf: 1 − e^t vanishes at t = 0
        plain, complement = _bounds_of_pair(low, high, imaginary)
    for i in range(9):
        for j in range(9):
            t = complex(low + width * i / 8, imaginary * (j - 4) / 4)
            for value, bound in ((abs(cmath.exp(t)), plain),
                                 (abs(1 - cmath.exp(t)), complement)):
                if value > 0:
                    assert math.log(value) <= bound + _rounding_margin(abs(bound) + 1)


def test_the_pieces_cover_the_line_from_kink_to_kink():
    # every kink is an end of a piece, the pieces are adjacent, a gap of at most two widths is
    # one piece, a wider gap is cut at doubling distances from both kinks, and the outer pieces
    # double from the outermost kinks up to the distance asked for
    kinks = [Fraction(-1), Fraction(0), Fraction(3), Fraction(40)]
    pieces = _pieces(kinks, Fraction(2), Fraction(10))
    assert all(b == c for (_, b), (c, _) in zip(pieces, pieces[1:]))
    ends = {a for a, _ in pieces} | {b for _, b in pieces}
    assert set(kinks) <= ends
    assert (Fraction(-1), Fraction(0)) in pieces and (Fraction(0), Fraction(3)) in pieces
    inner = [(a, b) for a, b in pieces if 3 <= a and b <= 40]
    assert [b - a for a, b in inner] == [2, 2, 4, 8, 2.5, 2.5, 8, 4, 2, 2]
    assert pieces[0] == (Fraction(-17), Fraction(-9)) and pieces[-1] == (Fraction(48), Fraction(56))
