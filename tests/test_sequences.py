"""Run-length sequences: parsing, exact numbers, no expansion of huge repeats."""

from fractions import Fraction

import pytest

from exactdp.errors import InputError
from exactdp.sequences import Runs, as_output, as_queries, format_number, zip_runs


def test_repeats_are_not_expanded():
    runs = as_queries("0*1000000000000,1*3")
    assert runs.runs == ((Fraction(0), 10**12), (Fraction(1), 3))
    assert len(runs) == 10**12 + 3


def test_adjacent_equal_runs_merge_and_decimals_are_exact():
    assert as_queries("0.1,0.1*2,0.2").runs == ((Fraction(1, 10), 3), (Fraction(1, 5), 1))
    assert as_queries([0.1, 0.1]).runs == ((Fraction(1, 10), 2),)  # floats read as printed


def test_output_tokens():
    assert as_output("F*2,T,1.5").runs == ((False, 2), (True, 1), (Fraction(3, 2), 1))
    assert as_output([True, False, "T"]).runs == ((True, 1), (False, 1), (True, 1))
    # ⊤ is not the number 1: they never merge
    assert as_output([True, 1]).runs == ((True, 1), (Fraction(1), 1))


@pytest.mark.parametrize("text, message", [
    ("0,inf", "must be finite"),
    ("0,nan", "must be finite"),
    ("0,abc", "must be a number"),
    ("0*0", "positive integer"),
    ("0*-2", "positive integer"),
    ("0*x", "positive integer"),
    ("0,,1", "empty entry"),
    ("", "non-empty"),
])
def test_bad_queries(text, message):
    with pytest.raises(InputError, match=message):
        as_queries(text)


def test_bad_output_token():
    with pytest.raises(InputError, match="unknown output token"):
        as_output("F,X")


def test_zip_runs_segments_and_length_mismatch():
    a, b = as_queries("0*3,1*2"), as_queries("1*1,0*4")
    assert list(zip_runs(a, b)) == [((0, 1), 1), ((0, 0), 2), ((1, 0), 2)]
    with pytest.raises(InputError, match="differ in length"):
        list(zip_runs(as_queries("0*3"), as_queries("0*2")))


def test_prefix_and_str_roundtrip():
    runs = as_output("F*3,T*2")
    assert str(runs.prefix(4)) == "F*3,T"
    assert str(Runs.from_items([Fraction(1, 3)])) == "1/3"
    assert format_number(Fraction(5, 2)) == "2.5"


def test_mpf_values_are_taken_exactly():
    import mpmath

    with mpmath.workdps(40):
        v = mpmath.mpf("0.4999999999999999999999999999")
    assert as_output([v]).runs[0][0] == Fraction(v.man, 2 ** -v.exp) != Fraction(1, 2)
    assert as_output([mpmath.mpf("-3.25")]).runs[0][0] == Fraction(-13, 4)
