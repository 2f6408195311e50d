"""Plans as sequences of ground action steps."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Step:
    """One plan step ``(name arg ...)``; ``line`` is where it was read, if read."""

    name: str
    args: tuple[str, ...] = ()
    line: int | None = field(default=None, compare=False)

    @classmethod
    def parse(cls, text: str) -> Step:
        """``"(stack a b)"`` or ``"stack a b"`` to a Step (no validation)."""
        words = text.strip().strip("()").lower().split()
        if not words:
            raise ValueError(f"empty plan step {text!r}")
        return cls(words[0], tuple(words[1:]))

    def __str__(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"


Plan = tuple[Step, ...]

# The slots of Step, set directly: the frozen dataclass's __init__ goes through
# object.__setattr__ once a field, which a reader building many steps pays for.
_new = object.__new__
_set_name = Step.name.__set__  # type: ignore[attr-defined]
_set_args = Step.args.__set__  # type: ignore[attr-defined]
_set_line = Step.line.__set__  # type: ignore[attr-defined]


def make_step(name: str, args: tuple[str, ...], line: int | None) -> Step:
    """``Step(name, args, line)`` for values already of the right types (a str,
    a tuple of str, an int or None), without the dataclass's __init__: the same
    object, built about twice as fast. Readers use it for steps they checked."""
    step = _new(Step)
    _set_name(step, name)
    _set_args(step, args)
    _set_line(step, line)
    return step
