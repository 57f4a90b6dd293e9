"""Every option that takes a query vector reads it the same way: ``x*k`` lists, or ``@FILE`` with
one number per line, a UTF-8 byte-order mark (Windows editors save one) ignored."""

import json

import pytest

from exactdp.cli import COMMANDS, build_parser, main
from exactdp.cli.common import query_text

#: Every option that takes a query vector, by command.
QUERY_OPTIONS = {
    "prob": {"--queries"}, "utility": {"--queries"},
    **{command: {"--d1", "--d2"} for command in ("loss", "maxloss", "profile", "renyi", "zcdp",
                                                   "pld", "test", "crosscheck")},
}


def _query_options(command: str) -> dict:
    """``{option: action}`` of the options of ``command`` whose value is a query vector ``Q``."""
    parser = build_parser(command)
    subparsers = next(action for action in parser._actions if action.dest == "command")
    return {option: action for action in subparsers.choices[command]._actions
            for option in action.option_strings if action.metavar == "Q"}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_query_option_reads_through_the_one_reader(command):
    options = _query_options(command)
    assert set(options) == QUERY_OPTIONS.get(command, set())
    for option, action in options.items():
        assert action.type is query_text, f"{command} {option} does not read @FILE"


def _json(capsys, argv):
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _files(tmp_path, bom: bool):
    """``@D1``, ``@D2``: the query vectors 0,0 and 1,1, one number per line (D2 with CRLF line
    ends), each preceded by a byte-order mark when ``bom``."""
    mark = "\ufeff" if bom else ""
    d1, d2 = tmp_path / "d1.txt", tmp_path / "d2.txt"
    d1.write_text(f"{mark}0\n0\n", encoding="utf-8")
    d2.write_bytes(f"{mark}1\r\n\r\n1\r\n".encode("utf-8"))
    return f"@{d1}", f"@{d2}"


#: Commands on the inputs 0,0 and 1,1 (``D1``, ``D2`` stand for the vectors or files).
PAIR_COMMANDS = {
    "loss": ["loss", "svt1", "--d1", "D1", "--d2", "D2", "--output", "F,T", "--dps", "8"],
    "maxloss": ["maxloss", "svt1", "--d1", "D1", "--d2", "D2", "--dps", "8"],
    "profile": ["profile", "svt1", "--d1", "D1", "--d2", "D2", "--eps", "0,0.5", "--dps", "8"],
    "renyi": ["renyi", "svt1", "--d1", "D1", "--d2", "D2", "--alpha", "2,inf", "--dps", "8"],
    "zcdp": ["zcdp", "svt1", "--d1", "D1", "--d2", "D2", "--dps", "8"],
    "pld": ["pld", "svt1", "--d1", "D1", "--d2", "D2", "--dps", "8"],
    "crosscheck": ["crosscheck", "svt1", "--d1", "D1", "--d2", "D2", "--event", "false_count=1",
                   "--runs", "200"],
    "test": ["test", "svt1", "--d1", "D1", "--d2", "D2", "--test-eps", "0.5", "--runs", "200",
             "--select-runs", "200"],
    "prob": ["prob", "svt1", "--queries", "D1", "--output", "F,T", "--dps", "8"],
    "utility": ["utility", "svt1", "--queries", "D2", "--digits", "8"],
}


@pytest.mark.parametrize("bom", [False, True], ids=["plain", "byte-order-mark"])
@pytest.mark.parametrize("name", PAIR_COMMANDS)
def test_a_queries_file_gives_what_the_list_gives(name, bom, tmp_path, capsys):
    files = dict(zip(("D1", "D2"), _files(tmp_path, bom)))
    inline = {"D1": "0,0", "D2": "1,1"}
    argv = PAIR_COMMANDS[name]
    assert _json(capsys, [files.get(a, a) for a in argv]) == \
        _json(capsys, [inline.get(a, a) for a in argv])


def test_a_byte_order_mark_inside_the_file_is_still_an_error(tmp_path, capsys):
    # only a mark at the very start is the encoding's; one on line 2 is a stray character
    path = tmp_path / "queries.txt"
    path.write_text("\ufeff0\n\ufeff1\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main(["prob", "svt1", "--queries", f"@{path}", "--output", "F,T"])
    error = capsys.readouterr().err
    assert exit_info.value.code == 2 and error.count("\n") == 1
    assert "line 2: not a number: '\\ufeff1'" in error
