"""One small registry for every kind of plug-in (methods, backends, datasets,
environments, AutoToS domains, planners, heuristics).

A registry maps names to entries. An entry is either the object itself or a
``"module:attribute"`` string (``"module"`` alone names a module), imported on
first use so that listing names never imports a plug-in. Other packages add
entries through an entry-point group; :meth:`Registry.register` adds them at run
time (tests, notebooks). An unknown name is a :class:`ConfigError` (or the
registry's ``error`` type) that names the kind and every choice.

Built-in and registered names win over entry points of the same name. The
entry points are read when a name outside the built-ins is asked for and when
the names are listed, never for a built-in name, so getting a built-in costs no
scan of the installed packages (a sandbox child looks up one domain).

:data:`PLUGINS` holds the package's own plug-ins that a lower layer must find
without importing the package that provides them (a method's controlled
stand-in model is a backend of the LLM layer, which imports no method): group
-> name -> ``"module:attr"``, declared as an installed package declares its
entry points, and found before them (no scan).
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeGuard, TypeVar, cast

from veriplan.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Iterable
    from importlib.metadata import EntryPoint

T = TypeVar("T")

# The package's own entry points: group -> name -> "module:attr" (imported on first use).
PLUGINS: dict[str, dict[str, str]] = {
    # each method's controlled stand-in model (veriplan.llm.controlled's seam)
    "veriplan.backends": {
        # SQ-BCP and its baselines on hidden-precondition tasks
        "controlled": "veriplan.methods.sqbcp.controlled:ControlledBackend",
        # AEC and its baselines on the household games and ScienceWorld
        "controlled-aec": "veriplan.methods.aec.controlled:ControlledAECBackend",
        # the closed loop, DRIP, direct generation and back-prompting (one shared model)
        "controlled-plan": "veriplan.methods.controlled_plan:ControlledPlanBackend",
        # AutoToS: a function writer with seeded bugs of the paper's error classes
        "controlled-autotos": "veriplan.methods.autotos.controlled:ControlledAutoToSBackend",
    },
}


class _Selectable(Protocol):
    """What ``importlib.metadata.entry_points()`` gives (``EntryPoints``; Python
    3.11's ``SelectableGroups``): every group's, selected by group."""

    def select(self, *, group: str) -> Iterable[EntryPoint]: ...


# Every installed entry point, read once for the import path it was read on: each
# read opens every installed distribution's metadata, and listing the CLI's choices
# asks some twenty groups (22 reads were two thirds of `veriplan --help`).
_INSTALLED: tuple[tuple[str, ...], _Selectable] | None = None


def entry_points(*, group: str) -> list[EntryPoint]:
    """The installed entry points of ``group`` (``importlib.metadata`` imported
    on first use; the installed packages read once while ``sys.path`` stays as it
    was)."""
    global _INSTALLED
    from importlib.metadata import entry_points as installed

    key = tuple(sys.path)
    scanned = _INSTALLED
    if scanned is None or scanned[0] != key:
        scanned = _INSTALLED = (key, installed())
    return list(scanned[1].select(group=group))


def _is_entry_point(obj: object) -> TypeGuard[EntryPoint]:
    """An entry point can exist only once ``importlib.metadata`` is imported
    (by :meth:`Registry._plugins`), which importing this module does not do:
    it costs tens of milliseconds, and a sandbox child never needs it."""
    metadata = sys.modules.get("importlib.metadata")
    return metadata is not None and isinstance(obj, metadata.EntryPoint)


# -> Any, as getattr: whatever the path names, which its caller knows (a report
# function, a command module) and no type here can say
def resolve(target: str) -> Any:
    """``"pkg.mod:attr"`` -> the attribute; ``"pkg.mod"`` -> the module."""
    module, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module.strip())
    for part in attr.strip().split(".") if attr.strip() else ():
        obj = getattr(obj, part)
    return obj


class Registry(Generic[T]):
    """``names()`` (sorted), ``declared()``, ``get(name)``, ``register(name, entry)``,
    ``unregister``, ``in``.

    ``load`` turns a resolved entry into what :meth:`get` returns (for example a
    module into a method spec); it runs once per name. ``error`` is the
    exception type of an unknown name (a subclass of :class:`ConfigError`
    where a kind keeps an older type too).
    """

    def __init__(self, kind: str, builtins: Mapping[str, object] | None = None, *,
                 group: str | None = None, load: Callable[[str, object], T] | None = None,
                 error: type[Exception] = ConfigError) -> None:
        self.kind = kind
        self.group = group
        self._entries: dict[str, object] = dict(builtins or {})
        self._load = load
        self._loaded: dict[str, T] = {}
        self._error = error
        self._lock = threading.Lock()
        self._version = 0  # bumped by register/unregister: a load racing them is not cached

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.names()})"

    def _plugins(self) -> dict[str, EntryPoint]:
        if not self.group:
            return {}
        out: dict[str, EntryPoint] = {}
        for ep in entry_points(group=self.group):
            out.setdefault(ep.name, ep)
        return out

    def _own(self) -> dict[str, str]:
        """The package's own plug-ins of this registry's group (:data:`PLUGINS`)."""
        return PLUGINS.get(self.group, {}) if self.group else {}

    def _table(self) -> dict[str, object]:
        with self._lock:
            table = dict(self._entries)
        for name, path in self._own().items():
            table.setdefault(name, path)
        for name, ep in self._plugins().items():
            table.setdefault(name, ep)
        return table

    def _entry(self, name: str) -> object:
        """The raw entry of ``name`` (object, path or entry point), else KeyError."""
        with self._lock:
            if name in self._entries:
                return self._entries[name]
        own = self._own()
        if name in own:
            return own[name]
        return self._plugins()[name]

    def entries(self) -> dict[str, object]:
        """Every name with its entry as given: the object, or the ``module:attr``
        path (entry points as their value), nothing imported."""
        return {name: entry.value if _is_entry_point(entry) else entry
                for name, entry in sorted(self._table().items())}

    def names(self) -> list[str]:
        return sorted(self._table())

    def declared(self) -> list[str]:
        """The names in the order they were declared: the built-ins as written,
        then those registered at run time, the package's own plug-ins and the
        entry points (where an order is part of what a registry means: the
        sections of a report)."""
        return list(self._table())

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        try:
            self._entry(name)
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._table())

    def register(self, name: str, entry: object) -> None:
        """Add or replace ``name`` (the object itself or a ``module:attr`` path)."""
        with self._lock:
            self._entries[name] = entry
            self._loaded.pop(name, None)
            self._version += 1

    def unregister(self, name: str) -> None:
        with self._lock:
            self._entries.pop(name, None)
            self._loaded.pop(name, None)
            self._version += 1

    def unknown(self, name: object) -> Exception:
        """The error for a name that is not registered."""
        return self._error(f"unknown {self.kind} {name!r}: use one of "
                           f"{', '.join(self.names()) or '(none registered)'}")

    def get(self, name: str) -> T:
        if not isinstance(name, str):
            raise self.unknown(name)
        with self._lock:
            if name in self._loaded:
                return self._loaded[name]
            version = self._version
        try:
            entry = self._entry(name)
        except KeyError:
            raise self.unknown(name) from None
        if _is_entry_point(entry):
            obj = entry.load()
        elif isinstance(entry, str):
            obj = resolve(entry)
        else:
            obj = entry
        # without a loader an entry is the T itself (or names it)
        value = self._load(name, obj) if self._load is not None else cast("T", obj)
        with self._lock:
            if self._version == version:
                self._loaded[name] = value
        return value


__all__ = ["PLUGINS", "Registry", "resolve"]
