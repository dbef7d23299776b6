"""python/examples/learn_allocator.py (issue 31): a REINFORCE-trained
tenant scheduler on SYN traces, evaluated on LCDB. On a tiny budget: its
baseline rows are tenantsim.run's numbers, its learned rows are the
environment's results, and the same seed gives the same weights and table."""

from __future__ import annotations

import importlib.util
import math
import sys

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import tenantsim  # noqa: E402
from conftest import REPO  # noqa: E402

EXAMPLE = REPO / "python" / "examples" / "learn_allocator.py"
_spec = importlib.util.spec_from_file_location("learn_allocator", EXAMPLE)
la = importlib.util.module_from_spec(_spec)
sys.modules["learn_allocator"] = la  # dataclasses look their module up
_spec.loader.exec_module(la)  # the functions, not main()

REPS = 2


@pytest.fixture(scope="module")
def trained():
    return la.train(seed=3, batches=4, per_batch=2)


@pytest.fixture(scope="module")
def evaluated(trained):
    return la.evaluate(trained.theta, REPS)


def test_training_is_deterministic_in_the_seed_and_moves_the_weights(trained):
    again = la.train(seed=3, batches=4, per_batch=2)
    assert np.array_equal(trained.theta, again.theta)
    assert [r["mean_regret"] for r in trained.log] == [r["mean_regret"] for r in again.log]
    assert trained.batches == 4 and trained.episodes == 8 and trained.steps > 0
    assert not np.array_equal(trained.theta, la.initial_theta())
    other = la.train(seed=4, batches=4, per_batch=2)
    assert not np.array_equal(trained.theta, other.theta)
    # Training saw the four SYN scenarios, never LCDB.
    assert [r["scenario"] for r in trained.log] == [s["name"] for s in la.train_scenarios()]
    assert all("syn" in s["trace"] for s in la.train_scenarios())


def test_baseline_rows_are_tenantsim_runs_numbers(evaluated):
    # An independent run of the unmodified scenario (all five policies).
    r = tenantsim.run(la.EVAL_SCENARIO, reps=REPS)
    rows = {row["policy"]: row for row in evaluated["table"]}
    for policy in la.BASELINES:
        band = r.regret[r.regret["policy"] == policy].iloc[0]
        assert rows[policy]["reps"] == REPS
        assert rows[policy]["mean_regret"] == pytest.approx(band["mean_regret"], rel=1e-12)
        # The t-interval is regret.csv's band.
        assert rows[policy]["ci95"] == pytest.approx(band["ci_high"] - band["mean_regret"], rel=1e-6)
        per_rep = r.summary[r.summary["policy"] == policy].sort_values("rep")
        for rep, ran in zip(per_rep["rep"], per_rep["cumulative_regret"]):
            # Replayed through the environment by info["policy_action"].
            assert la.replayed_regret(policy, int(rep)) == pytest.approx(ran, rel=1e-9)
        theta_cols = [c for c in per_rep.columns if c.startswith("time_to_")]
        assert theta_cols
        for c in theta_cols:
            assert rows[policy]["mean_" + c] == pytest.approx(per_rep[c].mean(), rel=1e-12)
    greedy = rows["ease.ml"]["mean_regret"]
    assert rows["ease.ml"]["ratio_to_easeml"] == 1.0
    assert rows["rr-random"]["ratio_to_easeml"] == pytest.approx(rows["rr-random"]["mean_regret"] / greedy)
    assert rows["ease.ml"]["diff_to_easeml"] == 0.0 and rows["ease.ml"]["diff_ci95"] == 0.0
    # The paired difference: per repetition, the same tenants.
    e = r.summary[r.summary["policy"] == "ease.ml"].sort_values("rep")["cumulative_regret"].to_numpy()
    rr = r.summary[r.summary["policy"] == "rr-random"].sort_values("rep")["cumulative_regret"].to_numpy()
    assert rows["rr-random"]["diff_to_easeml"] == pytest.approx((rr - e).mean(), rel=1e-12)
    assert rows["rr-random"]["diff_ci95"] == pytest.approx(la.ci_half_width(rr - e), rel=1e-12)


def test_learned_return_is_minus_the_cumulative_regret(evaluated):
    returns, rows = evaluated["learned_returns"], evaluated["learned_rows"]
    assert len(returns) == len(rows) == REPS
    assert [int(r["rep"]) for r in rows] == list(range(REPS))
    for ret, row in zip(returns, rows):
        assert row["cumulative_regret"] > 0
        assert ret == pytest.approx(-row["cumulative_regret"], rel=1e-9)
    learned = [row for row in evaluated["table"] if row["policy"] == "learned"][0]
    assert learned["mean_regret"] == pytest.approx(-np.mean(returns), rel=1e-9)


def test_same_theta_same_table(trained, evaluated):
    again = la.evaluate(trained.theta.copy(), REPS)
    assert again["table"] == evaluated["table"]


def test_t_quantiles():
    # Student's t 97.5 % quantiles (standard tables).
    assert la.t_quantile(0.975, 1) == pytest.approx(12.706204736, rel=1e-9)
    assert la.t_quantile(0.975, 29) == pytest.approx(2.045229642, rel=1e-9)
    assert math.isnan(la.ci_half_width(np.array([1.0])))


def test_main_writes_the_csv_and_refuses_bad_options(tmp_path, capsys):
    out = tmp_path / "t.csv"
    la.main(["--batches", "1", "--per-batch", "2", "--reps", "2", "--out", str(out), "--seed", "1"])
    printed = capsys.readouterr().out
    assert "reproduce with --seed 1 --batches 1" in printed
    lines = out.read_text().splitlines()
    assert lines[0].startswith("policy,reps,mean_regret,ci95,ratio_to_easeml,diff_to_easeml,diff_ci95,")
    assert [line.split(",")[0] for line in lines[1:]] == ["rr-random", "rr-gp-ucb-cost", "ease.ml", "learned"]
    for bad, message in (
        (["--batches", "0"], "--batches: expected at least 1"),
        (["--reps", "1"], "--reps: expected at least 2"),
        (["--out", str(tmp_path)], "is a folder"),
        (["--out", str(tmp_path / "no" / "t.csv")], "does not exist"),
        (["--syn-reps", "1"], "--syn-reps: expected 0 or at least 2"),
    ):
        with pytest.raises(SystemExit):
            la.main(bad)
        assert message in capsys.readouterr().err


def test_the_policy_idles_only_when_no_tenant_is_allowed():
    # Idling with nothing running ends the run and truncates the return
    # (the module's doc): the learned policy is work-conserving.
    obs = np.zeros(3 * 9 + 6, dtype=np.float32)
    theta = np.full(la.D, -5.0)
    assert la.greedy_action(theta, obs, np.array([0, 0, 1, 1], dtype=np.uint8)) == 2
    assert la.greedy_action(theta, obs, np.array([0, 0, 0, 1], dtype=np.uint8)) == 3


def test_syn_table_pairs_the_learned_policy_with_greedy(trained):
    rows = la.syn_table(trained.theta, 2, first=50)
    assert [r["scenario"] for r in rows] == [s["name"] for s in la.train_scenarios()]
    import tenantsim.gym as tg

    env = tg.make(la.train_scenarios()[0], policy="ease.ml")
    regrets = []
    for rep in (50, 51):
        _, info = env.reset(seed=rep)
        total, done = 0.0, False
        while not done:
            _, r, done, _, info = env.step(info["policy_action"])
            total += r
        regrets.append(env.unwrapped.results().summary["cumulative_regret"].iloc[0])
    assert rows[0]["easeml_regret"] == pytest.approx(np.mean(regrets), rel=1e-9)
    assert rows[0]["diff"] == pytest.approx(rows[0]["learned_regret"] - rows[0]["easeml_regret"], rel=1e-9, abs=1e-9)
    assert all(r["reps"] == 2 and math.isfinite(r["diff_ci95"]) for r in rows)
