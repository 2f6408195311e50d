"""Interning of ground atoms to bit positions; states are Python ints."""

from __future__ import annotations

import _thread  # (threading.Lock is _thread.allocate_lock; threading costs start-up)
from collections.abc import Iterable

from veriplan.core.atom import Atom
from veriplan.core.condition import bits

State = int


class FactIndex:
    """An append-only map between ground atoms and bit positions.

    Interning a new atom never changes the meaning of existing bits, so a
    task may intern atoms lazily (the validator grounds only what a plan uses).
    """

    __slots__ = ("_bit", "_lock", "atoms")

    def __init__(self) -> None:
        self._bit: dict[Atom, int] = {}
        self.atoms: list[Atom] = []
        self._lock = _thread.allocate_lock()  # tasks of one domain share an index

    def __len__(self) -> int:
        return len(self.atoms)

    def bit(self, atom: Atom | tuple[str, tuple[str, ...]]) -> int:
        """The bit of an atom, interned on first use. A plain ``(pred, args)``
        tuple finds the same bit as the equal :class:`Atom`."""
        b = self._bit.get(atom)
        if b is None:
            with self._lock:
                b = self._bit.get(atom)
                if b is None:
                    atom = Atom(*atom)
                    self.atoms.append(atom)
                    b = self._bit[atom] = len(self.atoms) - 1
        return b

    def find(self, atom: Atom) -> int | None:
        return self._bit.get(atom)

    def state(self, atoms: Iterable[Atom]) -> State:
        s = 0
        known = self._bit.get
        for a in atoms:
            b = known(a)
            s |= 1 << (self.bit(a) if b is None else b)
        return s

    def decode(self, state: State) -> list[Atom]:
        return sorted(self.atoms[b] for b in bits(state))

    def name(self, bit: int) -> str:
        return str(self.atoms[bit])
