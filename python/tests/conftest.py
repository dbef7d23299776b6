"""Shared fixtures: the repository root (for the bundled scenarios and
traces) and a working directory of the test's own."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "scenarios"
TRACES = REPO / "traces"


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run the test inside an empty temporary working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def quickstart_dict() -> dict:
    """scenarios/quickstart.toml as a dict, with its trace path relative to
    the repository root (resolved against the working directory)."""
    return {
        "name": "quickstart",
        "seed": 7,
        "repetitions": 10,
        "thresholds": [0.2, 0.1, 0.05],
        "trace": {"path": "traces/hand.csv"},
        "cluster": {"gpus": 2},
        "policy": [
            {"name": "rr-in-order", "scheduler": "round-robin", "selector": "in-order"},
            {"name": "rr-most-recent", "scheduler": "round-robin", "selector": "most-recent"},
            {"name": "rr-most-cited", "scheduler": "round-robin", "selector": "most-cited"},
            {"name": "random-random", "scheduler": "random", "selector": "random"},
        ],
    }


def tree(folder: Path) -> dict:
    """Every file under ``folder`` (relative path -> bytes)."""
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }
