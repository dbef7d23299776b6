"""tenantsim.validate, tenantsim.load_trace and errors as exceptions."""

from __future__ import annotations

import subprocess

import pytest

import tenantsim
from conftest import REPO, SCENARIOS, TRACES
from test_run import cli_binary

BAD_TRACE = """user,model,accuracy,runtime_s
u1,m1,0.5,1
u1,m2,not-a-number,2
"""


def write(path, text):
    path.write_text(text)
    return path


def test_package_imports_with_help_and_error_classes():
    assert tenantsim.__version__
    for f in (tenantsim.run, tenantsim.validate, tenantsim.load_trace, tenantsim.Results):
        assert f.__doc__ and len(f.__doc__) > 100, f
    for cls in (tenantsim.InputError, tenantsim.PolicyError, tenantsim.UsageError,
                tenantsim.InterruptedRunError):
        assert issubclass(cls, tenantsim.TenantsimError)
        assert issubclass(cls, Exception)
        assert cls.__module__ == "tenantsim"
    assert tenantsim._tenantsim.__file__.endswith((".so", ".pyd"))


def test_bad_trace_line_is_an_input_error_naming_file_and_line(tmp_path):
    bad = write(tmp_path / "bad.csv", BAD_TRACE)
    for call in (tenantsim.validate, tenantsim.load_trace):
        with pytest.raises(tenantsim.InputError) as e:
            call(bad)
        message = str(e.value)
        assert "bad.csv" in message and "line 3" in message and "accuracy" in message


def test_error_messages_are_the_command_line_s(tmp_path):
    binary = cli_binary()
    bad = write(tmp_path / "bad.csv", BAD_TRACE)
    scenario = write(
        tmp_path / "s.toml",
        'name = "s"\n[trace]\npath = "bad.csv"\n[cluster]\ngpus = 1\n'
        '[[policy]]\nname = "p"\nscheduler = "round-robin"\nselector = "in-order"\n',
    )
    for args, call in (
        (["validate", bad], lambda: tenantsim.validate(bad)),
        (["run", scenario, "--out", tmp_path / "out"], lambda: tenantsim.run(scenario, out=tmp_path / "out")),
    ):
        cli = subprocess.run([binary, *args], capture_output=True, text=True)
        assert cli.returncode == 1
        with pytest.raises(tenantsim.InputError) as e:
            call()
        assert cli.stderr.strip().endswith(f"error: {e.value}")
    assert not (tmp_path / "out").exists()


def test_scenario_errors_name_the_key(tmp_path):
    scenario = write(
        tmp_path / "s.toml",
        'name = "s"\n[trace]\npath = "../hand.csv"\n[cluster]\ngpus = 0\n'
        '[[policy]]\nname = "p"\nscheduler = "round-robin"\nselector = "in-order"\n',
    )
    write(tmp_path.parent / "hand.csv", (TRACES / "hand.csv").read_text())
    with pytest.raises(tenantsim.InputError, match="gpus"):
        tenantsim.validate(scenario)
    with pytest.raises(tenantsim.InputError, match="gpus"):
        tenantsim.run(scenario)
    with pytest.raises(tenantsim.InputError, match="unknown scheduler|scheduler"):
        tenantsim.run({"name": "x", "trace": {"path": str(TRACES / "hand.csv")},
                       "cluster": {"gpus": 1},
                       "policy": [{"name": "p", "scheduler": "no-such", "selector": "in-order"}]})


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(tenantsim.InputError, match="nope.csv"):
        tenantsim.load_trace(tmp_path / "nope.csv")
    with pytest.raises(tenantsim.InputError, match="nope.toml"):
        tenantsim.run(tmp_path / "nope.toml")


def test_validate_describes_traces_and_scenarios():
    text = tenantsim.validate(TRACES / "hand.csv")
    assert text.startswith("ok: trace ") and "3 users × 4 models, 11 of 12 pairs" in text
    text = tenantsim.validate(SCENARIOS / "quickstart.toml")
    assert text.startswith("ok: scenario `quickstart`")
    assert "policy `random-random`: scheduler random, selector random" in text
    text = tenantsim.validate(SCENARIOS / "jobs-quickstart.toml")
    assert text.startswith("ok: job scenario `jobs-quickstart`") and "policy `ftf`" in text
    assert tenantsim.validate(TRACES / "jobs-hand.csv").startswith("ok: job trace ")
    assert "sweeps 6 point(s)" in tenantsim.validate(SCENARIOS / "sweep.toml")


def test_validate_text_is_what_the_command_line_prints():
    binary = cli_binary()
    for path in (TRACES / "hand.csv", SCENARIOS / "sweep.toml", SCENARIOS / "jobs-quickstart.toml"):
        cli = subprocess.run([binary, "validate", path], capture_output=True, text=True, check=True)
        assert cli.stderr == tenantsim.validate(path)


def test_load_trace_model_trace():
    df = tenantsim.load_trace(TRACES / "hand.csv")
    assert df.attrs["kind"] == "models"
    assert list(df.columns) == ["user", "model", "accuracy", "runtime_s", "model_year",
                                "model_citations"]
    assert len(df) == 11  # 11 of 12 pairs available
    row = df[(df["user"] == "u3") & (df["model"] == "deepnet")].iloc[0]
    assert (row["accuracy"], row["runtime_s"]) == (0.95, 10.0)
    # The file's rows, as the simulator reads them.
    import csv
    with open(TRACES / "hand.csv", newline="") as f:
        rows = {(r["user"], r["model"]): float(r["accuracy"]) for r in csv.DictReader(f)}
    assert rows == {(u, m): a for u, m, a in zip(df["user"], df["model"], df["accuracy"])}


def test_load_trace_job_trace():
    df = tenantsim.load_trace(TRACES / "jobs-hand.csv")
    assert df.attrs["kind"] == "jobs"
    assert list(df.columns) == ["job_id", "user", "submit_s", "duration_s", "gpus"]
    assert list(df["job_id"]) == ["j0", "j1", "j2", "j3", "j4"]
    assert list(df["gpus"]) == [2, 1, 1, 2, 1]
    assert list(df["duration_s"]) == [10.0, 2.0, 6.0, 1.0, 3.0]


def test_relative_paths_in_a_scenario_file_resolve_against_its_folder(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    r = tenantsim.run(REPO / "scenarios" / "quickstart.toml", reps=1)
    assert len(r.summary) == 4


def test_load_trace_refuses_a_trace_too_large_for_memory(tmp_path):
    # 200,000 users × 200,000 models, one row each (4.2 MB): dense matrices
    # of 680 GB. It aborted the process on an allocation before the
    # memory of reading a trace was checked.
    rows = "".join(f"u{i},m{i},0.5,1\n" for i in range(200_000))
    sparse = write(tmp_path / "sparse.csv", "user,model,accuracy,runtime_s\n" + rows)
    with pytest.raises(tenantsim.InputError) as e:
        tenantsim.load_trace(sparse)
    assert "needs an estimated" in str(e.value) and "trace matrices" in str(e.value)
