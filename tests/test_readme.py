"""The README's Quickstart contract (its Python example runs as a doctest via pytest's
``--doctest-glob=README.md``)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quickstart_blocks():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.S)


def test_quickstart_has_two_one_line_sh_blocks():
    blocks = quickstart_blocks()
    assert len(blocks) == 2
    assert all(len(block.strip().splitlines()) == 1 for block in blocks)
    assert "exactdp" in blocks[0]
    assert "pytest" in blocks[1]


def test_ci_runs_the_quickstart_test_command():
    ci_lines = (ROOT / ".ci" / "run").read_text().splitlines()
    assert quickstart_blocks()[1].strip() in ci_lines
