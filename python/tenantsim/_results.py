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
    names is read as a float."""
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
            kinds[c] = "float"
    return kinds


def read_table(
    path: Path, keep: Iterable[str] = (), mode: Optional[str] = None
) -> pd.DataFrame:
    """Read one tenantsim CSV as a DataFrame, its columns typed by the
    file's schema (``tenantsim schema``; ``mode`` ``"models"`` or
    ``"jobs"`` picks the mode's file where both write one of that name).

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

    A sweep (a scenario with ``[sweep]``) has no tables of its own: its
    ``sweep`` attribute is ``sweep.csv`` (one row per point and policy) and
    ``points`` holds one :class:`Results` per grid point, in point order,
    each with ``point`` set to ``{"index", "folder", "values"}``.

    Attributes:
        mode: ``"models"`` or ``"jobs"``.
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
    """

    mode: str
    out: Optional[Path]
    json: Dict[str, Any]
    manifest: Optional[Dict[str, Any]]
    sweep: Optional[pd.DataFrame]
    points: List["Results"]
    point: Optional[Dict[str, Any]]

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
    ) -> None:
        self.mode = mode
        self.out = out
        self.json = json
        self.manifest = manifest
        self._tables = tables
        self.sweep = sweep
        self.points = points or []
        self.point = point

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
    names = JOB_TABLES if mode == "jobs" else MODEL_TABLES
    tables = {n: read_table(folder / f"{n}.csv", mode=mode) for n in names}
    with open(folder / "run.json", encoding="utf-8") as f:
        manifest = json.load(f)
    return Results(mode=mode, out=out, json=doc, manifest=manifest, tables=tables)
