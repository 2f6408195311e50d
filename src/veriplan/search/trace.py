"""Plan reconstruction from parent pointers."""

from __future__ import annotations


def backtrack(parent: dict, state: object) -> tuple:
    actions = []
    link = parent[state]
    while link is not None:
        state, action = link
        actions.append(action)
        link = parent[state]
    return tuple(reversed(actions))
