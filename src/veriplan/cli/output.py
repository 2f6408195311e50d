"""The one way a command's text reaches the user: a :class:`Writer` the command
line hands to the command. A method's command module (``methods/<m>/commands.py``)
writes its lines through the writer it is given and never prints itself, so that
the command line alone decides where text goes; :func:`stdout` is the writer
``veriplan`` gives."""

from __future__ import annotations

from typing import Protocol


class Writer(Protocol):
    """Writes ``text`` as one line (a newline after it); ``flush``: at once (a
    progress line of a long run)."""

    def __call__(self, text: str = "", /, *, flush: bool = False) -> None: ...


def stdout(text: str = "", /, *, flush: bool = False) -> None:
    """The line on standard output as it is at the call: under ``--json`` that is
    standard error (:func:`veriplan.cli.jsondoc.json_mode`), where progress goes
    while the document is written."""
    print(text, flush=flush)


__all__ = ["Writer", "stdout"]
