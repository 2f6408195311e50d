"""The task channel: how the harness tells a backend that wants it which task
the next unit is about.

A controlled test model (``--backend controlled``, ``controlled-aec``) answers
as a model that knows a task's truth (its reference plan, hidden facts, gold
path). Reading that task off the prompt fails where two tasks have the same
prompt word for word. So the harness names the task: before a unit's method
runs, :func:`bound` enters the backend's :meth:`TaskBound.bind_task` with the
unit's :class:`TaskRef` (dataset name and instance id), and leaves it when the
method returns or raises. Only backends that implement :class:`TaskBound`
hear it; every other backend is left alone.

The method under test never sees the binding: it gets the same LLM client
and sends the same prompts as without it; only the backend's answers (the
steps and votes of a model with known error rates) depend on it.

A binding holds for the calling thread of control only (a
:class:`contextvars.ContextVar`): units that run at the same time on other
threads see their own binding or none; the LLM client carries the caller's
context into the threads of :meth:`~veriplan.llm.LLM.complete_many`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["TaskBinding", "TaskBound", "TaskRef", "bound"]


@dataclass(frozen=True)
class TaskRef:
    """One task of a benchmark dataset: the dataset's name as the harness
    loads it (``sqbcp_howto``) and the instance's id (``howto-h007-v1``)."""

    dataset: str
    instance: str

    def __str__(self) -> str:
        return f"{self.dataset}/{self.instance}"


@runtime_checkable
class TaskBound(Protocol):
    """A backend that answers about the task it is bound to (a controlled
    model). ``bind_task(ref)`` returns a context manager: inside it, requests
    from this thread of control are about ``ref``; on leaving, the binding
    before it holds again (none, outside every unit)."""

    def bind_task(self, ref: TaskRef) -> AbstractContextManager[None]: ...


class TaskBinding:
    """One backend's binding, per thread of control: what a :class:`TaskBound`
    backend keeps and reads (:attr:`current`)."""

    def __init__(self, owner: str) -> None:
        self._var: ContextVar[TaskRef | None] = ContextVar(f"veriplan-task-{owner}",
                                                           default=None)

    @contextmanager
    def bind(self, ref: TaskRef) -> Iterator[None]:
        token = self._var.set(ref)
        try:
            yield
        finally:
            self._var.reset(token)

    @property
    def current(self) -> TaskRef | None:
        """The task this thread of control is bound to (None: no binding)."""
        return self._var.get()


def bound(backend: object, ref: TaskRef) -> AbstractContextManager[None]:
    """``backend.bind_task(ref)`` where the backend is :class:`TaskBound`,
    else a context that does nothing."""
    if isinstance(backend, TaskBound):
        return backend.bind_task(ref)
    return nullcontext()
