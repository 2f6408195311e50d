"""The environments by name: ``name -> "module:Class"``, each class imported
on first use; other packages add environments through the ``veriplan.envs``
entry-point group."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veriplan.registry import Registry

if TYPE_CHECKING:
    from veriplan.envs.base import Env

ENVS: Registry[type] = Registry("environment", {
    "scienceworld": "veriplan.envs.scienceworld:ScienceWorld",
    "household": "veriplan.envs.household.env:Household",
}, group="veriplan.envs")


def make_env(name: str, **options) -> Env:
    """A new environment of the class registered as ``name``."""
    return ENVS.get(name)(**options)


__all__ = ["ENVS", "make_env"]
