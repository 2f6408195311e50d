"""The seam a method's controlled stand-in plugs into: the backend registry
finds each stand-in by its name (declared in veriplan.registry.PLUGINS)
without the LLM layer importing a method, whatever was imported before."""

from __future__ import annotations

import subprocess
import sys

import pytest

from veriplan.llm.controlled import ControlledModel
from veriplan.llm.registry import BACKENDS, available, create_backend, model_name

STAND_INS = {
    "controlled": ("veriplan.methods.sqbcp.controlled", "sqbcp:p_hidden=0.2,acc=0.5,seed=0"),
    "controlled-aec": ("veriplan.methods.aec.controlled", "aec:p=0.2,seed=0"),
    "controlled-plan": ("veriplan.methods.controlled_plan", "plan:p=0.2,seed=0"),
    "controlled-autotos": ("veriplan.methods.autotos.controlled", "autotos:e=0.1,seed=0"),
}


def test_the_names_are_found_before_any_method_is_imported():
    code = ("import sys\n"
            "from veriplan.llm.registry import BACKENDS, available\n"
            f"assert set({sorted(STAND_INS)!r}) <= set(BACKENDS), BACKENDS.names()\n"
            "assert available()['controlled'].startswith('veriplan.methods.sqbcp.')\n"
            "assert not [m for m in sys.modules if m.startswith('veriplan.methods')]\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name", sorted(STAND_INS))
def test_each_stand_in_is_built_by_name(name):
    module, model = STAND_INS[name]
    assert available()[name].startswith(module + ":")
    backend = create_backend(name, model=model)
    assert isinstance(backend, ControlledModel)
    assert type(backend).__module__ == module
    assert backend.name == name
    assert model_name(name, {"model": model}) == model
    assert BACKENDS.get(name) is type(backend)
