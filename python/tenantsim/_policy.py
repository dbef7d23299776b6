"""Policies written in Python: subclass :class:`Scheduler` or
:class:`Selector`, pass the class to ``run(..., policies={"name": cls})``
and name it in a ``[[policy]]`` table like a built-in one
(``scheduler = "name"`` or ``selector = "name"``)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Optional, Tuple, Union

if TYPE_CHECKING:
    from ._tenantsim import State


class Scheduler:
    """A user scheduler: which eligible tenant gets the next free GPU.

    Subclass it and define :meth:`pick`. A new instance is made for each
    repetition, with ``self.rng``, a :class:`random.Random` seeded from
    (seed, repetition, policy name), set before its first call: draw every
    random choice from it and results stay the same whatever ``threads``.

    Tenants are numbered 0 … n−1 in the repetition's tenant order
    (ascending trace order). ``state`` (a :class:`tenantsim.State`) is a
    read-only view, valid only during the call: ``state.eligible_tenants()``,
    ``state.tenant(i)`` (``.user``, ``.best``, ``.tried``, ``.running``,
    ``.arrival_s``...), ``state.untried_models(i)``, the trace's
    ``state.models``, ``state.accuracy(u, k)``, ``state.runtime_s(u, k)``.
    """

    rng: random.Random

    def pick(self, state: "State") -> Optional[int]:
        """The eligible tenant to serve next, or ``None`` to leave the free
        GPUs idle until the next event. Returning a tenant that is not
        eligible stops the run with a :class:`tenantsim.PolicyError`."""
        raise NotImplementedError(f"{type(self).__name__} must define pick(self, state)")

    def tenant_changed(self, state: "State", tenant: int) -> None:
        """Called when ``tenant`` arrives, starts or completes a job, or
        leaves (optional: only called when a subclass defines it)."""


class Selector:
    """A model selector: which model an eligible tenant trains next.

    Subclass it and define :meth:`propose` (and optionally :meth:`observe`).
    Instances and ``self.rng`` as for :class:`Scheduler`.
    """

    rng: random.Random

    def propose(
        self, state: "State", tenant: int
    ) -> Union[int, Tuple[int, float, float]]:
        """A trace model index from ``state.untried_models(tenant)``, or a
        tuple ``(model, acquisition, believed_cost)``. A model that is
        unavailable or already tried stops the run with a
        :class:`tenantsim.PolicyError`."""
        raise NotImplementedError(f"{type(self).__name__} must define propose(self, state, tenant)")

    def observe(self, state: "State", tenant: int, model: int, accuracy: float) -> None:
        """Called when a job of ``tenant`` on ``model`` completes with
        ``accuracy`` (optional). Only the trace methods of ``state`` work
        here (``models``, ``accuracy``, ``runtime_s``)."""
