"""Gymnasium environments of tenantsim's model mode (docs/DESIGN.md §15.3).

``make(scenario)`` returns a :class:`gymnasium.Env` whose episode is one
repetition of one policy of a model-mode scenario, driven one decision at
a time: at each step a GPU is free and the action says which tenant gets
it (its model chosen by the scenario's selector), or that the free GPUs
stay idle until the next event. ``make_vec(scenario, num_envs)`` steps
``num_envs`` such episodes per call, in Rust.

- **Observation**: float32, ``N * 9 + 6`` numbers: 9 per tenant (in
  tenant order) then 6 global ones; the names are
  ``env.unwrapped.tenant_features`` and ``env.unwrapped.global_features``
  (DESIGN §15.3 defines each). Give ``encoder=f`` (and
  ``observation_space=``) to ``make`` for your own encoding: ``f(obs, env)``
  gets the default observation and the unwrapped environment.
- **Action**: ``action="tenant"`` (default): ``Discrete(N + 1)``, a tenant
  index or ``N`` for idle. ``action="pair"``: ``MultiDiscrete([N + 1, K +
  1])``, (tenant, trace model), model ``K`` meaning "the selector's
  choice", tenant ``N`` idle. An action not allowed now raises
  :class:`InvalidActionError` (a ``ValueError``) naming the action and the
  allowed ones, and changes nothing.
- **Reward**: minus the regret accrued since the last step, so an
  episode's return is minus its cumulative regret R(end) (DESIGN §2.6,
  accuracy·seconds).
- **info**: ``policy_action`` (the action the scenario's own policy takes
  now: stepping with it replays ``tenantsim.run``'s repetition, file for
  file) and ``action_mask`` (uint8, 1 = allowed; for ``pair``, the
  tenant's row of ``pair_mask``'s any, and ``pair_mask`` N × (K + 1)).
- **reset(seed=s)** plays repetition ``s`` of the scenario (its split,
  arrivals and policy streams as ``tenantsim run``'s repetition ``s``);
  ``reset()`` without a seed plays the next repetition (0 first).

Job-mode scenarios (``mode = "jobs"``) give a :class:`TenantsimJobEnv`
(DESIGN §15.5, "The job-mode environment"): the action starts one of the
first W waiting jobs (with ``action="start-or-preempt"`` also preempts
one of the first W running jobs) or ends the scheduling pass, the reward
is minus the job-hours spent in the system since the last step (the
return is minus the sum of the jobs' completion times, in hours);
``make_vec`` gives a :class:`TenantsimJobVecEnv`. Shared scenarios
(``mode = "shared"``) give a :class:`TenantsimSharedEnv` (DESIGN §15.6,
"The shared environment"): the same window actions over every waiting job
(background, service and workflow jobs), each slot saying whose job it
is; the reward is minus the service's cumulative regret (paid at the last
step) or, with ``reward="sojourn"`` or without a service, minus the
job-hours in the system; ``make_vec`` gives a :class:`TenantsimSharedVecEnv`.

Install with ``pip install ./python[gym]`` (gymnasium and numpy).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from . import _tenantsim
from ._results import Results, read_results
from ._scenario import _parse_toml, dict_label, write_scenario
from ._tenantsim import InvalidActionError, TenantsimError

__all__ = [
    "make",
    "make_vec",
    "TenantsimEnv",
    "TenantsimJobEnv",
    "TenantsimJobVecEnv",
    "TenantsimSharedEnv",
    "TenantsimSharedVecEnv",
    "TenantsimVecEnv",
    "InvalidActionError",
]

PathLike = Union[str, "os.PathLike[str]"]
Scenario = Union[PathLike, Mapping[str, Any]]


def _scenario_file(scenario: Scenario, keep: list) -> str:
    """The path of ``scenario``: a dict is written as TOML into a temporary
    folder (kept alive in ``keep`` while the environment lives; the file
    is read once, at construction)."""
    if isinstance(scenario, Mapping):
        tmp = tempfile.TemporaryDirectory(prefix="tenantsim-gym-")
        keep.append(tmp)
        return str(write_scenario(scenario, Path(tmp.name)))
    return os.fspath(scenario)


def _construct(factory: Callable[[str], Any], scenario: Scenario) -> Any:
    """Build a core from ``scenario``; errors name the dict, not the
    temporary file it was written to."""
    keep: list = []
    try:
        path = _scenario_file(scenario, keep)
        try:
            return factory(path)
        except TenantsimError as e:
            if isinstance(scenario, Mapping) and path in str(e):
                raise type(e)(str(e).replace(path, dict_label(scenario))) from None
            raise
    finally:
        for tmp in keep:
            tmp.cleanup()


def _action_space(action: str, n: int, k: int) -> spaces.Space:
    if action == "pair":
        return spaces.MultiDiscrete([n + 1, k + 1])
    return spaces.Discrete(n + 1)


def _obs_space(length: int) -> spaces.Box:
    """Every feature is >= 0 (DESIGN §15.3); times and GPU-hours have no
    upper bound but float32's largest value."""
    return spaces.Box(
        low=0.0, high=float(np.finfo(np.float32).max), shape=(length,), dtype=np.float32
    )


class _EpisodeEnv(gymnasium.Env):
    """What the model-mode and job-mode environments share: one episode of
    a Rust core (``self._core``), its repetition, forks, results and no
    rendering. ``_MODE`` names the mode in :class:`Results`'s manifest."""

    metadata = {"render_modes": []}
    _MODE = ""

    def _start_rep(self, seed: Optional[int], options: Optional[Dict[str, Any]]) -> Any:
        """``reset``'s repetition: ``options["rep"]``, else ``seed``, else
        the one after the last; the core is reset to it (its answer is
        returned)."""
        super().reset(seed=seed)
        if options and "rep" in options:
            rep = int(options["rep"])
        elif seed is not None:
            rep = int(seed)
        else:
            rep = self._next_rep
        if rep < 0:
            raise _tenantsim.UsageError(f"seed: expected a repetition >= 0, got {rep}")
        out = self._core.reset(rep)
        self._next_rep = rep + 1
        return out

    def render(self) -> None:
        """No rendering (``render_mode`` is always ``None``)."""
        return None

    def close(self) -> None:
        """Nothing to release."""

    def fork(self) -> "_EpisodeEnv":
        """An independent copy at this point (DESIGN §15.2, §15.5): stepped
        with the same actions it gives the same observations, rewards and
        results."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._core = self._core.fork()
        other._np_random = None
        if self._np_random is not None:
            other._np_random = np.random.Generator(type(self._np_random.bit_generator)())
            other._np_random.bit_generator.state = self._np_random.bit_generator.state
        return other

    def results(self, out: Optional[PathLike] = None) -> Results:
        """The ended episode as a :class:`tenantsim.Results`: the files
        ``tenantsim run`` writes for the scenario with this policy alone and
        one repetition (repetition 0: the same bytes; ``run.json`` aside;
        ``jobs.csv`` too in job mode). ``out``: a folder to keep them in,
        which must not exist (written whole or not at all); by default a
        temporary folder, removed."""
        doc = {
            "mode": self._MODE,
            "scenario": self._core.scenario_name,
            "policy": self._core.policy_name,
            "repetition": self._core.rep,
            "steps": self._core.steps,
        }
        if out is None:
            with tempfile.TemporaryDirectory(prefix="tenantsim-gym-") as tmp:
                folder = Path(tmp) / "results"
                self._core.write_results(str(folder))
                return read_results(folder, doc, None)
        target = Path(os.fspath(out))
        if target.exists():
            raise _tenantsim.InputError(f"{target}: the results folder must not exist yet")
        parent = target.parent if str(target.parent) else Path(".")
        with tempfile.TemporaryDirectory(prefix=".tenantsim-gym-", dir=parent) as tmp:
            folder = Path(tmp) / "results"
            self._core.write_results(str(folder))
            os.rename(folder, target)
        return read_results(target, doc, target)

    @property
    def repetition(self) -> int:
        """The episode's repetition."""
        return self._core.rep

    @property
    def clock_s(self) -> float:
        """Simulated time of the pending decision (the end once ended), s."""
        return self._core.clock_s


class TenantsimEnv(_EpisodeEnv):
    """One model-mode episode at a time (see the module's doc). Build it
    with :func:`make`."""

    _MODE = "models"

    def __init__(
        self,
        scenario: Scenario,
        *,
        policy: Optional[str] = None,
        action: str = "tenant",
        encoder: Optional[Callable[[np.ndarray, "TenantsimEnv"], Any]] = None,
        observation_space: Optional[spaces.Space] = None,
    ) -> None:
        self._core = _construct(
            lambda p: _tenantsim.GymCore(p, policy=policy, action=action), scenario
        )
        self._init_spaces(encoder, observation_space)
        self._next_rep = 0

    def _init_spaces(self, encoder, observation_space) -> None:
        core = self._core
        self.n_tenants: int = core.n_tenants
        self.n_models: int = core.n_models
        self.action_kind: str = core.action
        self.action_space = _action_space(core.action, core.n_tenants, core.n_models)
        if encoder is not None and observation_space is None:
            raise _tenantsim.UsageError(
                "encoder: give observation_space= too (the space of what the encoder returns)"
            )
        self._encoder = encoder
        self.observation_space = observation_space or _obs_space(core.obs_len)
        self._pair = core.action == "pair"
        self._idle = core.n_tenants

    # -- the gymnasium API -------------------------------------------------

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[Any, Dict[str, Any]]:
        """Start an episode: repetition ``seed`` if given, else the next one
        (``options={"rep": r}`` also picks repetition ``r``)."""
        raw = self._start_rep(seed, options)
        return self._obs(raw), self._info(self._core.policy_action())

    def step(self, action: Any) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        """Take ``action``; raises :class:`InvalidActionError` (nothing
        changes) if it is not allowed now."""
        if self._pair:
            a = np.asarray(action).reshape(-1)
            if a.shape != (2,):
                raise InvalidActionError(
                    f"action {action!r}: expected (tenant, model), two integers"
                )
            raw, reward, terminated, policy, mask = self._core.step(int(a[0]), int(a[1]))
        else:
            raw, reward, terminated, policy, mask = self._core.step(int(action))
        return self._obs(raw), reward, terminated, False, self._info(policy, mask)

    # -- beyond gymnasium ----------------------------------------------------

    def _obs(self, raw: bytearray) -> Any:
        obs = np.frombuffer(raw, dtype=np.float32)
        if self._encoder is not None:
            return self._encoder(obs, self)
        return obs

    def _info(self, policy: Tuple[int, int], raw_mask: Optional[bytearray] = None) -> Dict[str, Any]:
        if raw_mask is None:
            raw_mask = self._core.mask()
        mask = np.frombuffer(raw_mask, dtype=np.uint8)
        if self._pair:
            pair_mask = mask.reshape(self.n_tenants, self.n_models + 1)
            tenant_mask = np.append(pair_mask[:, -1], np.uint8(1))
            return {
                "policy_action": np.array(policy, dtype=np.int64),
                "action_mask": tenant_mask,
                "pair_mask": pair_mask,
            }
        return {"policy_action": policy[0], "action_mask": mask}

    def observation(self) -> np.ndarray:
        """The default observation now (what an encoder is given)."""
        return np.frombuffer(self._core.observation(), dtype=np.float32)

    def action_mask(self) -> np.ndarray:
        """``info["action_mask"]`` now."""
        return self._info(self._core.policy_action())["action_mask"]

    def policy_action(self) -> Any:
        """``info["policy_action"]`` now."""
        return self._info(self._core.policy_action())["policy_action"]

    @property
    def regret(self) -> float:
        """The cumulative regret R so far (accuracy·seconds)."""
        return self._core.regret

    @property
    def tenant_features(self) -> list:
        """The per-tenant features' names, in order."""
        return _tenantsim.GymCore.tenant_features()

    @property
    def global_features(self) -> list:
        """The global features' names, in order."""
        return _tenantsim.GymCore.global_features()

    @property
    def tenant_names(self) -> list:
        """The tenants' trace user names, by tenant index."""
        return self._core.tenant_names

    @property
    def model_names(self) -> list:
        """The trace models' names, by model index."""
        return self._core.model_names


def _mode_of(scenario: Scenario) -> Optional[str]:
    """The ``mode`` of ``scenario`` (a path or a dict), ``None`` when it
    has none (model mode); an unreadable file is left to the core to
    report."""
    if isinstance(scenario, Mapping):
        return scenario.get("mode")
    path = Path(os.fspath(scenario))
    try:
        text = path.read_text(encoding="utf-8")
        return _parse_toml(text, path).get("mode")
    except (OSError, ValueError, TenantsimError):
        return None


def _window_options(
    policy: Optional[str], window: int, action: str, **shared: Any
) -> Dict[str, Any]:
    """The window environments' options as their Rust cores take them
    (``shared``: ``reward`` and ``point``, shared scenarios only)."""
    options: Dict[str, Any] = {"policy": policy, "window": int(window), "action": str(action)}
    if shared:
        point = shared.get("point")
        options["reward"] = shared.get("reward")
        options["point"] = None if point is None else int(point)
    return options


def _is_jobs(scenario: Scenario) -> bool:
    """Whether ``scenario`` is a job-mode scenario (``mode = "jobs"``)."""
    return _mode_of(scenario) == "jobs"


class _WindowEnv(_EpisodeEnv):
    """What the job-mode and shared environments share (DESIGN §15.5,
    §15.6): window actions over a Rust core with ``step``,
    ``step_choice``, ``observation``, ``mask``, ``policy_action`` and
    ``policy_choice``."""

    def _open(self, core: Any, scenario: Scenario, **options: Any) -> None:
        """The Rust core ``core`` (``JobGymCore`` or ``SharedGymCore``) of
        ``scenario`` with ``options`` (:func:`_window_options`), then the
        spaces."""
        self._core = _construct(lambda p: core(p, **options), scenario)
        self._init_window()

    def _init_window(self) -> None:
        self.window: int = self._core.window
        self.action_kind: str = self._core.action
        self.end_action: int = self._core.n_actions - 1
        self.action_space = spaces.Discrete(self._core.n_actions)
        self.observation_space = _obs_space(self._core.obs_len)
        self._next_rep = 0

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Start an episode: repetition ``seed`` if given, else the next one
        (``options={"rep": r}`` also picks repetition ``r``)."""
        self._start_rep(seed, options)
        return self.observation(), self._info()

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        """Take window action ``action``; raises :class:`InvalidActionError`
        (nothing changes) if it is not allowed now."""
        reward, terminated = self._core.step(int(action))
        return self.observation(), reward, terminated, False, self._info()

    def step_choice(
        self, choice: Tuple[Any, ...]
    ) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        """Take a raw choice, as ``info["policy_choice"]`` gives them:
        ``("start", j)``, ``("start_on", j, t)``, ``("preempt", j)``,
        ``("end",)`` (trailing ``None`` allowed). A choice against the
        rules raises :class:`InvalidActionError` and changes nothing."""
        kind, *rest = tuple(choice) + (None, None)
        reward, terminated = self._core.step_choice(str(kind), rest[0], rest[1])
        return self.observation(), reward, terminated, False, self._info()

    def _info(self) -> Dict[str, Any]:
        return {
            "policy_action": self._core.policy_action(),
            "policy_choice": self._core.policy_choice(),
            "action_mask": self.action_mask(),
        }

    def observation(self) -> np.ndarray:
        """The observation now."""
        return np.frombuffer(self._core.observation(), dtype=np.float32)

    def action_mask(self) -> np.ndarray:
        """``info["action_mask"]`` now (uint8, W + 1, 1 = allowed)."""
        return np.frombuffer(self._core.mask(), dtype=np.uint8)

    def policy_action(self) -> int:
        """``info["policy_action"]`` now."""
        return self._core.policy_action()

    def policy_choice(self) -> Optional[tuple]:
        """``info["policy_choice"]`` now."""
        return self._core.policy_choice()

    @property
    def job_hours(self) -> float:
        """Job-hours spent in the system so far (minus the return so far)."""
        return self._core.job_hours

    @property
    def slot_features(self) -> list:
        """The waiting slots' features' names, in order."""
        return type(self._core).slot_features()

    @property
    def running_features(self) -> list:
        """The running slots' features' names, in order (in the observation
        with ``action="start-or-preempt"`` only)."""
        return type(self._core).running_features()

    @property
    def global_features(self) -> list:
        """The global features' names, in order."""
        return type(self._core).global_features()


class TenantsimJobEnv(_WindowEnv):
    """One job-mode episode at a time (DESIGN §15.5, "The job-mode
    environment"). Build it with :func:`make` on a job-mode scenario.

    - **Action**: ``action="start"`` (default): ``Discrete(W + 1)``
      (``window=W``, 16 by default): ``a < W`` starts the ``a``-th of the
      first W waiting jobs in job order (the waiting window; on the GPU
      type the run's type policy picks; if it is the scheduler's own next
      job, the scheduler's whole action: its type and the preemptions that
      make room), ``W`` ends the scheduling pass (nothing else starts until
      the next event). ``action="start-or-preempt"``: ``Discrete(2W + 1)``:
      ``a < W`` as before, ``W <= a < 2W`` preempts the ``(a - W)``-th of
      the first W running jobs in job order (the running window; the
      scheduler's own preemption of it takes its whole action), ``2W`` ends
      the pass. A slot out of range, empty, or a job that does not fit
      raises :class:`InvalidActionError` and changes nothing.
      :meth:`step_choice` takes what the windows cannot say (a job beyond
      a window, a GPU type; a preemption with ``action="start"``).
    - **Observation**: float32, ``W * 5 + 4`` (``W * 10 + 4`` with
      ``start-or-preempt``): per waiting slot ``present``, ``gpus_frac``
      (GPUs asked / cluster GPUs), ``waiting_h`` (hours since
      submission), ``duration_h`` (the job's duration, which the built-in
      schedulers such as sjf read too), ``attained_h`` (service received);
      with ``start-or-preempt`` then per running slot ``present``,
      ``gpus_frac``, ``age_h`` (hours since submission), ``attained_h``,
      ``remaining_h`` (work left, what srtf reads); then ``clock_h``,
      ``free_gpu_frac``, ``waiting_count``, ``running_count``.
    - **Reward**: minus the job-hours spent in the system since the last
      step (arrivals and completions between steps counted exactly; the
      first step pays the time before the first decision too), so the
      return is −Σ_j (end_j − submit_j) / 3600.
    - **info**: ``policy_action`` (the scheduler's next action as a window
      action, ``-1`` when the windows cannot say it: a job beyond a window,
      a preemption with ``action="start"``, or after a deviation),
      ``policy_choice`` (the raw choice: ``("start", j, None)``,
      ``("start_on", j, t)``, ``("preempt", j, None)``, ``("end", None,
      None)``, or ``None`` after a deviation: :meth:`step_choice` takes
      it), ``action_mask`` (both windows and the end action).
    - **reset(seed=s)** plays repetition ``s``; without a seed the next.
    """

    _MODE = "jobs"

    def __init__(
        self,
        scenario: Scenario,
        *,
        policy: Optional[str] = None,
        window: int = 16,
        action: str = "start",
    ) -> None:
        self._open(_tenantsim.JobGymCore, scenario, **_window_options(policy, window, action))


class TenantsimSharedEnv(_WindowEnv):
    """One shared-scenario episode at a time (DESIGN §15.6, "The shared
    environment"): the cluster scheduler's decisions of a shared run (a
    model-selection service, background jobs and/or workflows on one
    cluster), one policy of the scenario alone. Build it with
    :func:`make` on a shared scenario.

    - **Action**: :class:`TenantsimJobEnv`'s (``window``, ``action``
      ``"start"`` or ``"start-or-preempt"``, :meth:`step_choice`); the
      waiting window holds every job the cluster scheduler sees waiting,
      in job order: background jobs, the service's requests (priority
      ``equal``; under ``low`` they are not the scheduler's to start) and
      workflow tasks.
    - **Observation**: the job-mode encoding with three more features per
      slot, one-hot, whose job it is: ``background``, ``service``,
      ``workflow`` (``slot_features``, ``running_features``).
    - **Reward**: ``reward="regret"`` (the default with a ``[service]``):
      minus the service's regret accrued since the last step (the area
      under its tenants' summed loss, accuracy·s), the last step paying
      the remainder, so the return is −R exactly, R the service's
      cumulative regret (``service/summary.csv``'s
      ``cumulative_regret``); ``reward="sojourn"`` (the default
      without a service): minus the job-hours every submitted job (all
      workloads) spent in the system since the last step.
    - **info**: ``policy_action``, ``policy_choice``, ``action_mask`` as
      in job mode.
    - A scenario with a ``[sweep]`` needs ``point=k`` (its k-th point).
    - :meth:`results` gives ``tenantsim run``'s files for the policy
      alone and one repetition (``service/``, ``background/``,
      ``workflows/``, ``shares.csv``).
    """

    _MODE = "shared"

    def __init__(
        self,
        scenario: Scenario,
        *,
        policy: Optional[str] = None,
        window: int = 16,
        action: str = "start",
        reward: Optional[str] = None,
        point: Optional[int] = None,
    ) -> None:
        self._open(
            _tenantsim.SharedGymCore,
            scenario,
            **_window_options(policy, window, action, reward=reward, point=point),
        )
        self.reward_kind: str = self._core.reward

    def owner(self, job: int) -> str:
        """Whose job ``job`` is: ``"background"``, ``"service"`` or
        ``"workflow"``."""
        return self._core.owner(int(job))

    @property
    def regret(self) -> Optional[float]:
        """The service's cumulative regret once the episode has ended
        (``None`` before, or without a service)."""
        return self._core.regret


def make(scenario: Scenario, **options: Any) -> gymnasium.Env:
    """A :class:`gymnasium.Env` of ``scenario`` (a model-mode ``.toml`` path
    or a dict, as :func:`tenantsim.run` takes).

    Options: ``policy`` (the name of the scenario's policy whose scheduler
    gives ``info["policy_action"]`` and whose selector picks models; the
    first by default), ``action`` (``"tenant"`` or ``"pair"``), ``encoder``
    and ``observation_space`` (your own observation), ``max_episode_steps``
    (wraps in ``gymnasium.wrappers.TimeLimit``; none by default).

    A job-mode scenario gives a :class:`TenantsimJobEnv` (options
    ``policy``, ``window``, ``action`` (``"start"`` or
    ``"start-or-preempt"``), ``max_episode_steps``); a shared scenario a
    :class:`TenantsimSharedEnv` (the same, and ``reward`` (``"regret"`` or
    ``"sojourn"``) and ``point`` (a sweep's point)).
    """
    max_steps = options.pop("max_episode_steps", None)
    env: gymnasium.Env
    mode = _mode_of(scenario)
    if mode == "jobs":
        env = TenantsimJobEnv(scenario, **options)
    elif mode == "shared":
        env = TenantsimSharedEnv(scenario, **options)
    else:
        env = TenantsimEnv(scenario, **options)
    if max_steps is not None:
        env = gymnasium.wrappers.TimeLimit(env, max_episode_steps=int(max_steps))
    return env


def _vector_reps(env: gymnasium.vector.VectorEnv, seed: Optional[Any]) -> list:
    """The repetitions a vector environment's ``reset(seed=...)`` plays:
    sub-environment k plays ``seed + k`` (``seed[k]`` for a list), without
    a seed the next ``num_envs`` after the last reset's; an int seed also
    seeds the environment's generator, as gymnasium's ``reset`` does."""
    if isinstance(seed, (list, tuple)):
        reps = [int(s) for s in seed]
        env._np_random_seed = reps[0] if reps else None
        return reps
    base = env._next_rep if seed is None else int(seed)
    if seed is not None:
        env._np_random, env._np_random_seed = gymnasium.utils.seeding.np_random(seed)
    return [base + k for k in range(env.num_envs)]


class TenantsimVecEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` model-mode episodes stepped by one Rust call (see
    :func:`make_vec`)."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        scenario: Scenario,
        num_envs: int,
        *,
        policy: Optional[str] = None,
        action: str = "tenant",
        threads: int = 1,
        copy: bool = True,
    ) -> None:
        self._core = _construct(
            lambda p: _tenantsim.GymVecCore(
                p, int(num_envs), policy=policy, action=action, threads=int(threads)
            ),
            scenario,
        )
        core = self._core
        self.num_envs = core.num_envs
        self.n_tenants = core.n_tenants
        self.n_models = core.n_models
        self._pair = action == "pair"
        self._copy = bool(copy)
        self.single_observation_space = _obs_space(core.obs_len)
        self.single_action_space = _action_space(action, core.n_tenants, core.n_models)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        mask_cols = core.n_tenants * (core.n_models + 1) if self._pair else core.n_tenants + 1
        k = self.num_envs
        # Read-only numpy views of the Rust object's buffers, made once:
        # every reset and step rewrites what changed in them (DESIGN §15.3).
        obs, rew, term, pol, mask = core.buffers()
        views = (
            np.frombuffer(obs, dtype=np.float32).reshape((k, core.obs_len)),
            np.frombuffer(rew, dtype=np.float64),
            np.frombuffer(term, dtype=np.bool_),
            np.frombuffer(pol, dtype=np.int64).reshape((k, 2) if self._pair else (k,)),
            np.frombuffer(mask, dtype=np.uint8).reshape((k, mask_cols)),
        )
        for v in views:
            v.flags.writeable = False
        self._views = views
        self._all = np.ones(k, dtype=bool)
        self._truncated = np.zeros(k, dtype=bool)
        self._truncated.flags.writeable = False
        self._next_rep = 0

    def _out(self) -> tuple:
        """(observations, rewards, terminated, infos): the buffers' views,
        or copies of them (``copy=True``)."""
        obs, rew, term, pol, mask = self._views
        if self._copy:
            obs, rew, term, pol, mask = obs.copy(), rew.copy(), term.copy(), pol.copy(), mask.copy()
        infos = {
            "policy_action": pol,
            "_policy_action": self._all,
            "action_mask": mask,
            "_action_mask": self._all,
        }
        return obs, rew, term, infos

    def reset(
        self, *, seed: Optional[Any] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Start every sub-environment: sub-environment k plays repetition
        ``seed + k`` (or ``seed[k]`` for a list); without a seed the next
        ``num_envs`` repetitions."""
        reps = _vector_reps(self, seed)
        self._core.reset(reps)
        obs, _, _, infos = self._out()
        self._next_rep = max(reps) + 1
        return obs, infos

    def step(self, actions: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """Step every sub-environment (next-step auto-reset)."""
        self._core.step(np.ascontiguousarray(actions, dtype=np.int64).tobytes())
        obs, rew, term, infos = self._out()
        truncated = self._truncated.copy() if self._copy else self._truncated
        return obs, rew, term, truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""

    @property
    def repetitions(self) -> list:
        """Each sub-environment's repetition now."""
        return self._core.reps

    @property
    def regrets(self) -> list:
        """Each sub-environment's cumulative regret so far."""
        return self._core.regrets


class TenantsimJobVecEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` job-mode episodes (:class:`TenantsimJobEnv`'s, DESIGN
    §15.5) stepped by one Rust call (see :func:`make_vec`).
    ``infos["policy_action"]`` and ``infos["action_mask"]`` have a row per
    sub-environment; the raw ``policy_choice`` and :meth:`step_choice` of
    the single environment are not offered."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        scenario: Scenario,
        num_envs: int,
        *,
        policy: Optional[str] = None,
        window: int = 16,
        action: str = "start",
    ) -> None:
        self._open(
            _tenantsim.JobGymVecCore, scenario, num_envs, _window_options(policy, window, action)
        )

    def _open(self, core: Any, scenario: Scenario, num_envs: int, options: Dict[str, Any]) -> None:
        """The Rust vector core ``core`` of ``scenario`` with ``num_envs``
        sub-environments and ``options`` (:func:`_window_options`)."""
        self._init_core(_construct(lambda p: core(p, int(num_envs), **options), scenario))

    def _init_core(self, core: Any) -> None:
        """Spaces and buffers of the vector core ``core`` (a
        ``JobGymVecCore`` or a ``SharedGymVecCore``)."""
        self._core = core
        self.num_envs = core.num_envs
        self.window: int = core.window
        self.action_kind: str = core.action
        self.single_observation_space = _obs_space(core.obs_len)
        self.single_action_space = spaces.Discrete(core.n_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._obs_shape = (self.num_envs, core.obs_len)
        self._mask_shape = (self.num_envs, core.n_actions)
        self._all = np.ones(self.num_envs, dtype=bool)
        self._truncated = np.zeros(self.num_envs, dtype=bool)
        self._next_rep = 0

    def _unpack(self, out: tuple) -> tuple:
        obs, rew, term, pol, mask = out
        infos = {
            "policy_action": np.frombuffer(pol, dtype=np.int64),
            "_policy_action": self._all,
            "action_mask": np.frombuffer(mask, dtype=np.uint8).reshape(self._mask_shape),
            "_action_mask": self._all,
        }
        return (
            np.frombuffer(obs, dtype=np.float32).reshape(self._obs_shape),
            np.frombuffer(rew, dtype=np.float64),
            np.frombuffer(term, dtype=np.bool_),
            infos,
        )

    def reset(
        self, *, seed: Optional[Any] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Start every sub-environment: sub-environment k plays repetition
        ``seed + k`` (or ``seed[k]`` for a list); without a seed the next
        ``num_envs`` repetitions."""
        reps = _vector_reps(self, seed)
        if any(r < 0 for r in reps):
            raise _tenantsim.UsageError(f"seed: expected repetitions >= 0, got {reps}")
        obs, _, _, infos = self._unpack(self._core.reset(reps))
        self._next_rep = max(reps) + 1
        return obs, infos

    def step(self, actions: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """Step every sub-environment (next-step auto-reset); an invalid
        action raises :class:`InvalidActionError` naming its
        sub-environment, and nothing changes."""
        a = np.ascontiguousarray(actions, dtype=np.int64)
        obs, rew, term, infos = self._unpack(self._core.step(a.tobytes()))
        return obs, rew, term, self._truncated, infos

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""

    @property
    def repetitions(self) -> list:
        """Each sub-environment's repetition now."""
        return self._core.reps

    @property
    def job_hours(self) -> list:
        """Each sub-environment's job-hours in the system so far."""
        return self._core.job_hours


class TenantsimSharedVecEnv(TenantsimJobVecEnv):
    """``num_envs`` shared-scenario episodes (:class:`TenantsimSharedEnv`'s,
    DESIGN §15.7) stepped by one Rust call (see :func:`make_vec`); the
    job-mode vector environment's contract (next-step auto-reset, one row
    per sub-environment in ``infos``)."""

    def __init__(
        self,
        scenario: Scenario,
        num_envs: int,
        *,
        policy: Optional[str] = None,
        window: int = 16,
        action: str = "start",
        reward: Optional[str] = None,
        point: Optional[int] = None,
    ) -> None:
        self._open(
            _tenantsim.SharedGymVecCore,
            scenario,
            num_envs,
            _window_options(policy, window, action, reward=reward, point=point),
        )
        self.reward_kind: str = self._core.reward


def make_vec(scenario: Scenario, num_envs: int, **options: Any) -> gymnasium.vector.VectorEnv:
    """A :class:`gymnasium.vector.VectorEnv` of ``num_envs`` episodes of
    ``scenario`` stepped in Rust, one call per step of all of them.
    Options: ``policy``, ``action`` (as :func:`make`), ``threads`` (the
    sub-environments are stepped on this many threads, 1 by default; the
    results do not depend on it), ``copy`` (True by default, as gymnasium's
    ``SyncVectorEnv``: ``reset`` and ``step`` return new arrays; with
    ``copy=False`` they return the same read-only arrays every time, which
    the next call overwrites in place: faster, copy what you keep, and read
    them from no other thread during a call). Auto-reset is
    gymnasium's next-step mode; sub-environment k plays repetitions
    ``r + k``, ``r + k + num_envs``, … from ``reset(seed=r)``.

    A job-mode scenario gives a :class:`TenantsimJobVecEnv` (options
    ``policy``, ``window``, ``action`` as :func:`make`'s; stepped on the
    calling thread); a shared scenario a :class:`TenantsimSharedVecEnv`
    (those and ``reward``, ``point``)."""
    mode = _mode_of(scenario)
    if mode == "jobs":
        return TenantsimJobVecEnv(scenario, num_envs, **options)
    if mode == "shared":
        return TenantsimSharedVecEnv(scenario, num_envs, **options)
    return TenantsimVecEnv(scenario, num_envs, **options)
