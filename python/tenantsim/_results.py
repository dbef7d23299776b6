"""The :class:`Results` of a run, read from a tenantsim results folder."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional

import pandas as pd

# The result files' schemas: `tenantsim schema --json`, checked in beside
# this file (a Rust test fails when they differ). Each file: its name, mode
# and columns in order, each with its kind ("text", "int", "float",
# "seconds", "ratio", "bool", "value"...), unit and meaning.
with open(Path(__file__).with_name("schema.json"), encoding="utf-8") as _f:
    SCHEMA: Dict[str, Any] = json.load(_f)


def _tables(mode: str) -> tuple:
    """The CSV tables (file names without `.csv`) of a mode's results folder,
    in schema order; `sweep.csv` is a sweep's own file, not a table."""
    return tuple(
        f["name"][: -len(".csv")]
        for f in SCHEMA["files"]
        if f["mode"] == mode and f["name"] not in ("sweep.csv", "utilization_by_type.csv")
    )


# Tables per mode: the CSV files of a results folder (docs/REFERENCE.md "Results
# folder", docs/DESIGN.md §6 and §9.6). `jobs.csv` is always there: the
# package runs with the command line's `--jobs`.
MODEL_TABLES = _tables("models")
JOB_TABLES = _tables("jobs")

# A shared results folder (``mode = "shared"``, docs/DESIGN.md §13.5) holds
# the service's model-mode folder in ``service/``, the background's job-mode
# folder in ``background/`` and, at the top, ``shares.csv``: its one table
# of its own. The schema above does not list the shared files yet, so their
# kinds are given here: ``shares.csv``'s columns, and the columns the
# service's ``jobs.csv`` gains when its jobs are cut into segments.
SHARED_TABLES = ("shares",)
_SHARED_KINDS: Dict[str, Dict[str, str]] = {
    "shares.csv": {
        "policy": "text",
        "rep": "int",
        "time_s": "seconds",
        "workload": "text",
        "gpus": "int",
    },
    "jobs.csv": {"segment": "int", "gpus": "int", "overhead_s": "seconds", "completed": "int"},
}

# The workflows' folder ``workflows/`` of a shared results folder
# (docs/DESIGN.md §14.7): its tables. Their columns' kinds are the schema's
# files ``workflows/<table>.csv`` (named by their path, as ``summary.csv``
# and ``jobs.csv`` are other modes' names too); summary.csv's ``n/a`` and
# an empty time (never) read as NaN.
WORKFLOW_TABLES = ("summary", "workflows", "steps", "jobs")


# How each kind is read: names as text (exactly as written: a user called
# "NA" or "1e3" stays that string), counts as integers, a swept value as
# pandas infers it, true/false as booleans; every other kind is a float,
# whatever its values (a `final_loss` column of zeros is still float64, so
# tables of two runs concatenate cleanly).
_TEXT, _INT, _KEEP = "text", "int", ("value", "bool")


def _pattern(name: str) -> "re.Pattern[str]":
    """A column name of the schema as a regular expression: a placeholder
    (`<θ>`, `<type>`, `<key>`) stands for one or more characters."""
    parts = re.split(r"<θ>|<type>|<key>", name)
    return re.compile(".+".join(re.escape(p) for p in parts) + r"\Z")


def _kinds(path: Path, header: List[str], mode: Optional[str]) -> Dict[str, str]:
    """The kind of each column of ``header``, from the schema of the file
    named like ``path`` (in ``mode``, or either mode's). A column no schema
    names is read as a float. In ``mode`` ``"shared"``: ``shares.csv``, and
    ``sweep.csv`` whose ``background_*`` columns are job mode's."""
    if mode == "workflows":
        schema = [f for f in SCHEMA["files"] if f["name"] == f"workflows/{path.name}"]
        named = {col["name"]: col["kind"] for f in schema for col in f["columns"]}
        return {c: named.get(c, "float") for c in header}
    if mode == "shared":
        if path.name == "sweep.csv":
            kinds = _kinds(path, header, "models")
            background = [c for c in header if c.startswith("background_")]
            named = _kinds(path, [c[len("background_") :] for c in background], "jobs")
            for c in background:
                kinds[c] = named[c[len("background_") :]]
            return kinds
        extra = _SHARED_KINDS.get(path.name, {})
        return {c: extra.get(c, "float") for c in header}
    files = [
        f
        for f in SCHEMA["files"]
        if f["name"] == path.name and (mode is None or f["mode"] == mode)
    ]
    kinds: Dict[str, str] = {}
    for c in header:
        for f in files:
            exact = [col for col in f["columns"] if col["name"] == c]
            fits = exact or [
                col
                for col in f["columns"]
                if col["name"] != "<key>" and _pattern(col["name"]).match(c)
            ]
            if fits:
                kinds[c] = fits[0]["kind"]
                break
        else:
            # The service's segment columns (a shared run's service/jobs.csv).
            kinds[c] = _SHARED_KINDS["jobs.csv"].get(c, "float") if path.name == "jobs.csv" else "float"
    return kinds


def read_table(
    path: Path, keep: Iterable[str] = (), mode: Optional[str] = None
) -> pd.DataFrame:
    """Read one tenantsim CSV as a DataFrame, its columns typed by the
    file's schema (``tenantsim schema``; ``mode`` ``"models"`` or
    ``"jobs"`` picks the mode's file where both write one of that name;
    ``"shared"`` reads a shared folder's own ``shares.csv`` and
    ``sweep.csv``).

    Name columns (``policy``, ``user``, ``model``, ...) are strings and
    counts (``rep``, ``jobs``, ``events``...) integers; the other numbers
    are floats, with ``inf`` as ``float('inf')`` and ``n/a`` (and an empty
    cell, as in ``sweep.csv`` where a point does not use a θ) as NaN;
    ``true``/``false`` are booleans. No other word is read as missing.
    Columns named in ``keep`` (a sweep's swept keys) keep the type pandas
    infers.
    """
    path = Path(path)
    with open(path, newline="", encoding="utf-8") as f:
        header = next(csv.reader(f), [])
    keep = set(keep)
    kinds = _kinds(path, header, mode)
    text = {c for c in header if kinds[c] == _TEXT and c not in keep}
    df = pd.read_csv(
        path,
        dtype={c: str for c in text},
        keep_default_na=False,
        na_values={c: ["n/a", ""] for c in header if c not in text},
    )
    for c in df.columns:
        if c in keep or c in text or kinds.get(c) == _INT or kinds.get(c) in _KEEP:
            continue
        if pd.api.types.is_integer_dtype(df[c].dtype):
            df[c] = df[c].astype("float64")
    return df


class Results:
    """What one run returned: its tables as pandas DataFrames and its
    manifest.

    Model mode (``mode == "models"``) has the tables ``summary``,
    ``curves``, ``curves_by_job``, ``speedups``, ``speedups_up_to``,
    ``regret``, ``tenants`` and ``jobs``; job mode (``mode == "jobs"``) has
    ``summary``, ``users``, ``utilization`` and ``jobs``. Their columns are
    those of the CSV files of the same names (docs/REFERENCE.md, "Results folder").
    Asking for a table the mode does not have raises ``AttributeError``.

    Shared mode (``mode == "shared"``, a scenario with ``mode =
    "shared"``) has one table of its own, ``shares`` (``shares.csv``: the
    GPUs each workload holds over time); its workloads' results are
    :class:`Results` of their own modes: ``service`` (model mode, read from
    ``service/``) and ``background`` (job mode, from ``background/``), each
    ``None`` when the scenario has no such workload. ``r.service.regret``,
    ``r.background.summary``, ``r.service.jobs`` (one row per segment a
    service job held GPUs when the service shares its cluster: model mode's
    columns then ``segment``, ``gpus``, ``overhead_s``, ``completed``) and
    so on; ``r.summary`` and the other per-mode tables raise an
    ``AttributeError`` that names the workload attributes.

    A sweep (a scenario with ``[sweep]``) has no tables of its own: its
    ``sweep`` attribute is ``sweep.csv`` (one row per point and policy) and
    ``points`` holds one :class:`Results` per grid point, in point order,
    each with ``point`` set to ``{"index", "folder", "values"}``.

    Attributes:
        mode: ``"models"``, ``"jobs"`` or ``"shared"``.
        out: the results folder, or ``None`` when ``run`` was called
            without ``out`` (the files were read from a temporary folder,
            then removed).
        json: the summary the command line prints with ``--json``
            (per-policy means over repetitions, ``threads``,
            ``wall_time_s``...; for a sweep point, its entry of the sweep's
            document).
        manifest: ``run.json`` as a dict (``None`` for a sweep as a whole,
            which has none; each point has its own).
        sweep: ``sweep.csv`` as a DataFrame, or ``None`` if not a sweep.
        points: the per-point results of a sweep (empty if not a sweep).
        point: for a sweep point, its ``index``, ``folder`` and swept
            ``values``; ``None`` otherwise.
        service: shared mode: the service's results (model mode, its
            ``json`` the ``--json`` document's ``service`` entry, its
            ``manifest`` ``service/run.json``); ``None`` otherwise, for
            a scenario without ``[service]``, and for a sweep as a whole
            (see each point's).
        background: shared mode: the background's results (job mode,
            from ``background/``); ``None`` as for ``service``.
        workflows: shared mode: the workflows' results (``mode ==
            "workflows"``, from ``workflows/``, docs/DESIGN.md §14.7): the
            tables ``summary`` (per policy: ``completion_rate``,
            ``makespan_p50_s``, ..., each with ``_ci_low``/``_ci_high``),
            ``per_workflow`` (``workflows.csv``, also
            ``tables["workflows"]``: one row per workflow and run),
            ``steps`` and ``jobs``; its ``json`` the ``--json`` document's ``workflows``
            entry; ``None`` as for ``service``.
    """

    mode: str
    out: Optional[Path]
    json: Dict[str, Any]
    manifest: Optional[Dict[str, Any]]
    sweep: Optional[pd.DataFrame]
    points: List["Results"]
    point: Optional[Dict[str, Any]]
    service: Optional["Results"]
    background: Optional["Results"]
    workflows: Optional["Results"]

    def __init__(
        self,
        *,
        mode: str,
        out: Optional[Path],
        json: Dict[str, Any],
        manifest: Optional[Dict[str, Any]],
        tables: Dict[str, pd.DataFrame],
        sweep: Optional[pd.DataFrame] = None,
        points: Optional[List["Results"]] = None,
        point: Optional[Dict[str, Any]] = None,
        service: Optional["Results"] = None,
        background: Optional["Results"] = None,
        workflows: Optional["Results"] = None,
    ) -> None:
        self.mode = mode
        self.out = out
        self.json = json
        self.manifest = manifest
        self._tables = tables
        self.sweep = sweep
        self.points = points or []
        self.point = point
        self.service = service
        self.background = background
        self.workflows = workflows

    @property
    def tables(self) -> Dict[str, pd.DataFrame]:
        """Every table of this result by name (empty for a sweep as a whole)."""
        return dict(self._tables)

    def _table(self, name: str) -> pd.DataFrame:
        if name in self._tables:
            return self._tables[name]
        if self.sweep is not None:
            raise AttributeError(
                f"a sweep has no `{name}` table of its own: see .sweep (sweep.csv) "
                f"and .points[i].{name}"
            )
        have = ", ".join(self._tables)
        if self.mode == "shared":
            workloads = " and ".join(
                f".{w}.{name}" for w in ("service", "background", "workflows")
                if getattr(self, w) is not None
            )
            raise AttributeError(
                f"shared-mode results have no `{name}` table of their own; they have: {have}; "
                f"see each workload's: {workloads or '(none)'}"
            )
        raise AttributeError(f"{self.mode}-mode results have no `{name}` table; they have: {have}")

    @property
    def summary(self) -> pd.DataFrame:
        """``summary.csv``: one row per (policy, repetition)."""
        return self._table("summary")

    @property
    def jobs(self) -> pd.DataFrame:
        """``jobs.csv``: every job of every run (model mode:
        ``policy,rep,job,gpu,user,model,start_s,end_s,accuracy``; job mode:
        ``policy,rep,job_id,user,submit_s,start_s,end_s,gpus``)."""
        return self._table("jobs")

    @property
    def curves(self) -> pd.DataFrame:
        """``curves.csv`` (model mode): L(τ) over repetitions per policy and grid instant."""
        return self._table("curves")

    @property
    def curves_by_job(self) -> pd.DataFrame:
        """``curves_by_job.csv`` (model mode): the loss over the number of completed jobs."""
        return self._table("curves_by_job")

    @property
    def speedups(self) -> pd.DataFrame:
        """``speedups.csv`` (model mode): one row per (policy, θ)."""
        return self._table("speedups")

    @property
    def speedups_up_to(self) -> pd.DataFrame:
        """``speedups_up_to.csv`` (model mode): the largest speedup over a dense θ range."""
        return self._table("speedups_up_to")

    @property
    def regret(self) -> pd.DataFrame:
        """``regret.csv`` (model mode): cumulative regret per policy and its ratio to the baseline."""
        return self._table("regret")

    @property
    def tenants(self) -> pd.DataFrame:
        """``tenants.csv`` (model mode): one row per (policy, repetition, tenant)."""
        return self._table("tenants")

    @property
    def shares(self) -> pd.DataFrame:
        """``shares.csv`` (shared mode): ``policy,rep,time_s,workload,gpus``,
        one row per change: from ``time_s`` on, ``workload`` (``service`` or
        ``background``) holds ``gpus`` GPUs, until its next row of the same
        (policy, rep)."""
        return self._table("shares")

    @property
    def steps(self) -> pd.DataFrame:
        """``steps.csv`` (a shared run's ``workflows/``): one row per step and run."""
        return self._table("steps")

    @property
    def per_workflow(self) -> pd.DataFrame:
        """``workflows.csv`` (a shared run's ``workflows/``): one row per
        workflow and run (also ``tables["workflows"]``; the attribute
        ``workflows`` is the shared result's workload)."""
        return self._table("workflows")

    @property
    def users(self) -> pd.DataFrame:
        """``users.csv`` (job mode): one row per (policy, repetition, user)."""
        return self._table("users")

    @property
    def utilization(self) -> pd.DataFrame:
        """``utilization.csv`` (job mode): GPUs held over time."""
        return self._table("utilization")

    def __repr__(self) -> str:
        where = "not kept" if self.out is None else str(self.out)
        name = self.json.get("scenario", "?")
        if self.sweep is not None:
            return (
                f"<tenantsim.Results sweep {name!r} ({self.mode} mode): "
                f"{len(self.points)} point(s), results {where}>"
            )
        tables = ", ".join(f"{k} ({len(v)} rows)" for k, v in self._tables.items())
        if self.mode == "shared":
            tables += "".join(
                f"; {w}/ ({getattr(self, w).mode} mode)"
                for w in ("service", "background", "workflows")
                if getattr(self, w) is not None
            )
        return f"<tenantsim.Results {name!r} ({self.mode} mode), results {where}: {tables}>"


def read_results(folder: Path, doc: Dict[str, Any], out: Optional[Path]) -> Results:
    """The :class:`Results` of the folder ``folder`` that ``run`` just wrote,
    with ``doc`` its ``--json`` document; ``out`` is what ``Results.out``
    reports (``None`` for a temporary folder)."""
    mode = doc["mode"]
    if "sweep" in doc:
        points = []
        for entry in doc["sweep"]:
            name = entry["folder"]
            point_out = None if out is None else out / name
            sub = dict(entry)
            sub.setdefault("mode", mode)
            sub.setdefault("scenario", doc.get("scenario"))
            r = _read_single(folder / name, sub, point_out)
            r.point = {"index": entry["index"], "folder": name, "values": entry["values"]}
            points.append(r)
        return Results(
            mode=mode,
            out=out,
            json=doc,
            manifest=None,
            tables={},
            sweep=read_table(folder / "sweep.csv", keep=_swept_keys(doc), mode=mode),
            points=points,
        )
    return _read_single(folder, doc, out)


def _swept_keys(doc: Dict[str, Any]) -> List[str]:
    """The swept keys of a sweep's ``--json`` document (``sweep.csv`` has a
    column for each)."""
    keys: List[str] = []
    for entry in doc["sweep"]:
        keys.extend(k for k in entry.get("values", {}) if k not in keys)
    return keys


def _read_single(folder: Path, doc: Dict[str, Any], out: Optional[Path]) -> Results:
    mode = doc["mode"]
    if mode == "shared":
        return _read_shared(folder, doc, out)
    names = JOB_TABLES if mode == "jobs" else MODEL_TABLES
    tables = {n: read_table(folder / f"{n}.csv", mode=mode) for n in names}
    with open(folder / "run.json", encoding="utf-8") as f:
        manifest = json.load(f)
    return Results(mode=mode, out=out, json=doc, manifest=manifest, tables=tables)


# A shared folder's workloads: (attribute and folder, mode).
_WORKLOADS = (("service", "models"), ("background", "jobs"))


def _read_shared(folder: Path, doc: Dict[str, Any], out: Optional[Path]) -> Results:
    """A shared results folder: ``shares.csv`` and each workload's folder
    (``service/``, ``background/``) read as its mode's results, with its
    entry of ``doc`` as its ``json``."""
    workloads: Dict[str, Optional[Results]] = {}
    for name, mode in _WORKLOADS:
        sub = folder / name
        if not (sub / "run.json").is_file():
            workloads[name] = None
            continue
        entry = dict(doc.get(name) or {})
        entry["mode"] = mode
        entry.setdefault("scenario", doc.get("scenario"))
        workloads[name] = _read_single(sub, entry, None if out is None else out / name)
    tables = {n: read_table(folder / f"{n}.csv", mode="shared") for n in SHARED_TABLES}
    with open(folder / "run.json", encoding="utf-8") as f:
        manifest = json.load(f)
    return Results(
        mode="shared",
        out=out,
        json=doc,
        manifest=manifest,
        tables=tables,
        service=workloads["service"],
        background=workloads["background"],
        workflows=_read_workflows(folder / "workflows", doc, out, manifest),
    )


def _read_workflows(
    sub: Path, doc: Dict[str, Any], out: Optional[Path], manifest: Dict[str, Any]
) -> Optional[Results]:
    """The ``workflows/`` folder of a shared results folder (``None``
    without one): its tables (``steps`` and ``jobs`` when written), the
    ``--json`` document's ``workflows`` entry as ``json``, the shared
    ``run.json`` as ``manifest``."""
    if not (sub / "workflows.csv").is_file():
        return None
    tables = {
        n: read_table(sub / f"{n}.csv", mode="workflows")
        for n in WORKFLOW_TABLES
        if (sub / f"{n}.csv").is_file()
    }
    entry = dict(doc.get("workflows") or {})
    entry["mode"] = "workflows"
    entry.setdefault("scenario", doc.get("scenario"))
    return Results(
        mode="workflows",
        out=None if out is None else out / "workflows",
        json=entry,
        manifest=manifest,
        tables=tables,
    )
