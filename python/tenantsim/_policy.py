"""Policies written in Python: subclass :class:`Scheduler` or
:class:`Selector`, pass the class to ``run(..., policies={"name": cls})``
and name it in a ``[[policy]]`` table like a built-in one
(``scheduler = "name"`` or ``selector = "name"``); likewise
:class:`JobScheduler` (``cluster_scheduler``), and a shared scenario's
workflows rules :class:`CacheEviction` (``cache = "name"``) and
:class:`Parallelism` (``parallel = "name"``)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Optional, Tuple, Union

if TYPE_CHECKING:
    from ._tenantsim import CacheEntry, Job, SplitStep, State, Stream


class Rng(random.Random):
    """The random generator of a Python policy (``self.rng``): a
    :class:`random.Random` whose every draw comes from tenantsim's stream
    for (seed, repetition, purpose), where the purpose is the scheduler's
    or the selector's: the stream the built-in ``random`` scheduler and
    selector draw from. ``below(n)`` is their draw (uniform in
    ``0..n``), so a Python re-implementation of them that calls it gives
    their job log; ``random()``, ``choice()``, ``shuffle()``... work as
    usual on the same stream. It cannot be reseeded.
    """

    def __init__(self, stream: "Stream") -> None:
        self._stream = stream
        super().__init__()

    def seed(self, a: object = None, version: int = 2) -> None:  # noqa: D401
        """Refuses to reseed: the stream is fixed by tenantsim."""
        if a is not None:
            raise TypeError("a policy's rng is seeded by tenantsim and cannot be reseeded")

    def below(self, n: int) -> int:
        """A uniform int in ``0..n`` (0 if ``n == 0``): the built-in
        ``random`` policies' draw."""
        return self._stream.below(n)

    def random(self) -> float:
        """A uniform float in [0, 1) (53 random bits)."""
        return self._stream.unit()

    def getrandbits(self, k: int) -> int:
        """An int of ``k`` random bits."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        value = 0
        for i, w in enumerate(self._stream.words((k + 63) // 64)):
            value |= w << (64 * i)
        return value & ((1 << k) - 1)

    def getstate(self) -> Tuple[Any, ...]:
        raise NotImplementedError("a policy's rng has no state to save")

    def setstate(self, state: Tuple[Any, ...]) -> None:
        raise NotImplementedError("a policy's rng cannot be restored")


class Scheduler:
    """A user scheduler: which eligible tenant gets the next free GPU.

    Subclass it and define :meth:`pick`. A new instance is made for each
    repetition, with the ``[[policy]]`` table's other keys as keyword
    arguments, and ``self.rng`` (a :class:`Rng`, a :class:`random.Random`
    seeded from the scenario's seed, the repetition and the policy's
    purpose) is set before its first call: draw every random choice from
    it and results stay the same whatever ``threads``.

    Tenants are numbered 0 … n−1 in the repetition's tenant order
    (ascending trace order). ``state`` (a :class:`tenantsim.State`) is a
    read-only view, valid only during the call: ``state.eligible_tenants()``,
    ``state.tenant(i)`` (``.user``, ``.best``, ``.tried``, ``.running``,
    ``.arrival_s``...), ``state.untried_models(i)``, the trace's
    ``state.models``, ``state.accuracy(u, k)``, ``state.runtime_s(u, k)``.
    """

    rng: Rng

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

    rng: Rng

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


class JobScheduler:
    """A job-mode cluster scheduler: a priority for each job, given once at
    its arrival; waiting jobs are served smallest priority first (ties by
    submit time, then job index).

    The engine does the rest as for ``fifo``: it scans the waiting jobs in
    that order and starts each that fits (placement by the scenario's
    ``[cluster] placement``), a job that does not fit blocks the ones behind
    it unless ``backfill`` is on; nothing is preempted. A new instance is
    made for each run (repetition), with the ``[[policy]]`` table's other
    keys as keyword arguments, and ``self.rng`` (a :class:`Rng`) on the
    library's scheduler stream of the (seed, repetition).
    """

    rng: Rng

    def priority(self, job: "Job", now_s: float) -> float:
        """The priority of ``job`` (``.index``, ``.user`` index,
        ``.submit_s``, ``.duration_s``, ``.gpus``), arriving at ``now_s``.
        NaN or an exception stops the run with a
        :class:`tenantsim.PolicyError`."""
        raise NotImplementedError(f"{type(self).__name__} must define priority(self, job, now_s)")


class CacheEviction:
    """A workflows memo-cache eviction rule (``[[policy]] cache = "name"``
    of a shared scenario with ``[workflows]``, DESIGN §14.8): a score per
    cache entry; when the cache needs room, the entry with the lowest
    score is evicted first, ties broken as under ``lru`` (last used, then
    created, then storage order).

    The score of an entry is asked when the entry is created (stored,
    ``hits`` 0) and again each time it is hit (``hits`` counted,
    ``last_used_s`` now); it does not change otherwise. A new instance is
    made for each run (repetition), without arguments. ``score`` returning
    ``entry.last_used_s`` is the built-in ``lru``.
    """

    def score(self, entry: "CacheEntry") -> float:
        """The score of ``entry`` (``.bytes``, ``.saved_s`` run time a hit
        saves, ``.gpus``, ``.cpus``, ``.created_s``, ``.last_used_s``,
        ``.hits``, ``.tenant`` index, ``.scope`` ``"tenant"`` or
        ``"global"``, ``.now_s``). NaN, a non-number or an exception
        stops the run with a :class:`tenantsim.PolicyError`."""
        raise NotImplementedError(f"{type(self).__name__} must define score(self, entry)")


class Parallelism:
    """A workflows auto-parallelisation rule (``[[policy]] parallel =
    "name"``, DESIGN §14.8): the number of sub-jobs of a parallelisable
    step, asked each time an attempt of it is submitted (its parents
    done, its output not in the cache). Each sub-job runs ⌈runtime / k⌉ +
    ``split_overhead_s`` on the step's GPUs and CPUs. The answer must be
    an int from 1 to the policy's ``parallel_k`` (default 4). A new
    instance is made for each run, without arguments.
    """

    def parts(self, step: "SplitStep") -> int:
        """Sub-jobs for ``step`` (``.runtime_s``, ``.gpus``, ``.cpus``,
        ``.parallel_k``, ``.free_gpus``, ``.free_cpus`` or ``None`` when
        the cluster does not count CPUs, ``.now_s``). 0, more than
        ``parallel_k``, a non-int or an exception stops the run with a
        :class:`tenantsim.PolicyError`."""
        raise NotImplementedError(f"{type(self).__name__} must define parts(self, step)")
