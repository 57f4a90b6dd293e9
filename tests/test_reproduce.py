"""``exactdp reproduce``: the claim registry, the command line, and the files it writes."""

import json

import pytest

from exactdp.claims import Claim, claim_ids, get_claim, register_claim
from exactdp.cli import build_parser, main
from exactdp.errors import InputError

#: The claims on the Sparse Vector family, in order (a stable contract: ids name the figures and
#: --only values).
IDS = ("gptt-inf", "gptt-copies", "chenm-proof-flaw", "svt5-simple", "svt3-appendix",
       "svt6-appendix", "svt4-tight", "svt1-tight")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_catalogue_ids_and_sources():
    assert claim_ids()[:len(IDS)] == IDS
    for claim_id in IDS:
        claim = get_claim(claim_id)
        assert claim.source and claim.statement and claim.family


def test_unknown_claim_is_an_input_error():
    with pytest.raises(InputError, match="unknown claim id 'svt9-tight'"):
        get_claim("svt9-tight")


def test_claim_ids_are_unique():
    with pytest.raises(RuntimeError, match="duplicate claim id gptt-inf"):
        register_claim(Claim("gptt-inf", "", "", "", lambda progress: None))


def test_default_output_directory():
    args = build_parser("reproduce").parse_args(["reproduce"])
    assert args.out == "figures" and args.only is None


def test_unknown_id_exits_2_with_one_line(tmp_path, capsys):
    assert main(["reproduce", "--out", str(tmp_path), "--only", "svt5-simple", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown claim id 'nope'" in err
    assert not list(tmp_path.iterdir())          # nothing computed or written


def test_reproduce_only_end_to_end(tmp_path, capsys):
    out = tmp_path / "figs"
    assert main(["reproduce", "--out", str(out), "--only", "svt5-simple", "svt3-appendix",
                 "--only", "svt5-simple"]) == 0
    captured = capsys.readouterr()
    assert "reproducing" in captured.err                          # progress on stderr
    assert "svt5-simple: confirmed" in captured.out
    assert sorted(p.name for p in out.iterdir()) == ["claims.json", "claims.md",
                                                     "svt3-appendix.png", "svt5-simple.png"]
    for name in ("svt3-appendix.png", "svt5-simple.png"):
        assert (out / name).read_bytes().startswith(PNG_SIGNATURE)

    records = json.loads((out / "claims.json").read_text(encoding="utf-8"))
    assert [r["id"] for r in records] == ["svt5-simple", "svt3-appendix"]
    for record in records:
        assert {"id", "source", "claim", "verdict", "detail", "points"} <= set(record)
        assert record["verdict"] == "confirmed"
        assert len(record["points"]) >= 4
        for point in record["points"]:
            assert isinstance(point["size"], int)
            assert isinstance(point["log_ratio"], str)
            assert point["log_ratio"] == "inf" or float(point["log_ratio"]) >= 0
    # svt5's infinite loss (an enclosure above 0 against an exact zero) and svt3's equality are
    # decided on certified enclosures
    assert [r["certified"] for r in records] == [True, True]
    svt3 = {(p["series"].split(":")[0], p["size"]): p for p in records[1]["points"]}
    # Lyu et al. Appendix 9.1: ln ratio = mε/2 with ε = 1, i.e. 5000 at m = 10^4.
    assert float(svt3[("last query fixed", 10**4)]["log_ratio"]) == 5000.0
    assert any(form["latex"] == r"\frac{\epsilon m}{2}" for form in records[1]["closed_forms"])

    markdown = (out / "claims.md").read_text(encoding="utf-8")
    header = "| claim | source | exact ln ratio (size → value) | verdict | deciding number |"
    assert header in markdown
    assert "## svt3-appendix" in markdown and "![svt3-appendix](svt3-appendix.png)" in markdown
    assert "**confirmed**" in markdown
    assert "**confirmed** *(certified)*: the exact ln ratio equals mε/2" in markdown


def test_each_claims_worker_may_fork_as_many_workers_as_reproduce_has(monkeypatch):
    # a claim evaluated for reproduce --jobs 3 lets its utility computations fork 3 workers of
    # their own when they name no number (the quadrature's jobs), and an explicit number wins;
    # recorded here, then computed in this process (earlier tests leave threads: no forking)
    from exactdp import mechanism, workers
    from exactdp.exact.selection import given_order, selection_probabilities
    from exactdp.claims.reproduce import _evaluate

    asked = []
    original = given_order.integrate_vector

    def recording(*args, **kwargs):
        asked.append(kwargs.get("jobs"))
        return original(*args, **{**kwargs, "jobs": 1})

    monkeypatch.setattr(given_order, "integrate_vector", recording)
    monkeypatch.setattr(workers, "_local_jobs", 1)  # restored after the test
    assert _evaluate(("svt5-simple", 3)).verdict == "confirmed"
    assert workers.local_jobs() == 3
    svt1 = mechanism("svt1", eps=1, c=1)
    selection_probabilities(svt1, [2, 0, 1], digits=6)
    selection_probabilities(svt1, [2, 0, 1], digits=6, jobs=1)
    assert asked == [3, 1]
