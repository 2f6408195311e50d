"""The README's Python examples run and print what the README says."""

from __future__ import annotations

import contextlib
import io
import os
import re

from tests.conftest import REPO, data_root


def _blocks() -> list[str]:
    text = (REPO / "README.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_python_examples_print_what_they_claim():
    blocks = _blocks()
    assert len(blocks) >= 5  # the regex finds the examples (more are added over time)
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        data = data_root()
        for code in blocks:
            expected = [line[2:] for line in code.splitlines() if line.startswith("# ")]
            if data is not None:  # the README's path, or VERIPLAN_DATA's where that is set
                code = code.replace('"../shared/data', f'"{data}')
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, "README.md", "exec"), {})
            assert out.getvalue().splitlines() == expected
    finally:
        os.chdir(cwd)


def test_readme_names_the_two_commands():
    text = (REPO / "README.md").read_text()
    assert "make demo" in text and "make test" in text
