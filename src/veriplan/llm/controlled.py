"""The seam a controlled test model plugs into.

A controlled model is a backend whose errors are known and seeded: it answers
a method's prompts as a model with given error rates that knows the task's
truth (a reference plan, hidden facts, a gold path), so a method's claims can
be tested where no strong model can run. Each method's stand-in lives with the
method (``veriplan.methods.sqbcp.controlled``: ``--backend controlled``;
``veriplan.methods.aec.controlled``: ``controlled-aec``;
``veriplan.methods.controlled_plan``, shared by the closed loop, DRIP, direct
generation and back-prompting: ``controlled-plan``). The LLM layer imports none
of them; it holds only what they share:

- :class:`ControlledModel`, the base class: it keeps the requests it was sent,
  answers each from :meth:`ControlledModel.answer` (the subclass's model of the
  task), counts words as tokens, and knows its model name without being built
  (:meth:`ControlledModel.model_name_for`);
- the task channel, :mod:`veriplan.llm.binding`: a stand-in that answers about
  the benchmark unit's task implements :class:`~veriplan.llm.binding.TaskBound`
  and the harness binds each unit's task for it.

A stand-in plugs in by name in the backend registry
(:data:`veriplan.llm.registry.BACKENDS`): the package's own are declared in
:data:`veriplan.registry.PLUGINS` (``"veriplan.backends"``, name ->
``"module:Class"``, imported when that backend is asked for), as another
package declares its own in the ``veriplan.backends`` entry-point group or
adds one at run time with :func:`~veriplan.llm.registry.register_backend`.
``create_backend("controlled-aec", model="aec:p=0.2")`` looks the name up and
builds the class with the options.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import ClassVar

from veriplan.llm.types import LLMRequest, LLMResponse

__all__ = ["ControlledModel"]


class ControlledModel:
    """What every controlled backend shares: it keeps the requests it was sent
    and answers each from :meth:`answer` (the subclass's model of the task),
    counting words as tokens. ``family`` is the model family its model names
    start with; ``default_model`` the model string it was built with."""

    name: ClassVar[str] = "controlled"
    family: ClassVar[str] = "sqbcp"
    default_model: str
    requests: list[LLMRequest]

    @classmethod
    def model_name_for(cls, options: Mapping[str, object]) -> str:
        return str(options.get("model") or cls.family)

    def complete(self, request: LLMRequest) -> LLMResponse:
        start = time.perf_counter()
        self.requests.append(request)
        prompt = request.messages[-1].content
        text = self.answer(prompt, request)
        words = sum(len(m.content.split()) for m in request.messages)
        return LLMResponse(text, "stop", words, len(text.split()), time.perf_counter() - start,
                           self.name, request.model or self.default_model)

    def answer(self, prompt: str, request: LLMRequest) -> str:
        raise NotImplementedError
