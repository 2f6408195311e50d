"""A domain's check over all of a parent's successors at once says what the
one-by-one check says: the same first failing successor and message, and the
same fallback for values that are not states."""

from __future__ import annotations

import random
from dataclasses import replace

from veriplan.domains.autotos import crossword


def _grid(rng: random.Random, fill: float) -> list:
    return [[None if rng.random() > fill else rng.choice("abc") for _ in range(5)]
            for _ in range(5)]


def test_crossword_check_all_is_the_one_by_one_check():
    one_by_one = replace(crossword.DOMAIN, check_all=None)
    rng = random.Random(7)
    odd = ["abcde", 5, None, [["a"] * 5] * 4, [("a", None, None, None, None)] * 5]
    failures = 0
    for _ in range(400):
        parent = _grid(rng, rng.random())
        children = [_grid(rng, rng.random()) for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.2:
            children.insert(rng.randint(0, len(children)), rng.choice(odd))
        fast = crossword.DOMAIN.first_unsound(parent, children)
        slow = one_by_one.first_unsound(parent, children)
        assert fast == slow
        failures += fast is not None
    assert 50 < failures < 400  # both outcomes were met
