"""The one renderer of the methods' typed records: progress events as a run
goes (``veriplan solve``), transcripts afterwards (``veriplan trace``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from veriplan.core.verdict import Scope
from veriplan.methods.records import Entry, Event


def event_printer(console, *, prompts: bool = True) -> Callable[[Event], None]:
    """An observer printing each event on a rich ``console``; the first prompt
    in full (later ones repeat it), answers and verdicts as they come."""
    from rich.markup import escape

    seen_prompt = False

    def show(e: Event) -> None:
        nonlocal seen_prompt
        if e.kind == "prompt":
            if prompts and not seen_prompt:
                console.rule("prompt")
                console.print(escape(e.text))
            seen_prompt = True
        elif e.kind == "response":
            note = " (cached)" if e.data.get("cached") else ""
            console.rule(f"attempt {e.attempt}: model answer{note}")
            console.print(escape(e.text.strip()))
        elif e.kind == "verdict":
            if e.ok:  # the PDDL methods' verdicts are on the task unless they say otherwise
                scope = Scope.read(e.data.get("scope", Scope.PLAN_ON_TASK), record="event")
                console.print(f"[bold green]verified {escape(scope.describes)} by veriplan's "
                              "validator[/]")
            else:
                how = f" [{e.data['strategy']}]" if e.data.get("strategy") else ""
                console.print(f"[bold red]not valid{escape(how)}:[/] {escape(e.text)}")
        elif e.kind == "stop":
            console.print(f"[bold]stopping:[/] {escape(e.text)}")
        else:
            colour = "green" if e.ok else "yellow" if e.ok is False else "bold"
            console.print(f"[{colour}]{escape(e.kind)}[/] {escape(e.text)}")

    return show


def _verdict(entry: Entry) -> str:
    if entry.ok is True:
        return f"verified: {entry.verdict}" if entry.verdict not in ("", "verified") \
            else "verified"
    if entry.ok is False:
        return f"not valid: {entry.verdict or '(no diagnosis)'}"
    return entry.verdict or "(not judged)"


def transcript_lines(entries: Iterable[Mapping[str, object] | Entry]) -> list[str]:
    """A transcript as text: for each model call its role, answer and verdict."""
    out: list[str] = []
    for raw in entries:
        e = raw if isinstance(raw, Entry) else Entry.from_dict(raw)
        head = f"call {e.call}" if e.call is not None else "record"
        out.append(f"\n--- {head}: {e.role}{' (cached)' if e.cached else ''} ---")
        if e.response:
            out.append(e.response.rstrip())
        if e.unread:
            out.append("unread: " + " | ".join(e.unread))
        out.append(f"=> {_verdict(e)}")
    return out
