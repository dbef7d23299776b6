"""tenantsim from Python: run scenarios and read their results as pandas
DataFrames.

tenantsim is a discrete-event simulator for multi-tenant ML services: many
users share one GPU cluster, each searching for its best model (model
mode), or a GPU cluster replays a job trace under classic schedulers (job
mode), or both share one cluster (shared mode: a model-selection service
beside a background job trace). This package runs the same library as the ``tenantsim`` command
line, with the same results and the same error messages.

Functions:
    run(scenario, *, out=None, threads=None, seed=None, reps=None)
        Run a scenario (a ``.toml`` path or a dict) and return its
        :class:`Results`.
    validate(path)
        Check a trace or a scenario; return its description.
    load_trace(path)
        A trace CSV (model or job trace) as a DataFrame.
    load_scenario(path)
        A scenario file as a dict with absolute paths, to edit and ``run``.
    whatif(results, at, policy=None, gpus=None, rep=0, out=None)
        Fork a finished run at simulated time ``at`` and return the
        unchanged and the changed continuations as two :class:`Results`.

Policies in Python: subclass :class:`Scheduler` or :class:`Selector` (model
mode, and a shared scenario's service) or :class:`JobScheduler` (job mode,
and a shared scenario's ``cluster_scheduler``), or a shared scenario's
workflows rules :class:`CacheEviction` (``cache``) and :class:`Parallelism`
(``parallel``), and pass them as ``run(..., policies={"name": MyScheduler})``.

Errors are :class:`TenantsimError` subclasses by kind: :class:`InputError`,
:class:`PolicyError`, :class:`UsageError`, :class:`InterruptedRunError`.

Example::

    import tenantsim
    r = tenantsim.run("scenarios/quickstart.toml")
    r.regret[["policy", "mean_regret", "ratio_to_baseline"]]
"""

from __future__ import annotations

import os
import tempfile
from json import loads as _json_loads
from pathlib import Path
from typing import Any, List, Mapping, Optional, Tuple, Union

import pandas as pd

from . import _tenantsim
from ._results import (
    JOB_TABLES,
    MODEL_TABLES,
    SHARED_TABLES,
    Results,
    read_results,
    read_table,
)
from ._policy import CacheEviction, JobScheduler, Parallelism, Rng, Scheduler, Selector
from ._scenario import (
    PATH_KEYS,
    ScenarioDict,
    dict_label,
    load_scenario,
    resolve_paths,
    write_scenario,
)
from ._tenantsim import (
    CacheEntry,
    InputError,
    Job,
    SplitStep,
    InterruptedRunError,
    PolicyError,
    State,
    Tenant,
    TenantsimError,
    UsageError,
)

__version__: str = _tenantsim.__version__

__all__ = [
    "run",
    "whatif",
    "validate",
    "load_trace",
    "load_scenario",
    "ScenarioDict",
    "read_table",
    "Results",
    "Scheduler",
    "JobScheduler",
    "CacheEviction",
    "CacheEntry",
    "Parallelism",
    "SplitStep",
    "Job",
    "Rng",
    "Selector",
    "State",
    "Tenant",
    "TenantsimError",
    "InputError",
    "PolicyError",
    "UsageError",
    "InterruptedRunError",
    "PATH_KEYS",
    "MODEL_TABLES",
    "JOB_TABLES",
    "SHARED_TABLES",
    "resolve_paths",
]

PathLike = Union[str, "os.PathLike[str]"]


def run(
    scenario: Union[PathLike, Mapping[str, Any]],
    *,
    out: Optional[PathLike] = None,
    threads: Optional[int] = None,
    seed: Optional[int] = None,
    reps: Optional[int] = None,
    policies: Optional[Mapping[str, Any]] = None,
) -> Results:
    """Run a scenario (any mode, any ``[sweep]``) and return its results.

    This is ``tenantsim run SCENARIO --jobs``: the same simulation, the same
    files, the same errors.

    Args:
        scenario: a scenario file (``.toml``), or a dict with the structure
            of one (``{"name": ..., "trace": {"path": ...}, "policy": [...]}``).
            A dict is written as TOML into a temporary folder, which is
            removed afterwards. Relative file paths in a dict
            (``trace.path``, ``jobs.path``, ``arrivals.path``,
            ``cluster.node_list``, the ``trace.import`` files, a shared
            scenario's ``service.trace.path`` and ``service.arrivals.path``; see
            :data:`PATH_KEYS`), also as swept values, are resolved against
            the current working directory; in a file they are resolved
            against the file's folder, as always. To start from a bundled
            scenario, :func:`load_scenario` gives its dict with every path
            already absolute. Errors name the dict ("scenario dict", or
            "scenario dict loaded from FILE"), never the temporary file.
            (``run.json``'s ``scenario_path`` names the temporary file; its
            ``scenario`` holds the whole resolved scenario.)
        out: the results folder to write. ``None`` (default): nothing is
            written; the run goes to a temporary folder that is removed once
            its tables are read, and no figures are drawn. Given: the folder
            the command line's ``--out`` would write, figures included
            (unless the scenario says ``[output] plots = false``). An
            existing folder is replaced only if tenantsim wrote it (or it is
            empty); otherwise an :class:`InputError` is raised before
            anything runs and nothing changes.
        threads: worker threads (1 to 1024; default all cores). Results do
            not depend on it.
        seed: replaces the scenario's seed.
        reps: replaces the scenario's number of repetitions.
        policies: policies written in Python, by the name the scenario's
            ``[[policy]]`` tables use for them (``scheduler = "py-rr"``):
            :class:`Scheduler` and :class:`Selector` subclasses (model
            mode; a shared scenario's ``scheduler`` and ``selector``, the
            service's), :class:`JobScheduler` subclasses (job mode; a
            shared scenario's ``cluster_scheduler`` or ``[cluster]
            scheduler``), :class:`CacheEviction` and :class:`Parallelism`
            subclasses (a shared scenario's workflows: ``cache`` and
            ``parallel``). An exception inside one stops the run, writes no results
            folder, and raises a :class:`PolicyError` with its traceback,
            the policy's name and the repetition (the exception is its
            ``__cause__``).

    Returns:
        A :class:`Results`: the tables as DataFrames (``jobs`` always), the
        ``--json`` summary as ``.json`` and ``run.json`` as ``.manifest``;
        for a sweep, ``.sweep`` and one :class:`Results` per point in
        ``.points``. A shared scenario's: ``.shares`` (``shares.csv``),
        ``.service`` (model mode's :class:`Results` of ``service/``) and
        ``.background`` (job mode's, of ``background/``).

    Raises:
        InputError: bad scenario, trace or results folder (the message
            names the file, the line or the key, as the command line's).
        PolicyError: a policy gave an impossible answer.
        UsageError: bad ``threads`` or ``reps``, or ``seed``/``reps`` given
            for a scenario that sweeps them.

    The run holds no Python lock: other Python threads go on meanwhile.
    Ctrl-C raises ``KeyboardInterrupt`` within a fraction of a second, in
    the middle of a repetition too (the simulation stops between
    decisions); the run's temporary folder is removed and no results
    folder is left half-written (``out`` is as it was). The same holds for
    any signal whose Python handler raises.
    """
    registered: List[Tuple[str, type, str, type]] = []
    for name, cls in (policies or {}).items():
        if isinstance(cls, type) and issubclass(cls, Scheduler):
            registered.append((name, cls, "scheduler", Scheduler))
        elif isinstance(cls, type) and issubclass(cls, Selector):
            registered.append((name, cls, "selector", Selector))
        elif isinstance(cls, type) and issubclass(cls, JobScheduler):
            registered.append((name, cls, "job-scheduler", JobScheduler))
        elif isinstance(cls, type) and issubclass(cls, CacheEviction):
            registered.append((name, cls, "cache-eviction", CacheEviction))
        elif isinstance(cls, type) and issubclass(cls, Parallelism):
            registered.append((name, cls, "parallelism", Parallelism))
        else:
            raise UsageError(
                f"policies: `{name}` must be a subclass of tenantsim.Scheduler, "
                f"tenantsim.Selector, tenantsim.JobScheduler, tenantsim.CacheEviction "
                f"or tenantsim.Parallelism, got {cls!r}"
            )
    with tempfile.TemporaryDirectory(prefix="tenantsim-") as tmp:
        tmp_dir = Path(tmp)
        if isinstance(scenario, Mapping):
            scenario_path = write_scenario(scenario, tmp_dir)
        else:
            scenario_path = Path(os.fspath(scenario))
        if out is None:
            folder = tmp_dir / "results"
            target = None
        else:
            folder = Path(os.fspath(out))
            target = folder
        try:
            text = _tenantsim.run(
                str(scenario_path),
                str(folder),
                threads=threads,
                seed=seed,
                reps=reps,
                no_plots=out is None,
                policies=registered,
                rng_class=Rng,
            )
        except TenantsimError as e:
            if not isinstance(scenario, Mapping) or str(scenario_path) not in str(e):
                raise
            # The temporary file means nothing to the caller: name the dict.
            renamed = type(e)(str(e).replace(str(scenario_path), dict_label(scenario)))
            renamed.__cause__ = e.__cause__
            raise renamed from e.__cause__
        return read_results(folder, _json_loads(text), target)


def whatif(
    results: PathLike,
    at: float,
    policy: Optional[str] = None,
    gpus: Optional[int] = None,
    rep: int = 0,
    out: Optional[PathLike] = None,
) -> Tuple[Results, Results]:
    """Fork a finished model-mode run at simulated time ``at`` and compare
    its continuations (``tenantsim whatif``; docs/DESIGN.md §15.4).

    Each policy of the run's scenario runs repetition ``rep`` up to its
    first decision point at or after ``at`` seconds, is forked there, and
    goes on once unchanged and once with the change: ``policy`` (the
    scenario's policy of that name decides from then on) or ``gpus`` (add
    ``+N`` GPUs, or remove ``-N`` free ones; a cluster of identical GPUs
    only). Give exactly one of them.

    Args:
        results: a results folder written by ``run`` (model mode); its
            ``run.json`` names the scenario, whose relative paths resolve
            as at the run.
        at: the simulated time of the fork, seconds (at least 0).
        policy: the name of a policy of the scenario.
        gpus: GPUs added (positive) or removed (negative).
        rep: the repetition to fork.
        out: the folder to write, which must not exist (default:
            ``results/whatif-rep<R>-at<T>-<change>``).

    Returns:
        ``(baseline, changed)``: the continuations as :class:`Results`
        (``out/baseline`` and ``out/changed``: one repetition, a row per
        policy as forked, ``jobs`` included); each ``json`` is the
        folder's ``whatif.json`` (where each policy was forked).

    Raises:
        UsageError: ``at`` negative or past the end, an unknown policy
            (the message lists the names), more GPUs removed than are
            free, both or neither of ``policy`` and ``gpus``, ``out``
            exists.
        InputError: ``results`` missing, not a model-mode folder, or its
            trace changed since the run.
    """
    folder, _table = _tenantsim.whatif(
        os.fspath(results),
        float(at),
        policy=policy,
        gpus=None if gpus is None else int(gpus),
        rep=int(rep),
        out=None if out is None else os.fspath(out),
    )
    folder_path = Path(folder)
    with open(folder_path / "whatif.json", encoding="utf-8") as f:
        doc = _json_loads(f.read())
    doc["mode"] = "models"
    return tuple(  # type: ignore[return-value]
        read_results(folder_path / name, doc, folder_path / name)
        for name in (doc["baseline"], doc["changed"])
    )


def validate(path: PathLike) -> str:
    """Check a trace or a scenario and return its description.

    Like ``tenantsim validate PATH``: a ``.toml`` file is a scenario (either
    mode; every point of a ``[sweep]`` is checked), anything else a trace
    CSV (a job trace if its header has ``job_id``, else a model trace).

    Returns:
        The text the command line prints, starting with ``ok:``.

    Raises:
        InputError: the file is invalid; the message names the file, the
            line and the field, e.g. ``t.csv: line 3: accuracy: ...``.
    """
    return _tenantsim.validate(os.fspath(path))


def load_trace(path: PathLike) -> pd.DataFrame:
    """Load and validate a trace CSV and return it as a DataFrame.

    A model trace gives ``user, model, accuracy, runtime_s`` (and
    ``model_year``, ``model_citations`` if present): one row per available
    (user, model) pair, users then models in order of first appearance in
    the file (the simulator's indices). A job trace (header with
    ``job_id``) gives ``job_id, user, submit_s, duration_s, gpus`` (and
    ``gpu_type``, ``group`` if present), one row per job in file order.
    Times are seconds as the simulator holds them: rounded once to whole
    microseconds.

    Raises:
        InputError: the file is invalid (the same message as ``tenantsim
            validate``).
    """
    kind, columns = _tenantsim.load_trace(os.fspath(path))
    df = pd.DataFrame(columns)
    df.attrs["kind"] = kind
    return df
