"""The examples in python/examples run (bench_decisions on a small
scenario; it checks that the Python and built-in job logs are equal)."""

from __future__ import annotations

import runpy
import sys

from conftest import REPO

EXAMPLES = REPO / "python" / "examples"


def test_syn_spread_example_reproduces_its_table(capsys):
    runpy.run_path(str(EXAMPLES / "syn_spread.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "syn-high-spread.toml: 30 repetitions, baseline `rr-most-recent`" in out
    for policy in ("rr-most-recent", "rr-random", "rr-gp-ucb", "ease.ml", "rr-cheapest"):
        assert policy in out


def test_bench_decisions_example_runs(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["bench_decisions.py", "--tenants", "200", "--gpus", "4"])
    runpy.run_path(str(EXAMPLES / "bench_decisions.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "built-in round-robin" in out and "Python round-robin" in out
