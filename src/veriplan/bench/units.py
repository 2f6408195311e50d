"""Units of work: (method, dataset, instance, backend, model, config, seed),
each with a stable id, and the sweep plans that expand into them."""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from veriplan.errors import ConfigError


def canonical(obj: object) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class BackendSpec:
    """How to build a backend: its registry name, model, and options (never
    API keys: those come from each worker's environment)."""

    name: str
    model: str = ""
    options: tuple[tuple[str, object], ...] = ()

    @classmethod
    def of(cls, name: str, model: str | None = None, **options: object) -> BackendSpec:
        opts = tuple(sorted((k, v) for k, v in options.items()
                            if v is not None and k != "api_key"))
        return cls(name, model or "", opts)

    def model_name(self) -> str:
        """The model this spec runs, known without loading it (it is part of unit
        ids): the backend class says, from the options (see
        :func:`veriplan.llm.registry.model_name`)."""
        from veriplan.llm.registry import model_name

        return model_name(self.name, self.kwargs())

    def kwargs(self) -> dict[str, object]:
        d = dict(self.options)
        if self.model:
            d["model"] = self.model
        return d


@dataclass(frozen=True)
class Unit:
    method: str
    dataset: str
    instance: str
    backend: str
    model: str
    config: str  # canonical JSON of the method's settings given for this unit
    seed: int

    @property
    def id(self) -> str:
        key = canonical([self.method, self.dataset, self.instance, self.backend, self.model,
                         json.loads(self.config), self.seed])
        return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass
class SweepPlan:
    methods: list[str]
    datasets: list[str]
    backends: list[BackendSpec]
    configs: list[dict] = field(default_factory=lambda: [{}])
    seeds: list[int] = field(default_factory=lambda: [0])
    limit: int | None = None

    def configs_for(self, method: str) -> list[dict]:
        """Configs naming this method (or none), without the ``method`` key."""
        out = [{k: v for k, v in c.items() if k != "method"} for c in self.configs
               if c.get("method", method) == method]
        return out or [{}]


def load_matrix(path: str | Path) -> SweepPlan:
    """A sweep from TOML::

        methods = ["backprompt", "direct"]
        datasets = ["blocksworld_3"]
        seeds = [0, 1]
        limit = 20
        [[models]]
        backend = "openai"
        model = "gpt-4o-mini"
        [[configs]]
        method = "backprompt"      # optional: settings for one method only
        max_attempts = 3
    """
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read sweep file {path}: {exc}") from None
    unknown = set(data) - {"methods", "datasets", "seeds", "limit", "models", "configs"}
    if unknown:
        raise ConfigError(f"sweep file {path}: unknown key(s) {', '.join(sorted(unknown))}")
    try:
        backends = [BackendSpec.of(m.pop("backend"), m.pop("model", None), **m.pop("options", {}),
                                   **m) for m in data.get("models", [{"backend": "llamacpp"}])]
        return SweepPlan(list(data["methods"]), list(data["datasets"]), backends,
                         list(data.get("configs", [{}])), list(data.get("seeds", [0])),
                         data.get("limit"))
    except KeyError as exc:
        raise ConfigError(f"sweep file {path} needs {exc.args[0]!r}") from None
