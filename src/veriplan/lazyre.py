"""Regular expressions compiled on first use.

Compiling a pattern runs the ``re`` module's parser and compiler in Python: about a
million instructions for a long one, paid at import by every module that compiles
its patterns at module level. A process that imports the plan readers to read a few
clean lines (``veriplan validate --batch``) uses four of their two dozen patterns;
:class:`LazyPattern` defers the rest until a text needs them.
"""

from __future__ import annotations

import re

# What a compiled pattern offers, copied onto the LazyPattern at its first use (so
# that later calls cost what a compiled pattern's do: no __getattr__).
_FORWARDED = ("match", "fullmatch", "search", "findall", "finditer", "sub", "subn",
              "split", "scanner", "pattern", "flags", "groups", "groupindex")


class LazyPattern:
    """``re.compile(pattern, flags)``, done when an attribute is first asked for
    (``.search``, ``.sub``, ``.pattern``, ...); it then answers as the compiled
    pattern does. Not a :class:`re.Pattern`: pass :attr:`compiled` where one is
    needed. A bad pattern raises :class:`re.error` at first use, not at import."""

    def __init__(self, pattern: str, flags: int | re.RegexFlag = 0) -> None:
        self._source = (pattern, flags)

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (``re`` keeps it in its cache too)."""
        return re.compile(*self._source)

    def __getattr__(self, name: str) -> object:
        if name not in _FORWARDED:  # (also _source, before __init__ set it)
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        rx = re.compile(*self._source)
        for attr in _FORWARDED:
            setattr(self, attr, getattr(rx, attr))
        return getattr(rx, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source[0]!r}, {self._source[1]!r})"
