"""PlanBench's natural-language plan format: reading model answers with a
config's action templates and object encodings, and rendering tasks as
PlanBench-style prompts (one-shot and zero-shot)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import yaml

from veriplan.core.plan import Step
from veriplan.errors import ConfigError, VeriplanError
from veriplan.pddl.ast import And, Atom, Formula
from veriplan.planio.parsed import ParsedPlan, UnreadLine, plan_lines

_ARTICLE = r"(?:(?:the|a|an)\s+)?"


@dataclass(frozen=True)
class PlanBenchConfig:
    """The parts of a PlanBench YAML config that plan I/O needs."""

    domain_name: str
    actions: dict[str, str]
    predicates: dict[str, str] = field(default_factory=dict)
    encoded_objects: dict[str, str] = field(default_factory=dict)
    encoded_objects_compact: dict[str, str] = field(default_factory=dict)
    domain_intro: str = ""
    file: str = "<config>"

    @classmethod
    def from_yaml(cls, path: str | Path) -> PlanBenchConfig:
        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read PlanBench config {path}: {exc.strerror}") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"PlanBench config {path} is not valid YAML: {exc}") from None
        return cls.from_dict(data, file=str(path))

    @classmethod
    def from_dict(cls, data: object, file: str = "<config>") -> PlanBenchConfig:
        if not isinstance(data, dict):
            raise ConfigError(f"PlanBench config {file} must be a mapping")
        if not isinstance(data.get("actions"), dict):
            raise ConfigError(
                f"PlanBench config {file} has no 'actions' templates; use a config with "
                "natural-language action templates (e.g. configs/blocksworld.yaml)")

        def table(key: str) -> dict[str, str]:
            v = data.get(key) or {}
            if not isinstance(v, dict):
                raise ConfigError(f"PlanBench config {file}: '{key}' must be a mapping")
            return {str(k).lower(): str(t) for k, t in v.items()}

        return cls(str(data.get("domain_name", "")), table("actions"), table("predicates"),
                   table("encoded_objects"), table("encoded_objects_compact"),
                   str(data.get("domain_intro", "")), file)

    # ----- object names -------------------------------------------------------------
    def encode(self, obj: str) -> str:
        """The config's name for an object: ``a`` -> ``red block``, ``l0-0`` ->
        ``location_0_0`` (pattern encodings), or the object itself."""
        if obj in self.encoded_objects:
            return self.encoded_objects[obj]
        m = re.fullmatch(r"([a-z]+)(\d+(?:-\d+)*)", obj)
        if m and m.group(1) in self.encoded_objects:
            template = self.encoded_objects[m.group(1)]
            parts = m.group(2).split("-")
            if template.count("{}") == len(parts):
                return template.format(*parts)
        return obj

    def aliases(self, objects: Sequence[str]) -> dict[str, str]:
        """Every unambiguous way an answer may name each object (lower case)."""
        seen: dict[str, set[str]] = {}
        for o in objects:
            names = {o, self.encode(o).lower(), f"object {o}", f"block {o}"}
            compact = self.encoded_objects_compact.get(o)
            if compact:
                names |= {compact.lower(), f"{compact.lower()} block"}
            for n in names:
                seen.setdefault(n, set()).add(o)
        return {n: next(iter(objs)) for n, objs in seen.items() if len(objs) == 1}

    # ----- rendering -------------------------------------------------------------------
    def describe_atom(self, atom: Atom) -> str:
        template = self.predicates.get(atom.pred)
        if template is None or template.count("{}") != len(atom.args):
            raise ConfigError(f"PlanBench config {self.file} has no template for predicate "
                              f"{atom.pred}/{len(atom.args)}")
        return template.format(*(self.encode(a) for a in atom.args))

    def describe_step(self, step: Step) -> str:
        template = self.actions.get(step.name)
        if template is None or template.count("{}") != len(step.args):
            raise ConfigError(f"PlanBench config {self.file} has no template for action "
                              f"{step.name}/{len(step.args)}")
        return template.format(*(self.encode(a) for a in step.args))

    @cached_property
    def _templates(self) -> list[tuple[str, list[str]]]:
        out = []
        for name, template in self.actions.items():
            pieces = [p.split() for p in template.lower().split("{}")]
            out.append((name, pieces))
        return out


def _piece_regex(words: list[str], *, connector: bool) -> str:
    words = [w for w in words if w not in ("the", "a", "an")]
    if not words:
        return r"\s+" + _ARTICLE if connector else ""
    if connector:
        # A connector may be cut short ("unstack X from Y" for "from on top of"):
        # a prefix of the template's words still has one reading.
        alts = [r"\s+".join(map(re.escape, words[:k])) for k in range(len(words), 0, -1)]
        return r"\s+(?:" + "|".join(alts) + r")\s+" + _ARTICLE
    return r"\s+".join(map(re.escape, words)) + r"\s+" + _ARTICLE


def _line_regexes(cfg: PlanBenchConfig, alias_re: str) -> list[tuple[str, int, re.Pattern]]:
    out = []
    for name, pieces in cfg._templates:
        head = _piece_regex(pieces[0], connector=False) if pieces[0] else _ARTICLE
        parts = ["^" + head]
        nslots = len(pieces) - 1
        for i in range(nslots):
            parts.append(f"(?P<a{i}>{alias_re})")
            if i + 1 < nslots:
                parts.append(_piece_regex(pieces[i + 1], connector=True))
        trailing = pieces[-1]
        if trailing:
            parts.append(r"(?:\s+" + r"\s+".join(map(re.escape, trailing)) + ")?")
        parts.append(r"(?P<rest>(?:\W.*)?)$")
        out.append((name, nslots, re.compile("".join(parts))))
    return out


def read_planbench_plan(text: str, cfg: PlanBenchConfig, objects: Sequence[str]) -> ParsedPlan:
    """Read a PlanBench natural-language plan ("unstack the red block from on
    top of the blue block") into steps, reporting every line it cannot read.

    A line is read when it matches one action template, with articles
    optional, objects named in any of the config's encodings (or plainly),
    a connector possibly cut short, and trailing words that name no object
    ("put down the red block on the table"). Anything else is unread.
    """
    aliases = cfg.aliases(objects)
    alias_re = "|".join(re.escape(a) for a in sorted(aliases, key=len, reverse=True))
    mention = re.compile(rf"(?<![\w-])(?:{alias_re})(?![\w-])") if aliases else None
    regexes = _line_regexes(cfg, alias_re)
    steps: list[Step] = []
    unread: list[UnreadLine] = []
    lines, after_end = plan_lines(text)
    for n, line in lines:
        low = " ".join(line.lower().replace("`", " ").split()).rstrip(".;,")
        if low.startswith("(") and low.endswith(")"):
            low = low[1:-1].strip()
        matches: list[Step] = []
        for name, nslots, rx in regexes:
            m = rx.match(low)
            if m is None:
                continue
            if mention is not None and mention.search(m.group("rest")):
                continue
            matches.append(Step(name, tuple(aliases[m.group(f"a{i}")] for i in range(nslots)), n))
        step = _choose(matches, low)
        if step is None:
            reason = ("matches more than one action template" if matches else
                      "matches no action template of the config with the task's objects")
            unread.append(UnreadLine(n, line, reason))
        else:
            steps.append(step)
    return ParsedPlan(tuple(steps), tuple(unread), after_end)


def _choose(matches: list[Step], line: str) -> Step | None:
    if len(matches) <= 1:
        return matches[0] if matches else None
    # Templates shared by several actions ("load {} into {} at {}" for trucks
    # and airplanes): the action whose name words the line mentions most.
    def score(s: Step) -> int:
        return sum(1 for w in re.split(r"[-_]", s.name) if w and w in line)

    best = max(score(s) for s in matches)
    top = {s for s in matches if score(s) == best}
    return top.pop() if len(top) == 1 else None


# ----- prompts ---------------------------------------------------------------------------
def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _goal_atoms(goal: Formula) -> list[Atom]:
    if isinstance(goal, Atom):
        return [goal]
    if isinstance(goal, And) and all(isinstance(p, Atom) for p in goal.parts):
        return list(goal.parts)  # type: ignore[arg-type]
    raise VeriplanError("PlanBench prompts describe goals that are conjunctions of atoms only")


def render_statement(init: Sequence[Atom], goal: Formula, cfg: PlanBenchConfig,
                     plan: Sequence[Step] | None = None) -> str:
    """One ``[STATEMENT]`` block; with ``plan``, closed by the plan and ``[PLAN END]``."""
    facts = _join([cfg.describe_atom(a) for a in sorted(init)])
    goals = _join([cfg.describe_atom(a) for a in _goal_atoms(goal)])
    text = (f"\n[STATEMENT]\nAs initial conditions I have that, {facts}.\n"
            f"My goal is to have that {goals}.\n\nMy plan is as follows:\n\n[PLAN]")
    if plan is not None:
        text += "".join("\n" + cfg.describe_step(s) for s in plan) + "\n[PLAN END]\n"
    return text


def render_prompt(task, cfg: PlanBenchConfig, *, example: tuple | None = None) -> str:
    """A PlanBench plan-generation prompt for ``task``: the domain intro, then
    (one-shot) an example task with its plan, then the task to solve.

    ``example`` is ``(example_task, example_plan)``; without it the prompt is
    zero-shot.
    """
    text = cfg.domain_intro.rstrip("\n") + "\n"
    if example is not None:
        ex_task, ex_plan = example
        text += render_statement(ex_task.problem.init, ex_task.problem.goal, cfg,
                                 [s if isinstance(s, Step) else Step(s.name, s.args)
                                  for s in ex_plan])
    return text + render_statement(task.problem.init, task.problem.goal, cfg)
