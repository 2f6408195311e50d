"""One argument contract for every face of veriplan's checks: the MCP tools'
arguments, the items of a batch (``veriplan validate --batch`` lines, the MCP
``validate_batch`` items, :func:`veriplan.verify.batch.validate_many`) and the
command line's options that mean the same.

Each argument is declared once here (:data:`ARGUMENTS`: its name, kind, range and
meaning); a :class:`Record` is the arguments one call or one item takes, in order,
with the older names it still reads (:data:`BATCH_ITEM`'s ``domain``,
``problem``, ``plan_file``, ``planbench_config``, the names batch files have had
from the start). Every face checks what it is given against its record, so an
unknown key, a number out of range or a refused path is refused the same way,
in the same words, everywhere: an :class:`ArgumentError` that names the key and
the fix (with the valid names when the key is unknown). docs/json.md lists the
records.

Nothing here imports anything but :mod:`veriplan.errors`: a batch run reads it
without start-up cost.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from veriplan.errors import ConfigError

#: The longest name (a key, a path) a message repeats whole; a longer one is cut,
#: with its length.
SHOWN_CHARS = 120


class ArgumentKind(Enum):
    """What an argument's value is."""

    TEXT = "text"          # a string (PDDL or YAML text, a name)
    PATH = "path"          # a file path: a non-empty string
    PLAN = "plan"          # a plan: text, or a list of lines
    CHOICE = "choice"      # one of the argument's choices
    INTEGER = "integer"    # a whole number within the argument's range
    NUMBER = "number"      # a finite number within the argument's range
    FLAG = "flag"          # true or false
    ID = "id"              # anything JSON, echoed in the item's record
    SETTINGS = "settings"  # an object of names to text
    ITEMS = "items"        # a list of batch items


class ArgumentError(ConfigError):
    """An argument refused by the contract: an unknown key, a value of the wrong
    kind or out of range, an older name given with its new one (a setting that
    cannot be used: the command line's error kind ``config``). ``key`` is the key
    as it was given, ``record`` the call or item that refused it."""

    def __init__(self, message: str, key: str = "", record: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.key = key
        self.record = record


def shown(text: object, limit: int = SHOWN_CHARS) -> str:
    """``text`` for a message: whole when short, else its start and its length
    (a 50 MB key or path is never echoed)."""
    s = text if isinstance(text, str) else repr(text)
    if len(s) <= limit:
        return s
    return f"{s[:limit]}... ({len(s)} characters)"


@dataclass(frozen=True)
class Argument:
    """One argument, as every face knows it. ``minimum`` bounds a number from below
    (``above``: strictly); ``maximum`` from above; ``unit`` names what a number
    counts (for messages and schemas)."""

    name: str
    kind: ArgumentKind
    meaning: str
    minimum: float | None = None
    above: bool = False
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    unit: str = ""

    def range_text(self) -> str:
        """The argument's range in words: ``at least 1``, ``a positive number``."""
        kind = "a whole number" if self.kind is ArgumentKind.INTEGER else "a finite number"
        parts = []
        if self.minimum is not None:
            if self.above and self.minimum == 0:
                kind = ("a positive whole number" if self.kind is ArgumentKind.INTEGER
                        else "a positive finite number")
            else:
                parts.append(f"{'above' if self.above else 'at least'} {self.minimum:g}")
        if self.maximum is not None:
            parts.append(f"at most {self.maximum:g}")
        unit = f" of {self.unit}" if self.unit else ""
        return f"{kind}{unit}" + (f", {' and '.join(parts)}" if parts else "")

    def number(self, value: object, key: str | None = None, record: str = "") -> float | int:
        """``value`` as this argument's number (an int for an integer argument),
        or the :class:`ArgumentError` that names the key and the range. A number
        given as text (as some hosts send them) is read as one."""
        key = self.name if key is None else key
        number: float | int
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ArgumentError(f"{shown(key)} must be {self.range_text()}, not "
                                f"{_what(value)}", key, record)
        try:
            if isinstance(value, str):
                text = value.strip()
                number = int(text) if self.kind is ArgumentKind.INTEGER and \
                    text.lstrip("+-").isdigit() else float(text)
            else:
                number = value
        except (ValueError, OverflowError):
            raise ArgumentError(f"{shown(key)} must be {self.range_text()}, not "
                                f"{shown(repr(value), 40)}", key, record) from None
        if isinstance(number, float):
            if not math.isfinite(number):
                raise ArgumentError(f"{shown(key)} must be {self.range_text()}, not {number}",
                                    key, record)
            if self.kind is ArgumentKind.INTEGER:
                if not number.is_integer():
                    raise ArgumentError(f"{shown(key)} must be {self.range_text()}, not "
                                        f"{number:g}", key, record)
                number = int(number)
        low, high = self.minimum, self.maximum
        if (low is not None and (number <= low if self.above else number < low)) or \
                (high is not None and number > high):
            raise ArgumentError(f"{shown(key)} must be {self.range_text()}, not "
                                f"{_number_text(number)}", key, record)
        return number

    def check(self, value: object, key: str | None = None, record: str = "") -> None:
        """Refuse ``value`` (not None: None is "not given") if it is not of this
        argument's kind or out of its range."""
        key = self.name if key is None else key
        kind = self.kind
        if kind in (ArgumentKind.INTEGER, ArgumentKind.NUMBER):
            self.number(value, key, record)
        elif kind is ArgumentKind.PATH:
            if not isinstance(value, str) or not value:
                raise ArgumentError(f"{shown(key)} must be a file path (a non-empty string), "
                                    f"not {_what(value)}", key, record)
        elif kind is ArgumentKind.TEXT:
            if not isinstance(value, str):
                raise ArgumentError(f"{shown(key)} must be text (a string), not "
                                    f"{_what(value)}", key, record)
        elif kind is ArgumentKind.PLAN:
            if not (isinstance(value, str) or (isinstance(value, list) and all(
                    isinstance(s, str) for s in value))):
                raise ArgumentError(f"{shown(key)} must be the plan's text (a string, or a "
                                    "list of lines)", key, record)
        elif kind is ArgumentKind.CHOICE:
            if value not in self.choices:
                raise ArgumentError(f"unknown {shown(key)} {shown(repr(value), 40)}: use "
                                    f"{' or '.join(repr(c) for c in self.choices)}", key, record)
        elif kind is ArgumentKind.FLAG:
            if not isinstance(value, bool):
                raise ArgumentError(f"{shown(key)} must be true or false, not {_what(value)}",
                                    key, record)
        elif kind is ArgumentKind.ITEMS:
            if not isinstance(value, list | tuple):
                raise ArgumentError(f"{shown(key)} must be a list of items, not "
                                    f"{_what(value)}", key, record)
        elif kind is ArgumentKind.SETTINGS and not isinstance(value, Mapping):
            raise ArgumentError(f"{shown(key)} must be an object of names to values, not "
                                f"{_what(value)}", key, record)


def _number_text(n: float | int) -> str:
    return shown(str(n), 40) if isinstance(n, int) else f"{n:g}"


def _what(value: object) -> str:
    """A value's kind in JSON's words, for a message (never the value itself)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return f"the number {_number_text(value)}"
    if isinstance(value, str):
        return "an empty string" if not value else "text"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _declare(*arguments: Argument) -> dict[str, Argument]:
    return {a.name: a for a in arguments}


K = ArgumentKind
#: Every argument of every face, once.
ARGUMENTS: dict[str, Argument] = _declare(
    Argument("domain", K.TEXT, "the PDDL domain, as text"),
    Argument("domain_path", K.PATH, "the PDDL domain file"),
    Argument("problem", K.TEXT, "the PDDL problem, as text"),
    Argument("problem_path", K.PATH, "the PDDL problem file"),
    Argument("plan", K.PLAN, "the plan: text (PDDL '(action args)' lines, the IPC plan "
                             "format, or a model's free text with format 'planbench'), or "
                             "a list of lines"),
    Argument("plan_path", K.PATH, "a plan file"),
    Argument("format", K.CHOICE, "pddl: (action args) lines; planbench: PlanBench natural "
                                 "language (needs a PlanBench config)",
             choices=("pddl", "planbench")),
    Argument("planbench_config", K.TEXT, "a PlanBench YAML config, as text"),
    Argument("planbench_config_path", K.PATH, "a PlanBench YAML config file"),
    Argument("trace", K.FLAG, "also return the state before each step"),
    Argument("max_states", K.INTEGER, "return at most this many states", minimum=1),
    Argument("offset", K.INTEGER, "skip this many actions (paging)", minimum=0),
    Argument("limit", K.INTEGER, "at most this many actions", minimum=1),
    Argument("planner", K.TEXT, "fd (Fast Downward, lama-first), fd-optimal, or veriplan's "
                                "own bfs, astar-hadd, astar-hff, gbfs-hff"),
    Argument("time_limit", K.NUMBER, "the planner's time (at most the server's limit)",
             minimum=0, above=True, unit="seconds"),
    Argument("method", K.TEXT, "the planning method"),
    Argument("settings", K.SETTINGS, "method settings, e.g. {\"max_attempts\": \"3\"}"),
    Argument("items", K.ITEMS, "the plans: batch items"),
    Argument("id", K.ID, "the item's name, echoed in its record"),
    Argument("tolerance", K.NUMBER, "VAL's -t, for timed plans: a step's duration may miss "
                                    "its constraint by this much, and steps at most a tenth "
                                    "of it apart in time are one happening (default 0.01)",
             minimum=0, above=True, unit="time units"),
)
del K


@dataclass(frozen=True)
class Record:
    """The arguments one call (an MCP tool) or one item (a batch line) takes, in
    order; ``aliases``: older names it still reads, each the same argument as its
    new name (giving both is refused)."""

    name: str
    names: tuple[str, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for n in (*self.names, *self.aliases.values()):
            if n not in ARGUMENTS:
                raise AssertionError(f"{self.name}: {n} is not declared in ARGUMENTS")

    @property
    def arguments(self) -> tuple[Argument, ...]:
        return tuple(ARGUMENTS[n] for n in self.names)

    def valid_text(self) -> str:
        """The record's names for a message: ``a, b, c`` (and the older names)."""
        text = ", ".join(self.names)
        if self.aliases:
            old = ", ".join(f"{a} for {n}" for a, n in self.aliases.items())
            text += f" (older names still read: {old})"
        return text

    def canonical(self, key: str) -> str | None:
        """The argument ``key`` names in this record (its own name for an alias);
        None for a key the record does not have."""
        if key in self.aliases:
            return self.aliases[key]
        return key if key in self.names else None

    def label(self, key: str) -> str:
        """``key`` as a message names it: ``'plan_file' (plan_path)`` for an alias."""
        new = self.aliases.get(key)
        return f"'{key}' ({new})" if new is not None else f"'{key}'"

    def check_keys(self, keys: Iterable[object]) -> None:
        """Refuse a key the record does not have (naming the valid ones), and an
        older name given together with its new one."""
        given = list(keys)
        unknown = [k for k in given if not isinstance(k, str) or self.canonical(k) is None]
        if unknown:
            names = ", ".join(repr(shown(k, 40)) for k in unknown[:5])
            more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
            s = "s" if len(unknown) > 1 else ""
            raise ArgumentError(f"unknown key{s} {names}{more} in {self.name}: it takes "
                                f"{self.valid_text()}", str(unknown[0]), self.name)
        for old, new in self.aliases.items():
            if old in given and new in given:
                raise ArgumentError(f"{self.name} has both '{old}' and '{new}' (the same "
                                    f"argument, {old} its older name): give one", old, self.name)

    def check(self, values: Mapping[str, object]) -> None:
        """:meth:`check_keys`, then every value given (not None) against its
        argument: kind and range."""
        self.check_keys(values)
        for key, value in values.items():
            if value is not None:
                name = self.canonical(key)
                assert name is not None
                ARGUMENTS[name].check(value, key, self.name)

    def number(self, name: str, value: object) -> float | int:
        """Argument ``name``'s value read and range-checked (see :meth:`Argument.number`)."""
        return ARGUMENTS[name].number(value, name, self.name)


_TASK = ("domain", "domain_path", "problem", "problem_path")
_PLAN = ("plan", "plan_path", "format", "planbench_config", "planbench_config_path")

#: Each MCP tool's arguments.
TOOLS: dict[str, Record] = {r.name: r for r in (
    Record("validate_plan", (*_TASK, *_PLAN, "trace", "tolerance")),
    Record("simulate", (*_TASK, *_PLAN, "max_states", "tolerance")),
    Record("applicable_actions", (*_TASK, "plan", "offset", "limit")),
    Record("solve_classical", (*_TASK, "planner", "time_limit")),
    Record("check_task", _TASK),
    Record("validate_batch", ("items", "domain_path", "problem_path", "tolerance")),
    Record("run_method", ("method", *_TASK, "planbench_config", "planbench_config_path",
                          "settings")),
)}

#: One item of a batch: a ``veriplan validate --batch`` line, an MCP
#: ``validate_batch`` item, an item of ``validate_many``. Paths only (a domain or
#: problem is never inline text here); the older names are those batch files have
#: always used. The tolerance is the batch's (``validate --batch -t``, the
#: ``validate_batch`` call's ``tolerance``), not an item's.
BATCH_ITEM = Record(
    "a batch item",
    ("id", "domain_path", "problem_path", "plan", "plan_path", "format",
     "planbench_config_path"),
    aliases={"domain": "domain_path", "problem": "problem_path", "plan_file": "plan_path",
             "planbench_config": "planbench_config_path"})

#: A command-line option that is the same argument as a record's key.
CLI_OPTIONS: dict[str, str] = {
    "--domain": "domain_path", "--problem": "problem_path", "--plan": "plan_path",
    "--format": "format", "--planbench-config": "planbench_config_path",
    "--trace": "trace", "--planner": "planner", "--time-limit": "time_limit",
    "--tolerance": "tolerance",
}


#: The options ``veriplan mcp`` starts a server with (its limits), checked as the
#: tools' numbers are.
SERVER_OPTIONS: dict[str, Argument] = {
    "--time-limit": Argument("time_limit", ArgumentKind.NUMBER, "the longest one call may run",
                             minimum=0, above=True, unit="seconds"),
    "--method-time-limit": Argument("method_time_limit", ArgumentKind.NUMBER,
                                    "the longest run_method may run", minimum=0, above=True,
                                    unit="seconds"),
    "--max-items": Argument("max_items", ArgumentKind.INTEGER,
                            "the most plans one validate_batch call may hold", minimum=1),
    "--max-calls": Argument("max_calls", ArgumentKind.INTEGER,
                            "the most calls at work at once", minimum=1),
    "--port": Argument("port", ArgumentKind.INTEGER, "--http: the port", minimum=1,
                       maximum=65535),
}


def markdown_table() -> str:
    """The contract as the Markdown table docs/json.md holds (a test keeps the two
    the same): each argument, its kind and range, the records that take it (with
    the older name a batch item still reads) and its command-line option."""
    options = {name: opt for opt, name in CLI_OPTIONS.items()}
    older = {new: old for old, new in BATCH_ITEM.aliases.items()}
    rows = ["| argument | value | taken by | option |", "|---|---|---|---|"]
    for a in ARGUMENTS.values():
        takers = [r.name for r in TOOLS.values() if a.name in r.names]
        if a.name in BATCH_ITEM.names:
            takers.append("batch item" + (f" (or `{older[a.name]}`)" if a.name in older else ""))
        if a.kind in (ArgumentKind.INTEGER, ArgumentKind.NUMBER):
            value = a.range_text()
        elif a.kind is ArgumentKind.CHOICE:
            value = " or ".join(f"`{c}`" for c in a.choices)
        else:
            value = a.kind.value
        option = f"`{options[a.name]}`" if a.name in options else ""
        rows.append(f"| `{a.name}` | {value}: {a.meaning} | {', '.join(takers)} | {option} |")
    return "\n".join(rows) + "\n"


def refused_path(given: str, what: str, inside: str, fix: str) -> str:
    """The one message for a path that leads outside where paths may lead: the path
    as it was given (never where it leads, never a root's absolute path), ``inside``
    naming the place in words, ``fix`` how to allow another."""
    return (f"{shown(given)}: the {what} is outside {inside}; no path may lead out, also "
            f"through symlinks or '..' ({fix})")


__all__ = ["ARGUMENTS", "BATCH_ITEM", "CLI_OPTIONS", "SERVER_OPTIONS", "SHOWN_CHARS", "TOOLS",
           "Argument", "ArgumentError", "ArgumentKind", "Record", "markdown_table",
           "refused_path", "shown"]
