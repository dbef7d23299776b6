"""Type hints of the compiled module ``tenantsim._tenantsim`` (use the
functions of ``tenantsim`` instead: they return DataFrames)."""

from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

__version__: str

class TenantsimError(Exception):
    """Base class of every error tenantsim raises."""

class InputError(TenantsimError):
    """Bad input data, or a failure while running or writing results."""

class PolicyError(TenantsimError):
    """A policy gave an impossible answer."""

class UsageError(TenantsimError):
    """The call itself is wrong (as a command-line usage error)."""

class InterruptedRunError(TenantsimError):
    """The run was stopped by a signal."""

def run(
    scenario: str,
    out: str,
    *,
    threads: Optional[int] = None,
    seed: Optional[int] = None,
    reps: Optional[int] = None,
    no_plots: bool = False,
    policies: Sequence[Tuple[str, type, str, type]] = ...,
    rng_class: Optional[type] = None,
) -> str:
    """Run the scenario file into ``out``; the ``--json`` document as JSON text."""

def whatif(
    results: str,
    at: float,
    *,
    policy: Optional[str] = None,
    gpus: Optional[int] = None,
    rep: int = 0,
    out: Optional[str] = None,
) -> Tuple[str, str]:
    """Fork the results folder at ``at`` s (``tenantsim whatif``); the
    folder written and the comparison table."""

def validate(path: str) -> str:
    """The description ``tenantsim validate`` prints."""

def scenario_toml(json: str) -> str:
    """The TOML text of a scenario given as JSON text."""

def load_trace(
    path: str,
) -> Tuple[Literal["models", "jobs"], Dict[str, Union[List[str], List[float], List[int]]]]:
    """The trace's kind and its columns."""

class Tenant:
    """One tenant as ``State.tenant(i)`` shows it."""

    user: str
    user_index: int
    best: float
    tried: List[int]
    running: List[int]
    arrival_s: float
    """Its arrival time in seconds once it has arrived; NaN before."""
    arrived: bool
    started: int
    completed: int

class State:
    """The read-only view of a repetition a Python policy receives; its
    tenant methods work only during ``pick``, ``propose`` and
    ``tenant_changed``."""

    @property
    def n_tenants(self) -> int: ...
    @property
    def now_s(self) -> float: ...
    @property
    def free_gpus(self) -> int: ...
    @property
    def gpu_type(self) -> int: ...
    def eligible_tenants(self) -> List[int]: ...
    def next_eligible(self, start: int = 0) -> Optional[int]: ...
    def is_eligible(self, i: int) -> bool: ...
    def tenant(self, i: int) -> Tenant: ...
    def untried_models(self, i: int) -> List[int]: ...
    @property
    def n_models(self) -> int: ...
    @property
    def models(self) -> List[str]: ...
    def accuracy(self, user_index: int, model: int) -> Optional[float]: ...
    def runtime_s(self, user_index: int, model: int) -> Optional[float]: ...
    def fidelities(self, user_index: int, model: int) -> List[float]: ...
    def level_accuracy(self, user_index: int, model: int, level: int) -> Optional[float]: ...
    def level_started(self, i: int, model: int) -> Optional[int]: ...
    def level_done(self, i: int, model: int) -> Optional[int]: ...

class Stream:
    """A policy's random stream (see ``tenantsim.Rng``)."""

    def below(self, n: int) -> int: ...
    def unit(self) -> float: ...
    def words(self, n: int) -> List[int]: ...

class Job:
    """One job as ``JobScheduler.priority`` sees it."""

    index: int
    user: int
    submit_s: float
    duration_s: float
    gpus: int

class CacheEntry:
    """One memo-cache entry as ``CacheEviction.score`` sees it."""

    bytes: int
    saved_s: float
    gpus: int
    cpus: int
    created_s: float
    last_used_s: float
    hits: int
    tenant: int
    scope: str
    now_s: float

class SplitStep:
    """One parallelisable step as ``Parallelism.parts`` sees it."""

    runtime_s: float
    gpus: int
    cpus: int
    parallel_k: int
    free_gpus: int
    free_cpus: Optional[int]
    now_s: float

# tenantsim.gym (docs/DESIGN.md §15.3): the Rust halves of its environments.

class InvalidActionError(ValueError):
    """An action a tenantsim.gym environment cannot take now; nothing changed."""

class GymCore:
    """One model-mode environment (tenantsim.gym.TenantsimEnv holds one)."""

    def __init__(self, scenario: str, policy: Optional[str] = ..., action: str = ...) -> None: ...
    def reset(self, rep: int) -> bytearray: ...
    def step(
        self, tenant: int, model: int = ...
    ) -> Tuple[bytearray, float, bool, Tuple[int, int], bytearray]: ...
    def observation(self) -> bytearray: ...
    def mask(self) -> bytearray: ...
    def _full(self) -> Tuple[bytearray, bytearray]:
        """The observation and mask encoded whole (for the tests)."""
    def policy_action(self) -> Tuple[int, int]: ...
    def fork(self) -> "GymCore": ...
    def write_results(self, dir: str) -> None: ...
    n_tenants: int
    n_models: int
    obs_len: int
    action: str
    rep: int
    steps: int
    regret: float
    ended: bool
    clock_s: float
    scenario_name: str
    policy_name: str
    repetitions: int
    model_names: List[str]
    tenant_names: List[str]
    @staticmethod
    def tenant_features() -> List[str]: ...
    @staticmethod
    def global_features() -> List[str]: ...

class GymVecCore:
    """K model-mode environments stepped by one call (tenantsim.gym.TenantsimVecEnv)."""

    def __init__(
        self,
        scenario: str,
        num_envs: int,
        policy: Optional[str] = ...,
        action: str = ...,
        threads: int = ...,
    ) -> None: ...
    def buffers(self) -> Tuple[bytearray, bytearray, bytearray, bytearray, bytearray]:
        """The output buffers (observations, rewards, terminated, policy
        actions, masks), the same objects at every call; reset and step
        rewrite them."""
    def reset(self, reps: List[int]) -> None: ...
    def step(self, actions: bytes) -> None: ...
    def _full(self) -> Tuple[bytearray, bytearray]:
        """Every observation and mask encoded whole (for the tests)."""
    num_envs: int
    n_tenants: int
    n_models: int
    obs_len: int
    reps: List[int]
    regrets: List[float]

# tenantsim.gym on job-mode scenarios (docs/DESIGN.md §15.5).

class JobGymCore:
    """One job-mode environment (tenantsim.gym.TenantsimJobEnv holds one)."""

    def __init__(
        self, scenario: str, policy: Optional[str] = ..., window: int = ..., action: str = ...
    ) -> None: ...
    def reset(self, rep: int) -> None: ...
    def step(self, a: int) -> Tuple[float, bool]: ...
    def step_choice(
        self, kind: str, job: Optional[int] = ..., gpu_type: Optional[int] = ...
    ) -> Tuple[float, bool]: ...
    def observation(self) -> bytearray: ...
    def mask(self) -> bytearray: ...
    def policy_action(self) -> int: ...
    def policy_choice(self) -> Optional[Tuple[str, Optional[int], Optional[int]]]: ...
    def waiting(self) -> List[int]: ...
    def fork(self) -> "JobGymCore": ...
    def write_results(self, dir: str) -> None: ...
    window: int
    action: str
    n_actions: int
    obs_len: int
    ended: bool
    steps: int
    rep: int
    repetitions: int
    policy_name: str
    scenario_name: str
    job_hours: float
    clock_s: float
    @staticmethod
    def slot_features() -> List[str]: ...
    @staticmethod
    def running_features() -> List[str]: ...
    @staticmethod
    def global_features() -> List[str]: ...

class JobGymVecCore:
    """K job-mode environments stepped by one call (tenantsim.gym.TenantsimJobVecEnv)."""

    def __init__(
        self,
        scenario: str,
        num_envs: int,
        policy: Optional[str] = ...,
        window: int = ...,
        action: str = ...,
    ) -> None: ...
    def reset(
        self, reps: List[int]
    ) -> Tuple[bytearray, bytearray, bytearray, bytearray, bytearray]: ...
    def step(self, actions: bytes) -> Tuple[bytearray, bytearray, bytearray, bytearray, bytearray]: ...
    num_envs: int
    window: int
    action: str
    n_actions: int
    obs_len: int
    reps: List[int]
    job_hours: List[float]

# tenantsim.gym on shared scenarios (docs/DESIGN.md §15.7).

class SharedGymCore:
    """One shared-scenario environment (tenantsim.gym.TenantsimSharedEnv holds one)."""

    def __init__(
        self,
        scenario: str,
        policy: Optional[str] = ...,
        window: int = ...,
        action: str = ...,
        reward: Optional[str] = ...,
        point: Optional[int] = ...,
    ) -> None: ...
    def reset(self, rep: int) -> None: ...
    def step(self, a: int) -> Tuple[float, bool]: ...
    def step_choice(
        self, kind: str, job: Optional[int] = ..., gpu_type: Optional[int] = ...
    ) -> Tuple[float, bool]: ...
    def observation(self) -> bytearray: ...
    def mask(self) -> bytearray: ...
    def policy_action(self) -> int: ...
    def policy_choice(self) -> Optional[Tuple[str, Optional[int], Optional[int]]]: ...
    def owner(self, j: int) -> str: ...
    def waiting(self) -> List[int]: ...
    def fork(self) -> "SharedGymCore": ...
    def write_results(self, dir: str) -> None: ...
    window: int
    action: str
    reward: str
    n_actions: int
    obs_len: int
    ended: bool
    steps: int
    rep: int
    policy_name: str
    scenario_name: str
    has_service: bool
    job_hours: float
    regret: Optional[float]
    clock_s: float
    @staticmethod
    def slot_features() -> List[str]: ...
    @staticmethod
    def running_features() -> List[str]: ...
    @staticmethod
    def global_features() -> List[str]: ...

class SharedGymVecCore:
    """K shared-scenario environments stepped by one call (tenantsim.gym.TenantsimSharedVecEnv)."""

    def __init__(
        self,
        scenario: str,
        num_envs: int,
        policy: Optional[str] = ...,
        window: int = ...,
        action: str = ...,
        reward: Optional[str] = ...,
        point: Optional[int] = ...,
    ) -> None: ...
    def reset(
        self, reps: List[int]
    ) -> Tuple[bytearray, bytearray, bytearray, bytearray, bytearray]: ...
    def step(self, actions: bytes) -> Tuple[bytearray, bytearray, bytearray, bytearray, bytearray]: ...
    num_envs: int
    window: int
    action: str
    reward: str
    n_actions: int
    obs_len: int
    reps: List[int]
    job_hours: List[float]
