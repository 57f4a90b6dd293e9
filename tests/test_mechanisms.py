"""The catalogue: every mechanism with the noise scales of its source (Lyu, Su & Li, PVLDB 2017,
arXiv:1603.01699, Algs. 1–7; Chen & Machanavajjhala 2015 (arXiv:1508.07306), Alg. 2; Ding, Wang,
Wang, Zhang & Kifer, CCS 2018 (arXiv:1805.10277)), and validation."""

from fractions import Fraction

import pytest

import exactdp
from exactdp.errors import InputError
from exactdp.mechanisms import Release, catalogue

# (name, params, threshold scale b_ρ, query scale b_ν, cutoff) with Δ = 1, from the algorithms cited
# above.
SPEC_TABLE = [
    ("svt1", dict(eps=1, c=2), 2, 8, 2),
    ("svt2", dict(eps=1, c=2), 4, 8, 2),
    ("svt3", dict(eps=1, c=2), 2, 4, 2),
    ("svt4", dict(eps=1, c=2), 4, Fraction(4, 3), 2),
    ("svt5", dict(eps=1), 2, 0, None),
    ("svt6", dict(eps=1), 2, 2, None),
    ("svt7", dict(eps1=Fraction(1, 4), eps2=Fraction(1, 2), c=3), 4, 12, 3),
    ("svt7", dict(eps1=Fraction(1, 4), eps2=Fraction(1, 2), c=3, monotone=True), 4, 6, 3),
    ("gptt", dict(eps1=0.5, eps2=0.25), 2, 4, None),
    ("gptt", dict(eps1=0.5, eps2="inf"), 2, 0, None),
    ("statdp.SVT", dict(eps=0.5, N=2), 4, 16, 2),
    ("statdp.iSVT1", dict(eps=0.5), 4, 0, None),
    ("statdp.iSVT2", dict(eps=0.5), 4, 4, None),
    ("statdp.iSVT3", dict(eps=0.5, N=2), 8, Fraction(8, 3), 2),
    ("statdp.iSVT4", dict(eps=0.5, N=2), 4, 8, 2),
    ("gap_svt", dict(eps=0.5, N=2), 4, 16, 2),
    ("bad_gap_svt", dict(eps=0.5, N=2), 4, 16, 2),
    ("num_svt", dict(eps=0.5, N=2), 6, 24, 2),
]


@pytest.mark.parametrize("name, params, b_rho, b_nu, cutoff", SPEC_TABLE)
def test_noise_scales_follow_the_spec_table(name, params, b_rho, b_nu, cutoff):
    mech = exactdp.mechanism(name, **params)
    assert (mech.threshold_scale, mech.query_scale, mech.cutoff) == (b_rho, b_nu, cutoff)


def test_sensitivity_scales_the_noise():
    mech = exactdp.mechanism("svt1", eps=1, sensitivity=3)
    assert (mech.threshold_scale, mech.query_scale) == (6, 12)


def test_releases():
    assert exactdp.mechanism("svt3").release is Release.NOISY_VALUE
    assert exactdp.mechanism("statdp.iSVT4").release is Release.NOISY_VALUE
    assert exactdp.mechanism("svt7", eps3=1).release is Release.FRESH_VALUE
    assert exactdp.mechanism("svt7", eps3=1, c=2).release_scale == 2
    assert exactdp.mechanism("svt7").release is Release.FLAG
    assert exactdp.mechanism("svt2").redraw_threshold
    assert exactdp.mechanism("gap_svt").release is Release.GAP
    assert exactdp.mechanism("bad_gap_svt").release is Release.NOISY_VALUE
    assert exactdp.mechanism("num_svt", N=2).release_scale == 6


def test_every_entry_builds_with_defaults():
    names = [item.name for item in catalogue()]
    for required in ["svt1", "svt2", "svt3", "svt4", "svt5", "svt6", "svt7", "gptt", "statdp.SVT",
                     "statdp.iSVT1", "statdp.iSVT2", "statdp.iSVT3", "statdp.iSVT4"]:
        assert required in names
    for item in catalogue():
        assert item.make().name == item.name


@pytest.mark.parametrize("name, params, message", [
    ("svt1", dict(eps=0), "eps must be positive, got eps=0"),
    ("svt1", dict(eps=-0.5), "eps must be positive, got eps=-0.5"),
    ("svt1", dict(eps=float("nan")), "eps must be a positive number"),
    ("svt1", dict(eps="inf"), "eps must be finite"),
    ("svt1", dict(c=0), "c must be a positive integer"),
    ("svt1", dict(c=1.5), "c must be a positive integer"),
    ("svt1", dict(sensitivity=0), "sensitivity must be positive"),
    ("svt1", dict(T="inf"), "T must be finite"),
    ("svt1", dict(N=2), "unknown parameter for svt1: N"),
    ("svt5", dict(c=2), "unknown parameter for svt5: c"),
    ("svt7", dict(monotone="maybe"), "monotone must be true or false"),
    ("nope", dict(), "unknown mechanism 'nope'"),
])
def test_bad_parameters_are_rejected(name, params, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        exactdp.mechanism(name, **params)
