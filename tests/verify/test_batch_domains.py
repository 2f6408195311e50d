"""A batch run keeps its domains by path with the file's identity (issue 36): a
domain file changed between two of its items is read again, also when items of
another domain came between them."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from veriplan.pddl import task as task_module
from veriplan.verify import validate_many

DOMAIN = (EXAMPLES / "blocks-domain.pddl").read_text()
PROBLEM = (EXAMPLES / "blocks-problem.pddl").read_text()
PLAN = "(unstack c a)\n(put-down c)"

pytestmark = pytest.mark.usefixtures("fresh_batch_caches")


def _write(path: Path, text: str, age: float) -> None:
    """``text`` into ``path``, last written ``age`` seconds ago (past the racy window:
    the run keeps the domain by the file's identity alone)."""
    path.write_text(text)
    then = time.time() - age
    os.utime(path, (then, then))


def test_a_domain_changed_between_its_items_is_read_again(tmp_path, monkeypatch):
    one, other, prob = tmp_path / "one.pddl", tmp_path / "other.pddl", tmp_path / "p.pddl"
    _write(one, DOMAIN, 60)
    _write(other, DOMAIN, 60)
    _write(prob, PROBLEM, 60)
    reads: list[str] = []
    parse = task_module.parse_domain

    def counting(text: str, *args: object, **kw: object):
        reads.append(str(kw.get("file")))
        return parse(text, *args, **kw)

    monkeypatch.setattr(task_module, "parse_domain", counting)
    # put-down then also needs the block on the table: step 2 cannot be executed
    changed = DOMAIN.replace(":precondition (holding ?b)",
                             ":precondition (and (holding ?b) (ontable ?b))", 1)
    assert changed != DOMAIN

    def items() -> Iterator[dict]:
        for n, dom in enumerate((one, other, one, other, one)):
            if n == 4:  # between the third and the fifth item: one.pddl changes
                _write(one, changed, 30)
            yield {"id": n, "domain": str(dom), "problem": str(prob), "plan": PLAN}

    verdicts = list(validate_many(items()))
    assert [v.valid for v in verdicts] == [False] * 5
    assert [v.to_dict()["failed_step"] for v in verdicts] == [None, None, None, None, 2]
    # each file read once, and one.pddl once more after it changed
    assert reads == [str(one), str(other), str(one)]
