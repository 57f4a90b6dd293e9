"""Every catalogue mechanism the tester knows: sampled event counts against exact probabilities
(fixed seeds, each count inside its exact 99.9% binomial interval), and the tester's
reproducibility."""

import pytest

import exactdp
from exactdp.mechanisms import catalogue
from exactdp.mechanisms.description import ThresholdMechanism
from exactdp.mechanisms.histogram import HistogramMechanism
from exactdp.mechanisms.noisy_max import NoisyMaxMechanism
from exactdp.sampling.tester import crosscheck, detect

KNOWN = (ThresholdMechanism, NoisyMaxMechanism, HistogramMechanism)
NAMES = [item.name for item in catalogue() if isinstance(item.make(), KNOWN)]


def build(name):
    item = exactdp.mechanisms.entry(name)
    return item.make(**{p.name: 2 for p in item.params if p.name in ("c", "N")})


def test_every_known_family_is_covered():
    assert {"svt1", "statdp.iSVT4", "gptt", "noisy_max_laplace", "statdp.noisy_max_v2b",
            "histogram", "statdp.histogram_eps"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_sampler_agrees_with_exact_event_probabilities(name):
    mech = build(name)
    one_differ = isinstance(mech, HistogramMechanism)
    d1, d2 = ([1, 1, 1], [2, 1, 1]) if one_differ else ([1, 1, 0], [2, 0, 1])
    check = crosscheck(mech, d1, d2, runs=20_000, seed=sum(map(ord, name)))
    assert check.consistent, (str(check.event), check.c1, check.interval1, check.c2,
                              check.interval2)
    assert check.interval1[0] <= check.interval1[1]


def test_detect_is_reproducible_and_independent_of_jobs():
    mech = exactdp.mechanism("statdp.SVT", eps=0.7, N=1, T=0.5)
    kwargs = dict(d1="1,1,1,1,1", d2="2,0,0,0,0", runs=20_000, select_runs=5_000, seed=4)
    one = detect(mech, [0.3, 1.0], **kwargs)
    assert [r.record() for r in one] == [r.record() for r in detect(mech, [0.3, 1.0], **kwargs)]
    two = detect(mech, [0.3, 1.0], jobs=2, **kwargs)
    assert [r.record() for r in one] == [r.record() for r in two]
    other = detect(mech, [0.3, 1.0], **{**kwargs, "seed": 5})
    assert [(r.c1, r.c2) for r in other] != [(r.c1, r.c2) for r in one]


def test_statdp_svt_is_never_rejected_above_its_budget():
    # statdp.SVT is ε-DP (Lyu et al. Thm 2): every event's exact loss is ≤ 0.7, and the test at
    # 0.7 must not reject; below the selected event's exact loss it must.
    mech = exactdp.mechanism("statdp.SVT", eps=0.7, N=1, T=0.5)
    low, claimed = detect(mech, [0.05, 0.7], runs=100_000, select_runs=20_000, seed=8)
    assert claimed.exact_event_eps <= 0.7 + 1e-9 and claimed.p_value > 0.05
    assert low.exact_event_eps > 0.2 and low.p_value < 0.05
