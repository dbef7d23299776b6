"""tenantsim.gym on shared scenarios (DESIGN §15.6, "The shared
environment"): check_env passes; an episode driven by the cluster
scheduler's own actions is ``tenantsim.run``'s repetition, file for file,
for every bundled shared scenario (cut to a test's size); the default
return is minus the service's cumulative regret as ``service/summary.csv``
reports it; a bad action raises and changes nothing; a fork continues
identically."""

from __future__ import annotations

import csv
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import tenantsim  # noqa: E402
import tenantsim.gym as tg  # noqa: E402
from conftest import SCENARIOS, tree  # noqa: E402
from tenantsim._scenario import _parse_toml  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from window_env import check_fork_continues, drive  # noqa: E402

# The bundled shared scenarios (scenarios/shared-*.toml), each with the
# priority and policy its replay test steps; a new one needs an entry.
BUNDLED = {
    "shared-lcdb-gavel-mmf.toml": ("low", 0),
    "shared-lcdb-gavel.toml": ("equal", 0),
    "shared-quickstart.toml": ("low", 1),
    "shared-workflows-quickstart.toml": (None, 2),
}

CUT = 40  # background jobs drawn per repetition at most
HORIZON_S = 12 * 3600.0  # the service's horizon


def cut(name: str, priority, policy: int) -> dict:
    """scenarios/``name`` as a dict cut to a test's size: one repetition,
    no sweep (its first ``jobs.load``), at most CUT background jobs, the
    service's horizon 12 h at ``priority``, policy ``policy`` alone, no
    figures, its paths absolute."""
    path = SCENARIOS / name
    doc = _parse_toml(path.read_text(encoding="utf-8"), path)
    doc["repetitions"] = 1
    sweep = doc.pop("sweep", {})
    if "jobs.load" in sweep:
        doc["jobs"]["load"] = sweep["jobs.load"][0]
    if "jobs" in doc:
        doc["jobs"]["path"] = str((path.parent / doc["jobs"]["path"]).resolve())
        doc["jobs"]["sample"] = min(doc["jobs"].get("sample", CUT), CUT)
    if "service" in doc:
        doc["service"]["priority"] = priority
        t = doc["service"]["trace"]
        t["path"] = str((path.parent / t["path"]).resolve())
        doc["horizon_s"] = HORIZON_S
    if "workflows" in doc:
        w = doc["workflows"]
        w["path"] = str((path.parent / w["path"]).resolve())
    doc["policy"] = [doc["policy"][policy]]
    doc["output"] = {"plots": False}
    return doc


def without_manifest(folder):
    """Every file but the manifests (each workload's ``run.json`` too:
    they record timings) and the results mark."""
    files = tree(folder)
    assert "run.json" in files
    return {
        k: v
        for k, v in files.items()
        if not k.endswith("run.json") and not k.endswith(".tenantsim-results")
    }


def service_regret(folder) -> float:
    with open(folder / "service" / "summary.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1
    return float(rows[0]["cumulative_regret"])


def test_every_bundled_shared_scenario_has_a_replay_test():
    found = sorted(p.name for p in SCENARIOS.glob("shared-*.toml"))
    assert found == sorted(BUNDLED), "a new shared scenario needs its entry in BUNDLED"


def test_make_dispatches_shared_scenarios_and_check_env_passes():
    doc = cut("shared-quickstart.toml", "equal", 0)
    env = tg.make(doc, window=4)
    u = env.unwrapped
    assert isinstance(u, tg.TenantsimSharedEnv)
    assert u.reward_kind == "regret"
    assert env.action_space == gymnasium.spaces.Discrete(5)
    assert u.slot_features[-3:] == ["background", "service", "workflow"]
    assert env.observation_space.shape == (4 * 8 + 4,)
    env.action_space.seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # check_env samples actions: an empty slot is refused, as
        # documented; a window of one keeps every sampled action valid
        # at the first decision when a job waits.
        small = tg.make(doc, window=1)
        small.action_space.seed(0)
        try:
            check_env(small.unwrapped)
        except tg.InvalidActionError:
            pytest.fail("check_env took an action the mask did not allow")
    wf = tg.make(cut("shared-workflows-quickstart.toml", None, 0), window=1)
    assert wf.unwrapped.reward_kind == "sojourn"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(wf.unwrapped)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_policy_actions_replay_the_run_byte_for_byte(in_tmp, name):
    priority, policy = BUNDLED[name]
    doc = cut(name, priority, policy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tenantsim.run(doc, out=in_tmp / "run")
    env = tg.make(doc)
    _, info = env.reset(seed=0)
    total, _, trail = drive(env, info)
    assert trail and [d for *_, d in trail].count(True) == 1
    env.unwrapped.results(out=in_tmp / "episode")
    ran, stepped = without_manifest(in_tmp / "run"), without_manifest(in_tmp / "episode")
    assert sorted(ran) == sorted(stepped)
    for f in ran:
        assert ran[f] == stepped[f], f
    if "service" in doc:
        # The default reward: the return is minus the service's cumulative
        # regret as service/summary.csv reports it (shortest repr: exact).
        r = service_regret(in_tmp / "run")
        assert r > 0
        assert total == -r
        assert env.unwrapped.regret == r
    else:
        # reward "sojourn": minus the job-hours in the system.
        assert total == pytest.approx(-env.unwrapped._core.job_hours, rel=1e-12)
        assert total < 0


@pytest.mark.parametrize("priority", ["low", "equal"])
def test_the_regret_reward_is_paid_as_it_accrues(in_tmp, priority):
    # DESIGN §15.7: reward "regret" pays at each step minus the service's
    # regret accrued since the last step (its tenants arrive at 0 and
    # wait for GPUs, so the loss is positive from the start), the last
    # step the remainder: the return is still minus service/summary.csv's
    # cumulative_regret, bit for bit.
    doc = cut("shared-quickstart.toml", priority, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tenantsim.run(doc, out=in_tmp / "run")
    env = tg.make(doc)
    assert env.unwrapped.reward_kind == "regret"
    _, info = env.reset(seed=0)
    total, _, trail = drive(env, info)
    rewards = [r for _, r, _ in trail]
    assert len(rewards) > 1 and all(r <= 0.0 for r in rewards), rewards
    before_end = [r for r in rewards[:-1] if r < 0.0]
    assert before_end, "no regret paid before the last step"
    r = service_regret(in_tmp / "run")
    assert r > 0 and total == -r and env.unwrapped.regret == r
    # Most of it is paid before the last step (the remainder is the
    # accrual after the service's latest event, and rounding).
    assert -sum(before_end) > 0.5 * r


def test_owners_are_told_in_the_observation():
    # priority equal: the service's requests wait beside background jobs.
    env = tg.make(cut("shared-quickstart.toml", "equal", 0), window=64)
    _, info = env.reset(seed=0)
    u = env.unwrapped
    seen = set()
    done = False
    while not done:
        obs = u.observation()
        for slot, j in enumerate(u._core.waiting()[:64]):
            f = obs[slot * 8 : slot * 8 + 8]
            owner = u.owner(j)
            assert f[0] == 1.0
            assert f[5 + ["background", "service", "workflow"].index(owner)] == 1.0
            assert f[5:].sum() == 1.0
            seen.add(owner)
        a = info["policy_action"]
        if a >= 0:
            _, _, done, _, info = env.step(a)
        else:
            _, _, done, _, info = u.step_choice(info["policy_choice"])
    assert seen == {"background", "service"}


def test_invalid_actions_raise_and_change_nothing():
    doc = cut("shared-quickstart.toml", "equal", 0)
    reference = tg.make(doc, window=4)
    _, info = reference.reset(seed=0)
    _, _, expected = drive(reference, info)
    env = tg.make(doc, window=4)
    _, info = env.reset(seed=0)
    obs0 = env.unwrapped.observation().copy()
    for bad in (5, -1, 100):
        msg = rf"action {bad} is out of range: allowed are 0 to 3 \(a window slot\) and 4"
        with pytest.raises(tg.InvalidActionError, match=msg):
            env.step(bad)
    empty = [a for a in range(4) if info["action_mask"][a] == 0]
    if empty:
        with pytest.raises(tg.InvalidActionError, match=rf"action {empty[0]}: "):
            env.step(empty[0])
    with pytest.raises(tg.InvalidActionError, match="expected"):
        env.unwrapped.step_choice(("launch", 0))
    with pytest.raises(tg.InvalidActionError):
        env.unwrapped.step_choice(("start", 10**9))
    assert np.array_equal(env.unwrapped.observation(), obs0)
    _, _, trail = drive(env, info)
    assert len(trail) == len(expected)
    for (o1, r1, d1), (o2, r2, d2) in zip(trail, expected):
        assert np.array_equal(o1, o2) and r1 == r2 and d1 == d2
    with pytest.raises(tenantsim.UsageError, match="ended"):
        env.step(4)


def test_fork_continues_identically(in_tmp):
    env = tg.make(cut("shared-quickstart.toml", "equal", 1), window=8)
    check_fork_continues(env, 5, in_tmp, without_manifest)


def test_bad_options_are_errors():
    doc = cut("shared-quickstart.toml", "low", 0)
    with pytest.raises(tenantsim.UsageError, match="window = 0"):
        tg.make(doc, window=0)
    with pytest.raises(tenantsim.UsageError, match="no such policy"):
        tg.make(doc, policy="nope")
    with pytest.raises(tenantsim.UsageError, match='reward="nope"'):
        tg.make(doc, reward="nope")
    wf = cut("shared-workflows-quickstart.toml", None, 0)
    with pytest.raises(tenantsim.UsageError, match="no \\[service\\]"):
        tg.make(wf, reward="regret")
    # A sweep needs its point.
    with pytest.raises(tenantsim.UsageError, match=r"point=k \(0 to 9\)"):
        tg.make(SCENARIOS / "shared-lcdb-gavel.toml")
    with pytest.raises(tenantsim.UsageError, match="point=10"):
        tg.make(SCENARIOS / "shared-lcdb-gavel.toml", point=10)
    # A point of the sweep, a policy by name: an episode to its end.
    env = tg.make(SCENARIOS / "shared-lcdb-gavel.toml", point=7, policy="ease.ml")
    assert env.unwrapped.reward_kind == "regret" and env.observation_space.shape == (16 * 8 + 4,)
    _, info = env.reset(seed=0)
    total, _, trail = drive(env, info)
    assert trail[-1][2] and total == -env.unwrapped.regret < 0
    with pytest.raises(tenantsim.UsageError, match="num_envs"):
        tg.make_vec(doc, 0)


def test_make_vec_steps_the_single_environments_episodes():
    # Two sub-environments of shared-quickstart (equal), driven by their
    # policy actions: each one's rewards, observations and terminations
    # are the single environment's of its repetition; the next step
    # after an episode ends starts repetition rep + K (reward 0).
    doc = cut("shared-quickstart.toml", "equal", 0)
    k, w = 2, 64
    venv = tg.make_vec(doc, k, window=w)
    assert isinstance(venv, tg.TenantsimSharedVecEnv)
    assert venv.single_action_space == gymnasium.spaces.Discrete(w + 1)
    obs, infos = venv.reset(seed=0)
    singles = []
    for rep in range(k):
        env = tg.make(doc, window=w)
        o, info = env.reset(seed=rep)
        assert np.array_equal(o, obs[rep])
        total, raw, trail = drive(env, info)
        assert raw == 0, "a window of 64 says every action of these episodes"
        singles.append(trail)
    longest = max(len(t) for t in singles)
    for t in range(longest):
        acts = infos["policy_action"].copy()
        for e in range(k):
            if t < len(singles[e]):
                assert acts[e] >= 0
        # Past its episode a sub-environment ends its passes.
        obs, rew, term, trunc, infos = venv.step(np.where(acts >= 0, acts, w))
        for e in range(k):
            if t < len(singles[e]):
                o, r, d = singles[e][t]
                assert np.array_equal(obs[e], o) and rew[e] == r and bool(term[e]) == d
    last = [e for e in range(k) if len(singles[e]) == longest]
    assert all(venv.repetitions[e] == e for e in last)
    acts = infos["policy_action"]
    obs, rew, term, _, infos = venv.step(np.where(acts >= 0, acts, w))
    for e in last:
        assert venv.repetitions[e] == e + k and rew[e] == 0 and not term[e]
    with pytest.raises(tg.InvalidActionError, match="environment 1: action 99"):
        venv.step(np.array([w, 99]))


def test_bench_gym_example_runs_on_a_shared_scenario(capsys, monkeypatch):
    # docs/PERFORMANCE.md, "The shared environment": bench_gym.py times the
    # window environments of a shared scenario (single, core, vector rows).
    import runpy
    import sys

    from conftest import REPO

    monkeypatch.setattr(
        sys,
        "argv",
        ["bench_gym.py", "--scenario", str(SCENARIOS / "shared-quickstart.toml"),
         "--seconds", "0.05", "--num-envs", "2"],
    )
    runpy.run_path(str(REPO / "python" / "examples" / "bench_gym.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "shared-quickstart.toml, policy rr-random, window 16: observation 132 float32" in out
    for row in ("single, policy actions", "single, core", "vector 2, 1 thread"):
        line = next(l for l in out.splitlines() if l.startswith(row))
        assert int(line.split()[-3]) > 0  # steps taken
