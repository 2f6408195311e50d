"""What a batch says about one item: :class:`BatchVerdict`, its result or an
:class:`ItemError`; and the errors met while judging an item made into the
:class:`ItemError` of its record (:class:`NotJudged` carries one out of the judge)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from veriplan.errors import InputFileError, PDDLInputFileError, SourceError, VeriplanError

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue
    from veriplan.verify.validator import ValidationResult

#: The kinds of :class:`ItemError`.
ERROR_KINDS = ("json", "item", "missing-file", "pddl", "config", "too-large", "not-a-file",
               "not-text", "refused", "internal")


@dataclass(frozen=True, slots=True)
class ItemError:
    """Why an item could not be judged.

    ``kind`` is one of :data:`ERROR_KINDS`: ``json`` (the input line is not
    JSON; ``line`` and ``col`` locate the fault in the input), ``item`` (not an
    object, a key missing or of the wrong type), ``missing-file`` (``file``
    cannot be read), ``pddl`` (a PDDL file is malformed or outside veriplan's
    subset: ``file``, ``line`` and ``col`` locate it when known), ``config`` (a
    PlanBench config that cannot be used), ``too-large`` (a file, or the input
    line, over the size limit), ``not-a-file`` (a device, pipe or socket),
    ``not-text`` (a plan file that is not UTF-8 text), ``refused`` (a path
    outside the base directory of a confined batch), ``internal`` (a fault of
    veriplan's, or a worker process that died, on this line; the others go on).
    Messages name files but never quote a file that is not PDDL."""

    kind: str
    message: str
    file: str | None = None
    line: int | None = None
    col: int | None = None

    def to_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "file": self.file,
                "line": self.line, "col": self.col}


@dataclass(frozen=True, slots=True)
class BatchVerdict:
    """The verdict on one item: ``result`` when it was judged, else ``error``.

    ``line`` is the item's 1-based position in the input (for JSON Lines, its
    line number); ``id`` is the item's ``"id"`` (None when it has none)."""

    line: int
    id: JSONValue
    result: ValidationResult | None = None
    error: ItemError | None = None

    @property
    def judged(self) -> bool:
        return self.result is not None

    @property
    def valid(self) -> bool | None:
        """True or False when judged, None when the item could not be judged."""
        return None if self.result is None else self.result.valid

    def to_dict(self) -> dict:
        """One JSON-ready record (the line ``veriplan validate --batch`` prints)::

            {"line", "id", "valid", "steps", "unread", "failed_step", "failed_action",
             "failure", "detail", "unsatisfied", "unmet_goals", "metric", "error"}

        (on a PDDL 3 task, ``violations``, each preference name's count of violations,
        and ``constraints``, the hard constraints broken, before ``error``);
        ``steps`` is the number of steps read; ``unread`` the lines that were not
        (``line``, ``text``, ``reason``); ``failed_step`` the 1-based number of
        the first step that cannot be executed and ``failed_action`` its text;
        ``failure`` its kind (``precondition``, ``unknown-action``, ...;
        ``unread`` when the steps read have no fault); ``unsatisfied`` its false
        preconditions and ``unmet_goals`` the goals false at the end, as PDDL;
        ``metric`` the problem's metric on the final state (VAL's "Final value"; null
        without a metric or for a plan that does not execute). ``error`` is None for a
        judged item; for one that was not, ``valid`` is None and ``error`` is
        :meth:`ItemError.to_dict`."""
        r = self.result
        if r is None:
            assert self.error is not None
            return {"line": self.line, "id": self.id, "valid": None, "steps": None,
                    "unread": [], "failed_step": None, "failed_action": None,
                    "failure": None, "detail": None, "unsatisfied": [], "unmet_goals": [],
                    "metric": None, "error": self.error.to_dict()}
        out = {
            "line": self.line, "id": self.id, "valid": r.valid, "steps": len(r.plan),
            "unread": [{"line": u.line, "text": u.text, "reason": u.reason} for u in r.unread],
            "failed_step": r.failed_step, "failed_action": r.action,
            "failure": str(r.error) if r.error else None, "detail": r.detail or None,
            "unsatisfied": [u.pddl() for u in r.unsatisfied],
            "unmet_goals": [g.pddl() for g in r.unmet_goals],
            "metric": r.metric.value if r.metric is not None else None,
            "error": None,
        }
        if r.preferences is not None or r.constraints:
            # PDDL 3: violations per preference name (VAL's "Violations:"), the hard
            # constraints broken (only on such tasks: other records keep their keys)
            del out["error"]
            out["violations"] = (r.preferences.violated() if r.preferences is not None
                                 else None)
            out["constraints"] = [c.constraint for c in r.constraints]
            out["error"] = None
        return out


class NotJudged(Exception):
    """An item that cannot be judged, raised with its :class:`ItemError`."""

    def __init__(self, error: ItemError) -> None:
        self.error = error


_KIND = {"missing": "missing-file", "too-large": "too-large", "not-a-file": "not-a-file",
         "outside": "refused", "not-text": "not-text"}


def file_error(exc: InputFileError) -> NotJudged:
    """The record of a file that cannot be read: named, never quoted."""
    kind = _KIND.get(exc.reason, "missing-file")
    if kind == "not-text" and isinstance(exc, PDDLInputFileError):
        kind = "pddl"
    return NotJudged(ItemError(kind, str(exc), file=exc.file, line=exc.line, col=exc.col))


def missing_file(path: str, what: str, exc: OSError) -> NotJudged:
    return NotJudged(ItemError("missing-file", f"cannot read {what} {path}: {exc.strerror}",
                               file=path))


def pddl_error(exc: VeriplanError) -> NotJudged:
    if isinstance(exc, InputFileError):
        return file_error(exc)
    if isinstance(exc, SourceError):
        return NotJudged(ItemError("pddl", str(exc), file=exc.file, line=exc.line,
                                   col=exc.col))
    return NotJudged(ItemError("pddl", str(exc)))


def internal_error(exc: BaseException) -> ItemError:
    """The record of a fault of veriplan's on one line (the run goes on)."""
    text = str(exc)
    text = f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
    return ItemError("internal", f"internal error while judging this line ({text}); "
                                 "this is a bug in veriplan, please report it")
