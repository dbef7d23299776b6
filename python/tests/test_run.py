"""tenantsim.run: both modes, sweeps, dict scenarios, results folders."""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pandas as pd
import pytest

import tenantsim
from conftest import REPO, SCENARIOS, quickstart_dict, tree

QUICKSTART = SCENARIOS / "quickstart.toml"
JOBS_QUICKSTART = SCENARIOS / "jobs-quickstart.toml"
SWEEP = SCENARIOS / "sweep.toml"

THETAS = ["0.2", "0.1", "0.05"]  # quickstart.toml's thresholds

# The documented columns (docs/REFERENCE.md "Results folder", docs/DESIGN.md §6, §9.6).
MODEL_COLUMNS = {
    "summary": ["policy", "rep", "tenants", "final_loss", "cumulative_regret"]
    + [f"time_to_{t}_s" for t in THETAS]
    + ["jobs", "gpu_busy_fraction", "end_s", "events", "regret_area_mean", "regret_area_p50",
       "regret_area_p90", "regret_area_max", "jain_index", "abandoned"],
    "tenants": ["policy", "rep", "user", "arrival_s", "regret_area"]
    + [f"time_to_{t}_s" for t in THETAS]
    + ["wait_first_job_s", "longest_gap_s", "jobs", "gpu_s", "isolated_regret_area", "abandoned",
       "budget_exhausted"],
    "curves": ["policy", "time_s", "mean_loss", "ci_low", "ci_high", "reps", "median_loss",
               "q_low", "q_high"],
    "curves_by_job": ["policy", "jobs", "mean_loss", "ci_low", "ci_high", "reps", "median_loss",
                      "q_low", "q_high"],
    "speedups": ["policy", "baseline", "theta", "t_baseline_s", "t_policy_s", "speedup",
                 "median_rep_speedup"],
    "speedups_up_to": ["policy", "baseline", "up_to_speedup", "at_theta", "theta_low",
                       "theta_high", "points"],
    "regret": ["policy", "baseline", "reps", "mean_regret", "ci_low", "ci_high", "median_regret",
               "ratio_to_baseline", "median_rep_ratio"],
    "jobs": ["policy", "rep", "job", "gpu", "user", "model", "start_s", "end_s", "accuracy"],
}
JOB_COLUMNS = {
    "summary": ["policy", "rep", "jobs", "mean_jct_s", "median_jct_s", "p95_jct_s", "p99_jct_s",
                "mean_queueing_delay_s", "makespan_s", "gpu_utilization", "jain_index",
                "preemptions", "events"],
    "users": ["policy", "rep", "user", "jobs", "mean_jct_s", "mean_slowdown", "ftf_rho"],
    "utilization": ["policy", "rep", "time_s", "duration_s", "busy_gpus", "utilization"],
    "jobs": ["policy", "rep", "job_id", "user", "submit_s", "start_s", "end_s", "gpus"],
}


def assert_same_tables(a: tenantsim.Results, b: tenantsim.Results) -> None:
    assert a.tables.keys() == b.tables.keys()
    for name in a.tables:
        pd.testing.assert_frame_equal(a.tables[name], b.tables[name], obj=name)


def cli_binary():
    """The command line to compare with: $TENANTSIM_BIN (set by .ci/run),
    else a release or debug build in the repository's target/."""
    env = os.environ.get("TENANTSIM_BIN")
    if env:
        return Path(env)
    for p in (REPO / "target" / "release" / "tenantsim", REPO / "target" / "debug" / "tenantsim"):
        if p.is_file():
            return p
    pytest.skip("no tenantsim binary: set TENANTSIM_BIN or build the repository")


def test_model_mode_tables_have_the_documented_columns():
    r = tenantsim.run(QUICKSTART)
    assert r.mode == "models" and r.out is None and r.sweep is None and r.points == []
    assert list(r.tables) == list(tenantsim.MODEL_TABLES)
    for name, columns in MODEL_COLUMNS.items():
        assert list(getattr(r, name).columns) == columns, name
    # 4 policies × 10 repetitions; 3 tenants each.
    assert len(r.summary) == 40 and len(r.tenants) == 120
    assert set(r.summary["policy"]) == {"rr-in-order", "rr-most-recent", "rr-most-cited",
                                        "random-random"}
    assert r.summary["final_loss"].dtype == "float64"  # all zeros, still floats
    assert r.tenants["abandoned"].dtype == bool
    assert r.json["mode"] == "models" and r.json["scenario"] == "quickstart"
    assert [p["name"] for p in r.json["policies"]] == list(r.regret["policy"])
    assert r.manifest["tool"] == "tenantsim" and r.manifest["repetitions"] == 10
    with pytest.raises(AttributeError, match="have no `users` table"):
        r.users


def test_job_mode_tables_have_the_documented_columns():
    r = tenantsim.run(JOBS_QUICKSTART)
    assert r.mode == "jobs"
    assert list(r.tables) == list(tenantsim.JOB_TABLES)
    for name, columns in JOB_COLUMNS.items():
        assert list(getattr(r, name).columns) == columns, name
    # 7 policies, 1 repetition, 5 jobs (traces/jobs-hand.csv).
    assert len(r.summary) == 7 and len(r.jobs) == 35
    fifo = r.summary.set_index("policy").loc["fifo"]
    assert fifo["mean_jct_s"] == 13.0  # derived by hand in tests/it/jobs_hand.rs
    with pytest.raises(AttributeError, match="jobs-mode results have no `curves` table"):
        r.curves


def test_inf_and_na_are_read_as_inf_and_nan():
    # A horizon before the first completion: no policy ever reaches a θ.
    s = quickstart_dict()
    s["horizon_s"] = 0.5
    s["trace"]["path"] = str(REPO / "traces" / "hand.csv")
    r = tenantsim.run(s, reps=2)
    assert all(math.isinf(x) for x in r.summary["time_to_0.2_s"])
    assert r.speedups["speedup"].isna().all()  # `n/a`: neither reaches θ
    assert r.summary["time_to_0.2_s"].dtype == "float64"


def test_run_from_a_dict_equals_the_file(monkeypatch):
    monkeypatch.chdir(REPO)  # the dict's trace path is relative to the working directory
    from_file = tenantsim.run(QUICKSTART, threads=1)
    from_dict = tenantsim.run(quickstart_dict(), threads=1)
    assert_same_tables(from_file, from_dict)
    assert from_dict.manifest["scenario"] == from_file.manifest["scenario"] | {
        "trace": from_dict.manifest["scenario"]["trace"]
    }


def test_dict_paths_resolve_against_the_working_directory(in_tmp):
    with pytest.raises(tenantsim.InputError) as e:
        tenantsim.run(quickstart_dict())
    # The trace is looked for under the working directory, not the temp folder.
    assert str(in_tmp / "traces" / "hand.csv") in str(e.value)
    (in_tmp / "traces").mkdir()
    shutil.copy(REPO / "traces" / "hand.csv", in_tmp / "traces" / "hand.csv")
    assert len(tenantsim.run(quickstart_dict(), reps=1).summary) == 4
    assert os.listdir(in_tmp) == ["traces"]  # and nothing else was written there


def test_dict_path_objects_and_swept_paths_are_resolved(monkeypatch):
    monkeypatch.chdir(REPO)
    s = quickstart_dict()
    s["trace"]["path"] = Path("traces") / "hand.csv"
    s["sweep"] = {"trace.path": ["traces/hand.csv", "traces/hand.csv"]}
    before = copy.deepcopy(s)
    r = tenantsim.run(s, reps=1)
    assert s == before  # the caller's dict is left as it was
    assert len(r.points) == 2
    for p in r.points:
        assert Path(p.manifest["scenario"]["trace"]["path"]).is_absolute()


def test_dict_without_a_toml_form_is_an_input_error():
    s = quickstart_dict()
    s["horizon_s"] = None
    with pytest.raises(tenantsim.InputError, match="scenario dict"):
        tenantsim.run(s)
    s["horizon_s"] = float("nan")
    with pytest.raises(tenantsim.InputError, match="scenario dict"):
        tenantsim.run(s)


@pytest.mark.parametrize("scenario", [QUICKSTART, JOBS_QUICKSTART, SWEEP], ids=lambda p: p.stem)
def test_results_do_not_depend_on_threads(scenario):
    one = tenantsim.run(scenario, threads=1)
    two = tenantsim.run(scenario, threads=2)
    assert one.json["threads"] == 1 and two.json["threads"] == 2
    if one.sweep is not None:
        pd.testing.assert_frame_equal(one.sweep, two.sweep)
        assert len(one.points) == len(two.points) > 0
        for a, b in zip(one.points, two.points):
            assert_same_tables(a, b)
    else:
        assert_same_tables(one, two)


def test_sweep_has_sweep_csv_and_one_result_per_point():
    r = tenantsim.run(SWEEP)
    assert r.manifest is None and r.tables == {}
    assert list(r.sweep.columns[:4]) == ["point", "folder", "cluster.gpus", "split.tenant_count"]
    assert len(r.points) == 6 and len(r.sweep) == 6 * 2  # 6 points × 2 policies
    for i, p in enumerate(r.points):
        assert p.point["index"] == i
        rows = r.sweep[r.sweep["point"] == i]
        assert set(rows["folder"]) == {p.point["folder"]}
        assert rows["cluster.gpus"].iloc[0] == p.point["values"]["cluster.gpus"]
        assert p.manifest["sweep_point"]["index"] == i
        # Each point's regret table is what sweep.csv reports for it.
        assert list(rows["regret_mean"]) == list(p.regret["mean_regret"])
        assert len(p.summary) == 2 * 8  # 2 policies × 8 repetitions
    with pytest.raises(AttributeError, match="a sweep has no `summary` table"):
        r.summary


def test_seed_and_reps_override_the_scenario():
    r = tenantsim.run(QUICKSTART, seed=3, reps=2)
    assert r.manifest["seed"] == 3 and r.manifest["repetitions"] == 2
    assert sorted(set(r.summary["rep"])) == [0, 1]


def test_bad_threads_and_reps_are_usage_errors():
    with pytest.raises(tenantsim.UsageError, match="threads"):
        tenantsim.run(QUICKSTART, threads=0)
    with pytest.raises(tenantsim.UsageError, match="reps"):
        tenantsim.run(QUICKSTART, reps=0)




def test_without_out_nothing_is_written(in_tmp, monkeypatch):
    temp = in_tmp / "temp"
    temp.mkdir()
    work = in_tmp / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    r = tenantsim.run(QUICKSTART)
    tenantsim.run(quickstart_dict() | {"trace": {"path": str(REPO / "traces/hand.csv")}})
    tenantsim.run(SWEEP)
    assert r.out is None and len(r.summary) == 40
    assert os.listdir(work) == []  # no results/ folder, unlike the command line's default
    assert os.listdir(temp) == []  # the temporary folders were removed
    # ... and the tables stay usable once their files are gone.
    assert r.regret["mean_regret"].notna().all()


def test_out_writes_the_folder_the_command_line_writes(in_tmp):
    binary = cli_binary()
    r = tenantsim.run(QUICKSTART, out=in_tmp / "py")
    assert r.out == in_tmp / "py"
    subprocess.run(
        [binary, "run", QUICKSTART, "--out", in_tmp / "cli", "--jobs", "--quiet"], check=True
    )
    py, cli = tree(in_tmp / "py"), tree(in_tmp / "cli")
    assert py.keys() == cli.keys()
    assert "summary.csv" in py and "jobs.csv" in py and any(k.startswith("plots/") for k in py)
    for name in py:
        if name != "run.json":
            assert py[name] == cli[name], name
    a, b = json.loads(py["run.json"]), json.loads(cli["run.json"])
    # The binary may have been built at another commit than the package.
    a.pop("git_commit")
    b.pop("git_commit")
    for field in a["varying_fields"]:
        for doc in (a, b):
            *parents, leaf = field.replace("[]", "").split(".")
            tables = [doc]
            for p in parents:
                tables = [
                    x
                    for t in tables
                    for x in (t[p] if isinstance(t[p], list) else [t[p]])
                ]
            for t in tables:
                t.pop(leaf, None)
    assert a == b
    # The tables returned are the files written.
    pd.testing.assert_frame_equal(r.summary, tenantsim.read_table(in_tmp / "py" / "summary.csv"))


def test_out_refuses_a_folder_tenantsim_did_not_write(in_tmp):
    mine = in_tmp / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(tenantsim.InputError) as e:
        tenantsim.run(QUICKSTART, out=mine)
    assert str(mine) in str(e.value)
    assert os.listdir(mine) == ["notes.txt"]
    # A folder tenantsim wrote is replaced.
    tenantsim.run(QUICKSTART, out=in_tmp / "res", reps=1)
    r = tenantsim.run(QUICKSTART, out=in_tmp / "res", reps=2)
    assert len(tenantsim.read_table(in_tmp / "res" / "summary.csv")) == len(r.summary) == 8


def test_load_scenario_gives_absolute_paths_and_runs_from_anywhere(in_tmp):
    # Issue 27: "load a bundled scenario with tomllib, add my policy" failed
    # with an error naming a temporary file.
    s = tenantsim.load_scenario(QUICKSTART)
    assert isinstance(s, dict) and s.source == QUICKSTART
    trace = Path(s["trace"]["path"])  # the file's folder joined to its relative path
    assert trace.is_absolute() and trace.resolve() == (REPO / "traces" / "hand.csv").resolve()
    from_file = tenantsim.run(QUICKSTART, threads=1)
    from_dict = tenantsim.run(s, threads=1)  # the working directory is in_tmp
    assert_same_tables(from_file, from_dict)
    s["policy"].append({"name": "rr-random", "scheduler": "round-robin", "selector": "random"})
    r = tenantsim.run(s, reps=2)
    assert list(r.regret["policy"])[-1] == "rr-random"
    assert os.listdir(in_tmp) == []  # nothing written into the working directory


def test_errors_of_a_dict_scenario_name_the_dict_not_a_temporary_file():
    s = tenantsim.load_scenario(QUICKSTART)
    s["policy"][0]["scheduler"] = "round-robbin"
    with pytest.raises(tenantsim.InputError) as e:
        tenantsim.run(s)
    message = str(e.value)
    assert f"scenario dict loaded from {QUICKSTART}" in message, message
    assert "round-robbin" in message and "tenantsim-" not in message, message
    plain = quickstart_dict()
    plain["policy"][0]["scheduler"] = "round-robbin"
    with pytest.raises(tenantsim.InputError) as e:
        tenantsim.run(plain)
    assert str(e.value).startswith("scenario dict"), str(e.value)
    assert "tenantsim-" not in str(e.value)


def test_load_scenario_of_a_missing_or_broken_file_is_an_input_error(tmp_path):
    with pytest.raises(tenantsim.InputError, match="cannot read scenario"):
        tenantsim.load_scenario(tmp_path / "absent.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = \n", encoding="utf-8")
    with pytest.raises(tenantsim.InputError, match="bad.toml: not valid TOML"):
        tenantsim.load_scenario(bad)
