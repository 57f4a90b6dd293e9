"""What is printed is what is proven: formatting.printed_number and the records built on it.

Every check here is done again, independently, in exact rationals (``fractions.Fraction`` of the
printed decimal and of the binary inputs), never with the helper's own Arb arithmetic."""

import json
from decimal import Decimal
from fractions import Fraction

import mpmath
from hypothesis import given, strategies as st
from mpmath import mpf

from exactdp.cli import main
from exactdp.formatting import printed_number


def exact(value) -> Fraction:
    """A decimal string or a finite mpf as the rational it denotes."""
    if isinstance(value, str):
        return Fraction(Decimal(value))
    numerator, denominator = mpmath.libmp.to_rational(value._mpf_)
    return Fraction(int(numerator), int(denominator))


def binary(mantissa: int, exponent: int) -> mpf:
    return mpmath.ldexp(mpf(mantissa), exponent)


mantissas = st.integers(-(2 ** 120), 2 ** 120).filter(lambda m: m != 0)
exponents = st.integers(-400, 100)
digit_counts = st.integers(1, 40)


@given(mantissas, exponents, st.integers(1, 2 ** 64), st.integers(-500, 100), digit_counts)
def test_an_estimates_error_covers_the_printed_decimal(mantissa, exponent, error_mantissa,
                                                       error_exponent, digits):
    centre, error = binary(mantissa, exponent), binary(error_mantissa, error_exponent)
    printed = printed_number(centre, digits, error=error)
    shown = exact(printed.value)
    # any exact value within the engine's bound of the centre is within the printed bound
    assert abs(shown - exact(centre)) + exact(error) <= exact(printed.error)
    assert len(printed.error.split("e")[0].replace(".", "").lstrip("0")) <= 2
    assert float(printed.value) == float(printed.value) and mpf(printed.value) == mpf(printed.value)
    if exact(error) >= abs(exact(centre)):  # no digit proven: the text says so
        bound = printed.text.removeprefix("0 ± ")
        assert printed.text.startswith("0 ± ") and abs(exact(centre)) + exact(error) <= exact(bound)
    else:
        assert printed.text == printed.value


@given(mantissas, exponents, st.integers(0, 2 ** 70), st.integers(0, 2 ** 70),
       st.integers(-300, 0), digit_counts)
def test_an_enclosures_printed_value_and_ends(mantissa, exponent, below, above, width_exponent,
                                              digits):
    centre = binary(mantissa, exponent)
    with mpmath.workprec(10000):  # the ends above are exact at this precision
        lower = centre - binary(below, width_exponent + exponent)
        upper = centre + binary(above, width_exponent + exponent)
    printed = printed_number(centre, digits, enclosure=(lower, upper))
    shown = exact(printed.value)
    assert exact(printed.lower) <= exact(lower) and exact(upper) <= exact(printed.upper)
    assert exact(printed.lower) <= shown <= exact(printed.upper)
    assert max(shown - exact(lower), exact(upper) - shown) <= exact(printed.error)


def test_a_value_below_its_error_is_a_parsable_digit_in_json_and_zero_in_text():
    printed = printed_number(mpf("-1.4e-48"), 30, error=mpf("1.2e-43"))
    # JSON: one significant digit of the centre, and the error that covers it
    assert printed.value == "-1.0e-48" and Decimal(printed.error) >= Decimal("1.2e-43") + \
        Decimal("1.0e-48") - Decimal("1.4e-48")
    assert printed.text.startswith("0 ± ")


def test_the_same_decimal_for_any_exponent():
    # e^{-10^6}: far below any float; the printed ends still enclose (checked with mpmath at
    # 60 digits, an independent evaluation of the same number)
    with mpmath.workdps(60):
        tiny = mpmath.exp(-10 ** 6)
        half_width = tiny * mpf(10) ** -40
        printed = printed_number(tiny, 20, enclosure=(tiny - half_width, tiny + half_width))
        assert mpf(printed.lower) <= tiny <= mpf(printed.upper)
        assert abs(mpf(printed.value) - tiny) <= mpf(printed.error)
        assert printed.value.endswith("e-434295")


def svt1_probability_f_t(truncate_digits: int = 60) -> mpf:
    """Pr[svt1(ε=1, c=1, T=0) on (0, 1, 0) = (⊥, ⊤)]: ρ ~ Lap(2) (threshold noise, scale 2/ε),
    ν_i ~ Lap(4) (query noise, scale 2c/ε) — Lyu, Su & Li, PVLDB 2017, Alg. 1 — so the
    probability is ∫ p_ρ(z) F_ν(z − 0) (1 − F_ν(z − 1)) dz, by mpmath quadrature at 60 digits
    split where the integrand's pieces change."""
    with mpmath.workdps(truncate_digits):
        def laplace_cdf(x, b):
            return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2

        def integrand(z):
            return (mpmath.exp(-abs(z) / 2) / 4 * laplace_cdf(z, 4) * (1 - laplace_cdf(z - 1, 4)))
        return mpmath.quad(integrand, [-mpmath.inf, 0, 1, mpmath.inf])


def test_the_printed_error_bounds_the_printed_probability(capsys):
    truth = svt1_probability_f_t()
    for method in ("auto", "estimate"):
        for dps in (3, 5, 12):
            assert main(["prob", "svt1", "--queries", "0,1,0", "--output", "F,T", "--dps",
                         str(dps), "--method", method, "--json"]) == 0
            record = json.loads(capsys.readouterr().out)
            with mpmath.workdps(60):
                assert abs(mpf(record["probability"]) - truth) <= mpf(record["error"])
                assert abs(mpf(record["log_probability"]) - mpmath.log(truth)) <= \
                    mpf(record["log_error"])


def test_exact_values_and_unbounded_errors():
    # an exact binary value prints with error 0 when its digits fit, else its rounding error
    assert printed_number(mpf("0.5"), 5, error=mpf(0)).error == "0"
    binary_third = mpf(1) / 3  # taken as exact: the binary number nearest 1/3
    third = printed_number(binary_third, 5, error=mpf(0))
    assert exact(third.value) == Fraction(33333, 10 ** 5)
    assert abs(exact(binary_third) - exact(third.value)) <= exact(third.error)
    # an enclosure with an infinite end proves no digit: "inf" error, parsable value
    unbounded = printed_number(mpf(-3), 5, enclosure=(mpf("-inf"), mpf(-2)))
    assert (unbounded.error, unbounded.lower, unbounded.upper) == ("inf", "-inf", "-2")
    assert float(unbounded.value) == -3.0
