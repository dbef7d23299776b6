"""Scenarios given as dicts: written as TOML into a temporary folder; and
scenario files read into such dicts (:func:`load_scenario`)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

from . import _tenantsim

# Scenario keys (dotted, as in `[sweep]`) whose values are file paths. A
# scenario file resolves them against its own folder; a dict scenario has
# no folder of its own, so relative ones are made absolute against the
# current working directory before the TOML is written.
PATH_KEYS = (
    "trace.path",
    "trace.import.inputs",
    "trace.import.runtime_matrix",
    "trace.import.row_labels",
    "trace.import.col_labels",
    "trace.import.model_metadata",
    "arrivals.path",
    "jobs.path",
    "jobs.speeds",
    "cluster.node_list",
    # A shared scenario's service (``mode = "shared"``): model mode's
    # [trace] and [arrivals] under [service].
    "service.trace.path",
    "service.trace.import.inputs",
    "service.trace.import.runtime_matrix",
    "service.trace.import.row_labels",
    "service.trace.import.col_labels",
    "service.trace.import.model_metadata",
    "service.arrivals.path",
    # A shared scenario's workflows (docs/DESIGN.md §14): the workflow trace.
    "workflows.path",
)


def _absolute(value: Any, cwd: Path) -> Any:
    """``value`` (a path or a list of paths) with relative paths joined to ``cwd``."""
    if isinstance(value, (list, tuple)):
        return [_absolute(v, cwd) for v in value]
    if isinstance(value, (str, os.PathLike)):
        p = Path(value)
        return str(p if p.is_absolute() else cwd / p)
    return value  # not a path: the scenario loader reports it


def _plain(value: Any) -> Any:
    """``value`` with path objects as strings and tuples as lists (JSON-ready)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def resolve_paths(scenario: Mapping[str, Any], cwd: Path) -> Dict[str, Any]:
    """A copy of ``scenario`` whose relative file paths (:data:`PATH_KEYS`,
    also as swept values under ``sweep``) are absolute against ``cwd``."""
    # New containers all the way down: the caller's dict is never changed.
    doc: Dict[str, Any] = _plain(scenario)
    for key in PATH_KEYS:
        *parents, leaf = key.split(".")
        table: Any = doc
        for p in parents:
            table = table.get(p) if isinstance(table, dict) else None
        if isinstance(table, dict) and leaf in table:
            table[leaf] = _absolute(table[leaf], cwd)
    sweep = doc.get("sweep")
    if isinstance(sweep, dict):
        for key in PATH_KEYS:
            if isinstance(sweep.get(key), list):
                sweep[key] = [_absolute(v, cwd) for v in sweep[key]]
    return doc


def write_scenario(scenario: Mapping[str, Any], folder: Path) -> Path:
    """Write the dict ``scenario`` as ``folder/scenario.toml`` (paths resolved
    against the current directory) and return its path."""
    doc = resolve_paths(scenario, Path.cwd())
    try:
        text = json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise _tenantsim.InputError(f"scenario dict: not representable as TOML: {e}") from None
    toml = _tenantsim.scenario_toml(text)
    path = folder / "scenario.toml"
    path.write_text(toml, encoding="utf-8")
    return path


class ScenarioDict(dict):
    """A scenario read by :func:`load_scenario`: a plain ``dict`` (edit it,
    copy it, pass it to :func:`tenantsim.run`) that remembers the file it
    came from in :attr:`source`, so errors name that file rather than the
    temporary one a dict is written to."""

    source: Optional[Path] = None


def _parse_toml(text: str, path: Path) -> Dict[str, Any]:
    try:
        import tomllib  # Python 3.11+
    except ModuleNotFoundError:  # pragma: no cover - Python 3.9 and 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _tenantsim.InputError(f"{path}: not valid TOML: {e}") from None


def load_scenario(path: "os.PathLike[str] | str") -> ScenarioDict:
    """Read the scenario file ``path`` into a dict with the TOML file's
    structure, every relative file path (:data:`PATH_KEYS`, also as swept
    values) already made absolute against the file's folder, as ``tenantsim
    run`` resolves them. Edit the dict and pass it to :func:`tenantsim.run`:
    it runs wherever the working directory is, and errors name ``path``.

    Raises:
        InputError: the file cannot be read or is not valid TOML (the
            scenario's keys are checked when it runs, or by
            :func:`tenantsim.validate` on the file).
    """
    p = Path(os.fspath(path))
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise _tenantsim.InputError(f"cannot read scenario {p}: {e}") from None
    folder = p.resolve().parent
    doc = ScenarioDict(resolve_paths(_parse_toml(text, p), folder))
    doc.source = p
    return doc


def dict_label(scenario: Mapping[str, Any]) -> str:
    """How error messages name a dict scenario: the file it was loaded from,
    or "scenario dict"."""
    source = getattr(scenario, "source", None)
    if source is not None:
        return f"scenario dict loaded from {source}"
    return "scenario dict"
