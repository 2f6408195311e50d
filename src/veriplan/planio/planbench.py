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
from veriplan.errors import ConfigError, InputFileError, VeriplanError
from veriplan.pddl.ast import And, Atom, Formula
from veriplan.pddl.inputs import read_text
from veriplan.planio.parsed import LINE, Collector, ParsedPlan, UnreadLine, split_answer
from veriplan.planio.pddl_plan import Vocabulary, bounded_plan

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
    def from_yaml(cls, path: str | Path, *, max_bytes: int | None = None) -> PlanBenchConfig:
        """Read a config file (a regular file of at most ``max_bytes``, default
        :data:`veriplan.pddl.inputs.DEFAULT_MAX_BYTES`, UTF-8); ConfigError names
        the file and the fault, never quoting a file that is not YAML text."""
        try:
            text = read_text(path, what="PlanBench config", max_bytes=max_bytes)
        except InputFileError as exc:
            raise ConfigError(str(exc)) from None
        return cls.from_text(text, file=str(path))

    @classmethod
    def from_text(cls, text: str, file: str = "<config>") -> PlanBenchConfig:
        """A config from its YAML text (``file`` names it in errors)."""
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise ConfigError(f"PlanBench config {file} is not valid YAML{where}") from None
        except RecursionError:
            raise ConfigError(f"PlanBench config {file} is nested too deeply") from None
        return cls.from_dict(data, file=file)

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
        """The atom in the config's words; ``""`` for a predicate the config
        declares with an empty template (PlanBench leaves those facts out of the
        text: Logistics' type facts such as ``(truck t0)``)."""
        template = self.predicates.get(atom.pred)
        if template == "":
            return ""
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

    @cached_property
    def _readers(self) -> dict[tuple[str, ...], _Reader]:
        return {}

    def reader(self, objects: Sequence[str]) -> _Reader:
        """The templates compiled for these objects (kept for reuse)."""
        key = tuple(objects)
        found = self._readers.get(key)
        if found is None:
            if len(self._readers) >= 256:
                self._readers.clear()
            found = self._readers[key] = _Reader(self, key)
        return found


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


def _template_regex(pieces: list[list[str]], alias_re: str, *, whole: bool) -> str:
    """A template as a regex: the whole line (``whole``: anchored, the trailing
    words optional, then ``rest``) or a phrase to search for inside a line."""
    head = _piece_regex(pieces[0], connector=False) if pieces[0] else _ARTICLE
    parts = ["^" + head if whole else r"(?<![\w-])" + head]
    nslots = len(pieces) - 1
    for i in range(nslots):
        parts.append(f"(?P<a{i}>{alias_re})" if whole else f"(?:{alias_re})")
        if i + 1 < nslots:
            parts.append(_piece_regex(pieces[i + 1], connector=True))
    if whole:
        trailing = pieces[-1]
        if trailing:
            parts.append(r"(?:\s+" + r"\s+".join(map(re.escape, trailing)) + ")?")
        parts.append(r"(?P<rest>(?:\W.*)?)$")
    else:
        parts.append(r"(?![\w-])")
    return "".join(parts)


# Where a trailing explanation begins ("..., since the hand is empty").
_EXPLAIN = re.compile(
    r"[,;:.!?(\[—–]|\s-+(?=\s|$)|\s(?:because|since|as|so|which|thus|therefore|hence|"
    r"leaving|making|in\s+order|while|given|when|where)\b")
# Words that open a second action rather than an explanation.
_JOINERS = frozenset(("and", "or", "then", "also", "plus", "next", "followed", "afterwards",
                      "after", "before", "finally", "&", "+"))
# Words that place an object: "(under the red block)", "(now on top of the blue
# block)" right after an action give it a second place, so the line has no single
# reading; after a connective ("since the red block is on top of ...") they explain.
_PLACES = ("on", "onto", "upon", "atop", "over", "above", "under", "underneath", "below",
           "beneath", "from", "off", "to", "into", "in", "at", "between", "beside", "next to",
           "with", "near", "behind", "by")
_CONNECTIVE = re.compile(
    r"^(?:because|since|as|so|which|thus|therefore|hence|leaving|making|in\s+order|while|"
    r"given|when|where)\b")
_GROUP = re.compile(r"\(\s*([^()]*?)\s*\)")
_ONTO = re.compile(r"(?<![\w-])onto(?![\w-])")
_LATEX = re.compile(r"\\[()\[\]]|\$")
_ONE_IN_PARENS = re.compile(r"\(\s*([\w-]+(?:\s+from\s+[\w-]+)?)\s*\)")
_PERFORM = re.compile(r"^(?:perform|do|execute|apply|carry\s+out)\s+(?:the\s+|an?\s+)?"
                      r"(?:action\s+)?")
# Words of a state, not an action: "(Blue is on the table, hand empty)".
_STATE_WORDS = re.compile(r"\b(?:is|are|remains|stays|becomes|now\s+holding|holding|hand)\b")
_HEAD_SPLIT = re.compile(r"\s*(?::|\s[-—–]+)\s+")
_LIST_SPLIT = re.compile(r"\s*(?:[,;→]|->|\bthen\b|\s\d+[.)](?=\s))\s*", re.IGNORECASE)
# Words that open a sentence about the plan rather than a step of it.
_OPENERS = frozenset((
    "this", "these", "that", "those", "by", "after", "at", "however", "it", "its", "now",
    "since", "because", "with", "once", "given", "in", "so", "thus", "therefore", "here",
    "we", "you", "i", "if", "each", "all", "both", "following", "note", "as", "to",
    "the", "your", "our", "there", "an", "a", "when", "while", "following", "before", "no"))



_INNER_NUMBER = re.compile(r"^\d+\s*[.):]\s*")


class _Reader:
    """A config's templates compiled for one set of objects."""

    def __init__(self, cfg: PlanBenchConfig, objects: Sequence[str]) -> None:
        self.aliases = aliases = cfg.aliases(objects)
        alias_re = "|".join(re.escape(a) for a in sorted(aliases, key=len, reverse=True))
        alias_re = alias_re or r"(?!)"
        self.mention = re.compile(rf"(?<![\w-])(?:{alias_re})(?![\w-])")
        self.state = re.compile(
            rf"^\W*{_ARTICLE}(?:{alias_re})(?![\w-])\W*(?:block\s+)?(?:is|are|remains|stays|"
            rf"sits|rests|was|will\s+be|becomes|ends\s+up|now)\b")
        places = "|".join(p.replace(" ", r"\s+") for p in _PLACES)
        self.place = re.compile(rf"(?<![\w-])(?:{places})\s+(?:(?:top|bottom)\s+of\s+)?"
                                rf"{_ARTICLE}(?:{alias_re})(?![\w-])")
        self.regexes = []
        self.phrases = []
        self.arity: dict[str, int] = {}
        verbs = []
        for name, pieces in cfg._templates:
            nslots = len(pieces) - 1
            self.arity[name] = nslots
            self.regexes.append((name, nslots, re.compile(
                _template_regex(pieces, alias_re, whole=True))))
            self.phrases.append(re.compile(_template_regex(pieces, alias_re, whole=False)))
            if pieces[0]:
                verbs.append(pieces[0][0])
        self.facts = {w for name, t in cfg.predicates.items()
                      for w in (name, *(t.split()[:1]))
                      if w.isalpha() and w not in ("object", "the", "a", "an")} - set(verbs)
        self.vocab = Vocabulary(cfg.actions, objects, aliases, verbs,
                                max(self.arity.values(), default=0))

    def read(self, line: str, n: int) -> list[Step] | str:
        got = self._read(line, n)
        if not isinstance(got, str):
            return got
        for variant in self._variants(line):
            again = self._read(variant, n)
            if not isinstance(again, str):
                return again
        head = self._head(line, n)
        if head is not None:
            return head
        listed = self._listed(line, n)
        return listed if listed is not None else got

    def _variants(self, line: str) -> list[str]:
        """The line in plainer dress, each tried when the line itself has no
        reading: LaTeX parentheses and parentheses around one object dropped
        ("Feast \\(d\\) from \\(a\\)", "Feast(b) from (a)"), a leading "Perform"
        dropped. (A particle after its object, "put the red block down", is not moved
        back: see docs/RESULTS.md, plan reading.)"""
        out = []
        low = " ".join(line.lower().split()).rstrip(".;,!\\")
        plain = _LATEX.sub(" ", low)
        plain = _ONE_IN_PARENS.sub(r" \1 ", plain)
        plain = " ".join(_ONTO.sub("on", plain).split())  # "stack red onto orange"
        if plain != low:
            out.append(plain)
        m = _PERFORM.match(plain)
        if m is not None:
            out.append(plain[m.end():])
        return out

    def _head(self, line: str, n: int) -> list[Step] | None:
        """"Unstack orange from yellow: remove the orange block from ...": the
        part before a colon or dash is one step and what follows explains it,
        naming no other action."""
        m = _HEAD_SPLIT.search(line)
        if m is None or m.start() == 0:
            return None
        head = self._read(line[:m.start()], n)
        if isinstance(head, str) or len(head) != 1:
            return None
        tail = " ".join(line[m.end():].lower().split())
        verb = self.vocab.verb
        one = (head[0].name, head[0].args)
        lead = re.sub(r"^(?:and|then|finally|next)\W+", "", tail)
        if verb is not None and verb.match(lead):
            # "X: then put it down" is a second action; "X: X again, to ..." is not.
            found = [rx.match(lead) for rx in self.phrases]
            same = [f for f in found if f is not None
                    and not isinstance(got := self._read(f.group(0), n), str)
                    and [(s.name, s.args) for s in got] == [one]]
            if not same:
                return None
        for rx in self.phrases:
            for found in rx.finditer(tail):
                other = self._read(found.group(0), n)
                if isinstance(other, str) or [(s.name, s.args) for s in other] != [one]:
                    return None
        return head

    def _listed(self, line: str, n: int) -> list[Step] | None:
        """Several steps on one line ("Feast a from b, Succumb a, ...",
        "Attack b 2. Succumb b 3. ..."): each piece one step, in order."""
        pieces = [p for p in _LIST_SPLIT.split(line) if p and p.strip(" .")]
        if len(pieces) < 2:
            return None
        steps = []
        for piece in pieces:
            got = self._read(piece, n)
            if isinstance(got, str):
                got = next((g for g in map(lambda v: self._read(v, n), self._variants(piece))
                            if not isinstance(g, str)), piece)
            if isinstance(got, str) or len(got) != 1:
                return None
            steps.extend(got)
        return steps

    def _read(self, line: str, n: int) -> list[Step] | str:
        low = " ".join(line.lower().split()).rstrip(".;,!\\")
        inner = low
        if low.startswith("(") and low.endswith(")"):
            inner = _INNER_NUMBER.sub("", low[1:-1].strip(), count=1)  # "(1. pick up ...)"
        matches: list[Step] = []
        for name, nslots, rx in self.regexes:
            m = rx.match(inner)
            if m is None:
                continue
            args = tuple(self.aliases[m.group(f"a{i}")] for i in range(nslots))
            article = self._article_object(m, inner, nslots)
            if article is not None:
                return (f"two readings: {article!r} may be an article or the object "
                        f"{self.aliases[article]}")
            if self._rest_ok(m.group("rest"), name, args):
                matches.append(Step(name, args, n))
        step = _choose(matches, inner)
        if step is not None:
            return [step]
        if matches:
            return "matches more than one action template"
        got = self.vocab.read_line(low, strict=True, arity=self.arity)
        if not isinstance(got, str):
            return [Step(name, args, n) for name, args in got]
        return "matches no action template of the config with the task's objects"

    def _article_object(self, m: re.Match, line: str, nslots: int) -> str | None:
        """An article read in front of an argument that also names another object
        ("attack a b" where ``a`` is an object): the line has two readings."""
        end = 0
        for i in range(nslots):
            before = line[end:m.start(f"a{i}")].split()
            word = before[-1] if before else ""
            if (word in ("a", "an", "the") and word in self.aliases
                    and self.aliases[word] != self.aliases[m.group(f"a{i}")]):
                return word  # ("pick up a red block" with a the red block: one object)
            end = m.end(f"a{i}")
        return None

    def _rest_ok(self, rest: str, name: str, args: tuple[str, ...]) -> bool:
        """Whether what follows an action phrase leaves it the line's one reading:
        words that name no object and no action ("... on the table"), then
        possibly an explanation ("..., since the hand is empty") that holds no
        second action."""
        if not rest.strip(" .!?"):
            return True
        verb = self.vocab.verb
        m = _EXPLAIN.search(rest)
        pre = rest if m is None else rest[:m.start()]
        if self.mention.search(pre) or (verb is not None and verb.search(pre)):
            return False
        if m is None:
            return True
        tail = rest[m.end():].strip(" ,;:.-—–([")
        first = tail.split(None, 1)[0] if tail else ""
        if first in _JOINERS or (verb is not None and verb.match(tail)):
            return False
        if (not _CONNECTIVE.match(m.group().strip()) and not _CONNECTIVE.match(tail)
                and not _STATE_WORDS.search(tail) and self.place.search(tail)):
            return False
        if any(rx.search(tail) for rx in self.phrases):
            return False
        for group in _GROUP.findall(rest):
            got = self.vocab.read_line(f"({group})", strict=True, arity=self.arity)
            if not isinstance(got, str) and any(g != (name, args) for g in got):
                return False
        return True

    def is_prose(self, low: str) -> bool:
        """A line with no reading is prose when it has no action verb, no
        parenthesis or call form, and is not a word followed by objects."""
        words = re.findall(r"[a-z]+", low)
        if words and not any(rx.search(low) for rx in self.phrases):
            if words[0] in _OPENERS and not (self.vocab.verb and self.vocab.verb.match(low)):
                return True  # "This sequence moves ...", "By following these steps, ..."
            if words[0] in self.facts:
                return True  # a fact: "Craves(a, d)", "Harmony (true initially)"
            if self.state.match(low):
                return True  # a state: "Yellow is stacked on blue", "the red block remains"
            label = low.split(":", 1)[0] if ":" in low else None
            if label and not (self.vocab.verb and self.vocab.verb.search(label)):
                return True  # a labelled description: "Table: yellow", "On yellow: orange"
        if self.vocab.looks_like_action(low, bare_words=False):
            return False
        words = low.rstrip(".,!\\ ").replace(",", " ").split()
        return not self.vocab.names_objects(words)


def read_planbench_plan(text: str, cfg: PlanBenchConfig, objects: Sequence[str]) -> ParsedPlan:
    """Read a PlanBench natural-language plan ("unstack the red block from on
    top of the blue block") into steps, reporting every line it cannot read.

    A line is read when it matches one action template, with articles
    optional, objects named in any of the config's encodings (or plainly),
    a connector possibly cut short, trailing words that name no object
    ("put down the red block on the table") and an explanation that holds no
    second action ("..., since the hand is empty"); or when it is a PDDL
    action (``(unstack a b)``, ``(feast object c object b)``). When the answer
    has a ``[PLAN]`` block, the block is the plan and the rest is context;
    outside a block, a line with no action verb of the templates is prose.
    Anything else is unread.
    """
    reader = cfg.reader(objects)
    answer = split_answer(text)
    out = Collector(answer)
    for n, line, kind in answer.items:
        if kind != LINE:
            out.other(n, line, kind)
            continue
        aside = out.aside(n)
        got = reader.read(line, n)
        if aside is not None:
            out.nested(n, aside[0], aside[1], got)
        elif not isinstance(got, str):
            out.add_steps(n, got)
        elif not answer.block and reader.is_prose(line.lower()):
            out.add_prose(n, "names no action of the domain")
        else:
            out.unread.append(UnreadLine(n, line, got))
    return bounded_plan(out.done(), None, objects)


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
    facts = _join([t for t in (cfg.describe_atom(a) for a in sorted(init)) if t])
    goals = _join([t for t in (cfg.describe_atom(a) for a in _goal_atoms(goal)) if t])
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
