"""Shared scenarios (``mode = "shared"``, docs/DESIGN.md §13) from Python:
a Python ``Scheduler`` as the model-selection service's policy and a
Python ``JobScheduler`` as the cluster scheduler, checked file for file
against the built-in policies they reimplement; and the shared results
folder as :class:`tenantsim.Results` (``service``, ``background``,
``shares``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import tenantsim
from conftest import REPO, TRACES
from test_policies import PyFifo, PyInOrder, PyRoundRobin

# A small background: 8 jobs of 1 to 4 GPUs over the first 20 s, with
# durations of the order of the LCDB service's runtimes (seconds), so both
# workloads compete for the 4-GPU cluster.
BACKGROUND = """job_id,user,submit_s,duration_s,gpus
b0,prod,0,30,2
b1,prod,1,5,1
b2,research,2,12,4
b3,prod,4,3,1
b4,research,6,8,2
b5,prod,9,20,1
b6,research,15,2,3
b7,prod,20,6,2
"""

POLICIES = {"py-rr": PyRoundRobin, "py-in-order": PyInOrder, "py-fifo": PyFifo}


@pytest.fixture
def background(tmp_path) -> Path:
    path = tmp_path / "background.csv"
    path.write_text(BACKGROUND, encoding="utf-8")
    return path


def shared(
    background: Path | None,
    *,
    scheduler: str | None = "round-robin",
    selector: str = "random",
    cluster_scheduler: str | None = None,
    priority: str = "equal",
    service: bool = True,
    reps: int = 3,
) -> dict:
    """A shared scenario: the bundled LCDB trace as the service (4 of its
    users drawn as tenants per repetition, up to 3 of the 4 GPUs) and
    ``background`` (if given) as the background workload."""
    s: dict = {
        "mode": "shared",
        "name": "py-shared",
        "seed": 29,
        "repetitions": reps,
        "thresholds": [0.05, 0.02],
        "fairness": False,
        "output": {"plots": False},
        "cluster": {
            "nodes": 1,
            "gpus_per_node": 4,
            "restart_overhead_s": 0.5,
            "scheduler": "fifo",
        },
    }
    policy: dict = {"name": "p"}
    if service:
        s["service"] = {
            "max_gpus": 3,
            "priority": priority,
            "trace": {"path": str(TRACES / "lcdb.csv")},
            "split": {"tenant_count": 4},
        }
        policy.update(scheduler=scheduler, selector=selector)
    if background is not None:
        s["jobs"] = {"path": str(background)}
    if cluster_scheduler is not None:
        policy["cluster_scheduler"] = cluster_scheduler
    s["policy"] = [policy]
    return s


def csvs(folder: Path) -> dict:
    """Every CSV file under ``folder`` (relative path -> bytes); ``run.json``
    names the scenario's temporary file and its policies, so it is left out."""
    files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.csv"))}
    assert files, f"no CSV files in {folder}"
    return files


def run(scenario: dict, out: Path, **kw) -> tenantsim.Results:
    return tenantsim.run(scenario, out=out, policies=POLICIES, **kw)


def test_python_round_robin_as_the_service_scheduler_gives_the_builtin_service_files(
    background, tmp_path
):
    builtin = run(shared(background, scheduler="round-robin"), tmp_path / "builtin")
    python = run(shared(background, scheduler="py-rr"), tmp_path / "python")
    # Not vacuous: the service ran jobs, some of them beside background jobs.
    assert builtin.mode == python.mode == "shared"
    assert len(python.service.jobs) > 0 and len(python.background.jobs) == 8 * 3
    assert csvs(tmp_path / "builtin") == csvs(tmp_path / "python")


@pytest.mark.parametrize("priority", ["equal", "low"])
def test_python_fifo_as_the_cluster_scheduler_gives_the_builtin_files(
    background, tmp_path, priority
):
    builtin = run(shared(background, cluster_scheduler="fifo", priority=priority), tmp_path / "a")
    python = run(
        shared(background, cluster_scheduler="py-fifo", priority=priority), tmp_path / "b"
    )
    assert len(python.service.jobs) > 0 and len(python.background.jobs) == 8 * 3
    for workload in ("service", "background"):
        assert csvs(tmp_path / "a" / workload) == csvs(tmp_path / "b" / workload), workload
    # Not vacuous: background jobs waited (for the service's too, under equal).
    assert (python.background.summary["mean_queueing_delay_s"] > 0).all()
    assert csvs(tmp_path / "a") == csvs(tmp_path / "b")
    pd.testing.assert_frame_equal(builtin.shares, python.shares)


def test_python_service_policies_and_python_cluster_scheduler_together_give_the_builtin_files(
    background, tmp_path
):
    builtin = shared(
        background, scheduler="round-robin", selector="in-order", cluster_scheduler="fifo"
    )
    run(builtin, tmp_path / "a")
    python = run(
        shared(background, scheduler="py-rr", selector="py-in-order", cluster_scheduler="py-fifo"),
        tmp_path / "b",
    )
    assert python.manifest["mode"] == "shared"
    assert csvs(tmp_path / "a") == csvs(tmp_path / "b")


def test_python_job_scheduler_under_low_priority_leaves_the_background_as_without_the_service(
    background, tmp_path
):
    # DESIGN §13.3: a low-priority service runs only on GPUs no background
    # job waits for, and is preempted when one needs them, so the
    # background's files are those of the cluster without the service.
    # Here the Python scheduler is named by [cluster] scheduler, not by the
    # policy's cluster_scheduler.
    s = shared(background, scheduler="py-rr", priority="low")
    s["cluster"]["scheduler"] = "py-fifo"
    with_service = run(s, tmp_path / "with")
    assert with_service.manifest["policies"][0]["cluster_scheduler"] == "py-fifo"
    alone = run(shared(background, cluster_scheduler="py-fifo", service=False), tmp_path / "alone")
    assert alone.service is None and len(alone.background.jobs) == 8 * 3
    # The service did run, and was preempted by the background at least once.
    jobs = with_service.service.jobs
    assert len(jobs) > 0 and (jobs["completed"] == 0).any()
    assert csvs(tmp_path / "with" / "background") == csvs(tmp_path / "alone" / "background")


@pytest.mark.parametrize("priority", ["equal", "low"])
def test_python_job_scheduler_orders_the_services_jobs_only_under_equal_priority(
    background, priority
):
    # Under `equal` the cluster scheduler orders the service's requests too
    # (DESIGN §13.2): the Python scheduler is asked for a priority of more
    # jobs than the background's 8, with indices after theirs and a user
    # beside the background's two. Under `low` they are hidden from it.
    seen = []

    class Record(tenantsim.JobScheduler):
        def priority(self, job, now_s):
            seen.append((job.index, job.user))
            return job.submit_s

    r = tenantsim.run(
        shared(background, cluster_scheduler="rec", priority=priority, reps=1),
        policies={"rec": Record},
    )
    assert len(r.service.jobs) > 0
    indices = {i for i, _ in seen}
    users = {u for _, u in seen}
    if priority == "equal":
        assert set(range(8)) < indices and min(indices - set(range(8))) == 8
        assert users == {0, 1, 2}
    else:
        assert indices == set(range(8)) and users == {0, 1}


def test_shared_results_expose_the_service_the_background_and_the_shares(background):
    r = tenantsim.run(shared(background, scheduler="py-rr"), policies=POLICIES)
    assert r.mode == "shared" and r.out is None
    assert r.service.mode == "models" and r.background.mode == "jobs"
    assert list(r.service.tables) == list(tenantsim.MODEL_TABLES)
    assert list(r.background.tables) == list(tenantsim.JOB_TABLES)
    assert list(r.tables) == ["shares"]
    # Each workload's json is its entry of the --json document.
    assert r.service.json["policies"] == r.json["service"]["policies"]
    assert r.background.json["policies"] == r.json["background"]["policies"]
    # ... and its manifest its folder's run.json (the service's names its trace).
    assert r.manifest["mode"] == "shared" and "mode" not in r.service.manifest
    assert r.service.manifest["trace"] and r.background.manifest is not None
    # shares.csv, typed: names as text, counts as integers.
    shares = r.shares
    assert list(shares.columns) == ["policy", "rep", "time_s", "workload", "gpus"]
    assert set(shares["workload"]) == {"service", "background"}
    assert shares["rep"].dtype.kind == "i" and shares["gpus"].dtype.kind == "i"
    assert shares["time_s"].dtype.kind == "f"
    assert shares.groupby(["rep", "workload"])["gpus"].max().max() <= 4
    assert shares[shares["workload"] == "service"]["gpus"].max() <= 3
    # The service's jobs.csv has one row per segment (DESIGN §13.5).
    jobs = r.service.jobs
    assert list(jobs.columns)[-4:] == ["segment", "gpus", "overhead_s", "completed"]
    assert jobs["segment"].dtype.kind == "i" and jobs["completed"].dtype.kind == "i"
    # A shared folder has no summary of its own: the message names the
    # workloads' tables.
    with pytest.raises(AttributeError, match=r"\.service\.summary and \.background\.summary"):
        r.summary
    assert "service/ (models mode)" in repr(r)


def test_shared_results_without_a_background(tmp_path):
    r = tenantsim.run(shared(None, scheduler="py-rr"), policies=POLICIES)
    assert r.background is None and r.service is not None
    assert len(r.service.regret) == 1
    with pytest.raises(AttributeError, match=r"see each workload's: \.service\.regret\Z"):
        r.regret


def test_a_shared_sweep_has_a_service_and_a_background_per_point(background, tmp_path):
    s = shared(background, scheduler="py-rr", cluster_scheduler="py-fifo", reps=1)
    s["sweep"] = {"jobs.load": [0.5, 2.0]}
    r = tenantsim.run(s, out=tmp_path / "sweep", policies=POLICIES)
    assert r.mode == "shared" and r.service is None and len(r.points) == 2
    assert list(r.sweep["jobs.load"]) == [0.5, 2.0]
    # The background's figures are appended as background_* columns, typed
    # as job mode's sweep.csv types them.
    assert r.sweep["background_reps"].dtype.kind == "i"
    for point in r.points:
        assert point.service.mode == "models" and point.background.mode == "jobs"
        assert point.out == tmp_path / "sweep" / point.point["folder"]
        assert point.background.out == point.out / "background"
        assert len(point.background.jobs) == 8
    # `load` divides the background's submit times (DESIGN §13.4).
    submits = [0, 1, 2, 4, 6, 9, 15, 20]
    for point, load in zip(r.points, [0.5, 2.0]):
        got = sorted(point.background.jobs["submit_s"])
        assert got == pytest.approx([t / load for t in submits], abs=1e-6)


def test_relative_service_paths_of_a_dict_resolve_against_the_working_directory(monkeypatch):
    monkeypatch.chdir(REPO)
    s = shared(None, scheduler="py-rr", reps=1)
    s["service"]["trace"]["path"] = "traces/lcdb.csv"
    r = tenantsim.run(s, policies=POLICIES)
    assert r.manifest["scenario"]["service"]["trace"]["path"] == str(TRACES / "lcdb.csv")
    loaded = tenantsim.load_scenario(REPO / "scenarios" / "shared-quickstart.toml")
    # A file's paths are made absolute against its folder, as `tenantsim run` reads them.
    assert Path(loaded["service"]["trace"]["path"]).resolve() == TRACES / "lcdb.csv"
    assert Path(loaded["jobs"]["path"]).resolve() == TRACES / "gavel-500.csv"


def test_the_bundled_shared_quickstart_gives_the_same_results_from_its_file_and_as_a_dict():
    path = REPO / "scenarios" / "shared-quickstart.toml"
    assert tenantsim.validate(path).startswith("ok:")
    from_file = tenantsim.run(path, reps=1)
    as_dict = tenantsim.run(tenantsim.load_scenario(path), reps=1)
    assert len(from_file.service.jobs) > 0 and len(from_file.background.jobs) > 0
    for workload in ("service", "background"):
        a, b = getattr(from_file, workload), getattr(as_dict, workload)
        for name, table in a.tables.items():
            pd.testing.assert_frame_equal(table, b.tables[name], obj=f"{workload}/{name}")
    pd.testing.assert_frame_equal(from_file.shares, as_dict.shares)
