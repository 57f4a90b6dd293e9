"""The one refine-until-narrow loop: the precisions it tries and the error it gives up with."""

import pytest

from exactdp.errors import PrecisionError
from exactdp.refinement import refine


def test_refine_doubles_the_precision_until_an_attempt_is_narrow():
    tried = []

    def attempt(precision):
        tried.append(precision)
        return precision >= 100, f"at {precision}"

    assert refine(attempt, 30, 1000, lambda result, precision: "never") == "at 120"
    assert tried == [30, 60, 120]


def test_refine_gives_up_after_the_largest_precision_with_the_last_result():
    tried = []

    def attempt(precision):
        tried.append(precision)
        return False, -precision

    with pytest.raises(PrecisionError, match="last -64 at 64"):
        refine(attempt, 8, 100, lambda result, precision: f"last {result} at {precision}")
    assert tried == [8, 16, 32, 64]


def test_refine_tries_the_first_precision_even_above_the_largest():
    assert refine(lambda precision: (True, precision), 50, 10, lambda *_: "never") == 50


def test_the_caller_chooses_the_next_precision_and_may_stop():
    tried = []

    def attempt(precision):
        tried.append(precision)
        return precision >= 25, precision

    # the next precision from what the last attempt learnt (here: add 7), not a doubling
    assert refine(attempt, 4, 100, lambda *_: "never", lambda result, p: p + 7) == 25
    assert tried == [4, 11, 18, 25]
    with pytest.raises(PrecisionError, match="stopped at 11"):  # None: no further attempt
        refine(attempt, 4, 100, lambda result, p: f"stopped at {p}",
               lambda result, p: None if p > 10 else p + 7)


def test_at_most_the_given_number_of_attempts():
    tried = []

    def attempt(precision):
        tried.append(precision)
        return False, precision

    with pytest.raises(PrecisionError, match="last 12"):
        refine(attempt, 3, 10**6, lambda result, p: f"last {result}", tries=3)
    assert tried == [3, 6, 12]
