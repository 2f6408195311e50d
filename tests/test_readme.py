"""The Python examples of the README and of the docs pages it links to run and print
what they say: every ```python block of each document in DOCUMENTS is executed from the
repository's root and its output checked against the block's `# ` comment lines."""

from __future__ import annotations

import contextlib
import io
import os
import re

import pytest

from tests.conftest import REPO, data_root

# (document, the least number of python blocks the regex must find in it)
DOCUMENTS = [
    ("README.md", 2),
    ("docs/validate.md", 3),
    ("docs/python.md", 2),
    ("docs/benchmarks.md", 1),
    ("docs/DESIGN.md", 1),  # the plug-in module: it must import and define, printing nothing
]


def _blocks(document: str) -> list[str]:
    text = (REPO / document).read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_every_document_with_python_examples_is_listed():
    """A page of docs/ that holds a python block gets its examples run here."""
    listed = {name for name, _ in DOCUMENTS}
    pages = {str(p.relative_to(REPO)) for p in (REPO / "docs").rglob("*.md")}
    with_code = {p for p in pages if _blocks(p)}
    assert with_code <= listed, sorted(with_code - listed)


@pytest.mark.parametrize(("document", "least"), DOCUMENTS, ids=[d for d, _ in DOCUMENTS])
def test_python_examples_print_what_they_claim(document, least):
    blocks = _blocks(document)
    assert len(blocks) >= least  # the regex finds the examples (more are added over time)
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        data = data_root()
        for code in blocks:
            expected = [line[2:] for line in code.splitlines() if line.startswith("# ")]
            if data is not None:  # the document's path, or VERIPLAN_DATA's where that is set
                code = code.replace('"../shared/data', f'"{data}')
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(code, document, "exec"), {})
            assert out.getvalue().splitlines() == expected, document
    finally:
        os.chdir(cwd)


def test_readme_names_the_two_commands():
    text = (REPO / "README.md").read_text()
    assert "make demo" in text and "make test" in text


def test_readme_is_a_front_door():
    """The README stays short: the detail lives in docs/ and the methods' READMEs, and
    every page it links to exists."""
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) <= 300
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if "://" not in target:
            assert (REPO / target).exists(), target
