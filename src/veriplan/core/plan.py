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

