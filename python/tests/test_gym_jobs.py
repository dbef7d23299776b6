"""tenantsim.gym on job-mode scenarios (DESIGN §15.5, "The job-mode
environment"): check_env passes; an episode driven by the scheduler's own
actions is ``tenantsim.run``'s repetition, file for file; the return is
minus the jobs' summed completion times (hours); a bad action raises and
changes nothing; a fork continues identically."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import tenantsim  # noqa: E402
import tenantsim.gym as tg  # noqa: E402
from conftest import SCENARIOS, TRACES, tree  # noqa: E402
from tenantsim._scenario import _parse_toml  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

JOBS = SCENARIOS / "jobs-quickstart.toml"


def load(path) -> dict:
    """A scenario file as a dict (the package's TOML reader: tomllib or,
    before Python 3.11, tomli)."""
    return _parse_toml(path.read_text(encoding="utf-8"), path)


def jobs_dict(policy: str) -> dict:
    """jobs-quickstart.toml with policy ``policy`` alone, its trace path
    absolute, no figures (an episode's folder has none)."""
    doc = load(JOBS)
    doc["jobs"]["path"] = str(TRACES / "jobs-hand.csv")
    doc["policy"] = [p for p in doc["policy"] if p["name"] == policy]
    assert len(doc["policy"]) == 1
    doc["output"] = {"plots": False}
    return doc


def drive(env, info):
    """Step ``env`` to its end with the scheduler's own decisions (through
    ``step_choice`` where the window cannot say them); the return, the
    number of raw choices and the transitions."""
    total, raw, trail, done = 0.0, 0, [], False
    while not done:
        a = info["policy_action"]
        if a >= 0:
            obs, r, done, trunc, info = env.step(a)
        else:
            raw += 1
            obs, r, done, trunc, info = env.unwrapped.step_choice(info["policy_choice"])
        assert not trunc
        total += r
        trail.append((obs.copy(), r, done))
    return total, raw, trail


def without_manifest(folder):
    files = tree(folder)
    files.pop("run.json")
    files.pop(".tenantsim-results", None)
    return files


def test_make_dispatches_job_scenarios_and_check_env_passes():
    env = tg.make(JOBS)
    assert isinstance(env.unwrapped, tg.TenantsimJobEnv)
    assert env.action_space == gymnasium.spaces.Discrete(17)
    assert env.observation_space.shape == (16 * 5 + 4,)
    # check_env steps a random action at the first decision, where one job
    # (j0) waits: with window 1 both actions (start it, end the pass) are
    # allowed; with 16 a sampled empty slot is refused, as documented.
    small = tg.make(JOBS, window=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(small.unwrapped)
    assert small.action_space == gymnasium.spaces.Discrete(2)


@pytest.mark.parametrize("window", [16, 1])
@pytest.mark.parametrize("policy", ["fifo", "fifo-backfill", "sjf", "srtf", "las"])
def test_policy_actions_replay_the_run_byte_for_byte(in_tmp, policy, window):
    alone = jobs_dict(policy)
    tenantsim.run(alone, out=in_tmp / "run")
    env = tg.make(alone, window=window)
    _, info = env.reset(seed=0)
    total, raw, trail = drive(env, info)
    r = env.unwrapped.results(out=in_tmp / "episode")
    ran, stepped = without_manifest(in_tmp / "run"), without_manifest(in_tmp / "episode")
    assert sorted(ran) == sorted(stepped) and "jobs.csv" in ran
    for name in ran:
        assert ran[name] == stepped[name], name
    # The return is minus Σ (end − submit) over jobs.csv, in hours.
    jobs = r.jobs
    jct_h = float(np.sum(np.asarray(jobs["end_s"]) - np.asarray(jobs["submit_s"]))) / 3600
    assert jct_h > 0
    assert total == pytest.approx(-jct_h, rel=1e-12)
    assert env.unwrapped.job_hours == pytest.approx(jct_h, rel=1e-12)
    assert [d for *_, d in trail].count(True) == 1 and trail[-1][2]
    if window == 1 and policy == "sjf":
        # sjf starts a job behind the first waiting one: beyond a window
        # of one, so at least one raw choice was needed.
        assert raw > 0


def test_a_window_of_one_needs_raw_choices_and_a_preemption_is_one():
    # srtf with window 1: its starts of jobs behind the first waiting one
    # are policy_action -1, taken raw (the replay test above shows the
    # result is tenantsim.run's).
    env = tg.make(jobs_dict("srtf"), window=1)
    _, info = env.reset(seed=0)
    _, raw, _ = drive(env, info)
    assert raw > 0
    # fifo: after j0 starts at t = 0 (it holds both GPUs), preempt it raw
    # (a deviation: the scheduler is detached) and end the pass; the driver
    # then starts the first job that fits at each decision. The return is
    # still minus the summed JCTs, and j0, restarted at 1 s, ends at 11 s
    # instead of fifo's 10 s.
    env = tg.make(jobs_dict("fifo"))
    _, info = env.reset(seed=0)
    _, r0, _, _, info = env.step(info["policy_action"])
    assert env.unwrapped.observation()[-1] == 1.0  # one job running
    _, r1, done, _, info = env.unwrapped.step_choice(("preempt", 0))
    assert info["policy_choice"] is None and not done
    # End this pass: j0 waits until the next event (j1's arrival at 1 s).
    _, r2, done, _, info = env.step(env.unwrapped.window)
    total = r0 + r1 + r2
    while not done:
        allowed = np.flatnonzero(info["action_mask"][:-1])
        a = int(allowed[0]) if len(allowed) else env.unwrapped.window
        _, r, done, _, info = env.step(a)
        total += r
    jobs = env.unwrapped.results().jobs
    jct_h = float(np.sum(np.asarray(jobs["end_s"]) - np.asarray(jobs["submit_s"]))) / 3600
    assert total == pytest.approx(-jct_h, rel=1e-12)
    assert float(jobs["end_s"][0]) == 11.0


def test_invalid_actions_raise_and_change_nothing():
    reference = tg.make(JOBS, window=4)
    _, info = reference.reset(seed=0)
    _, _, expected = drive(reference, info)
    env = tg.make(JOBS, window=4)
    _, info = env.reset(seed=0)
    obs0 = env.unwrapped.observation().copy()
    for bad in (5, -1, 100):
        msg = rf"action {bad} is out of range: allowed are 0 to 3 \(a window slot\) and 4"
        with pytest.raises(tg.InvalidActionError, match=msg):
            env.step(bad)
    # At t = 0 one job waits (j0): slots 1..3 are empty.
    assert info["action_mask"].tolist() == [1, 0, 0, 0, 1]
    with pytest.raises(tg.InvalidActionError, match=r"action 2: window slot 2 is empty"):
        env.step(2)
    with pytest.raises(tg.InvalidActionError):
        env.unwrapped.step_choice(("preempt", 0))
    with pytest.raises(tg.InvalidActionError, match="expected"):
        env.unwrapped.step_choice(("launch", 0))
    assert issubclass(tg.InvalidActionError, ValueError)
    assert np.array_equal(env.unwrapped.observation(), obs0)
    # Still usable: the policy's run is the reference's.
    _, _, trail = drive(env, info)
    assert len(trail) == len(expected)
    for (o1, r1, d1), (o2, r2, d2) in zip(trail, expected):
        assert np.array_equal(o1, o2) and r1 == r2 and d1 == d2
    with pytest.raises(tenantsim.UsageError, match="ended"):
        env.step(4)


def test_a_job_that_does_not_fit_is_refused():
    # fifo: j0 (2 GPUs) starts at t = 0 and holds both GPUs; at t = 1 j1
    # (1 GPU) waits and does not fit.
    env = tg.make(jobs_dict("fifo"))
    _, info = env.reset(seed=0)
    while True:
        o = env.unwrapped
        if info["action_mask"][0] == 0 and o.observation()[0] == 1.0:
            break
        _, _, done, _, info = env.step(info["policy_action"])
        assert not done
    with pytest.raises(tg.InvalidActionError, match=r"does not fit now \(0 free\)"):
        env.step(0)


def test_fork_continues_identically(in_tmp):
    env = tg.make(jobs_dict("sjf"), window=2)
    _, info = env.reset(seed=0)
    for _ in range(3):
        if info["policy_action"] >= 0:
            _, _, done, _, info = env.step(info["policy_action"])
        else:
            _, _, done, _, info = env.unwrapped.step_choice(info["policy_choice"])
        assert not done
    fork = env.unwrapped.fork()
    a_total, _, a = drive(env, info)
    b_total, _, b = drive(fork, info)
    assert a_total == b_total and len(a) == len(b) and a
    for (o1, r1, d1), (o2, r2, d2) in zip(a, b):
        assert np.array_equal(o1, o2) and r1 == r2 and d1 == d2
    env.unwrapped.results(out=in_tmp / "a")
    fork.results(out=in_tmp / "b")
    assert without_manifest(in_tmp / "a") == without_manifest(in_tmp / "b")


def test_a_different_choice_changes_the_result():
    # Starting the last waiting job first (a deviation): the scheduler is
    # detached (policy_choice None, policy_action -1) and the driver ends
    # every pass it does not fill.
    env = tg.make(jobs_dict("fifo"))
    _, info = env.reset(seed=0)
    ref = tg.make(jobs_dict("fifo"))
    _, rinfo = ref.reset(seed=0)
    ref_total, _, _ = drive(ref, rinfo)
    total, done = 0.0, False
    while not done:
        mask = info["action_mask"]
        allowed = np.flatnonzero(mask[:-1])
        a = int(allowed[-1]) if len(allowed) else len(mask) - 1
        _, r, done, _, info = env.step(a)
        total += r
    assert info["policy_choice"] is None and info["policy_action"] == -1
    assert total != ref_total
    jobs = env.unwrapped.results().jobs
    jct_h = float(np.sum(np.asarray(jobs["end_s"]) - np.asarray(jobs["submit_s"]))) / 3600
    assert total == pytest.approx(-jct_h, rel=1e-12)


def test_shared_and_bad_options_are_errors():
    with pytest.raises(tenantsim.UsageError, match="window = 0"):
        tg.make(JOBS, window=0)
    with pytest.raises(tenantsim.UsageError, match="no such policy"):
        tg.make(JOBS, policy="nope")
    with pytest.raises(tenantsim.UsageError, match='mode = "shared"'):
        tg.make(SCENARIOS / "shared-quickstart.toml")


@pytest.mark.parametrize("name", ["gavel-16-16-16", "gavel-v100-32-rounds"])
def test_typed_and_rounds_scenarios_replay_byte_for_byte(in_tmp, name):
    # A typed cluster (the scheduler's StartOn) and a round-based one
    # (§11.3), first policy alone, the 500-job gavel trace.
    path = SCENARIOS / f"{name}.toml"
    doc = load(path)
    doc["jobs"]["path"] = str((path.parent / doc["jobs"]["path"]).resolve())
    doc["policy"] = doc["policy"][:1]
    doc["output"] = {"plots": False}
    doc["repetitions"] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tenantsim.run(doc, out=in_tmp / "run")
        env = tg.make(doc)
    _, info = env.reset(seed=0)
    total, _, trail = drive(env, info)
    r = env.unwrapped.results(out=in_tmp / "episode")
    ran, stepped = without_manifest(in_tmp / "run"), without_manifest(in_tmp / "episode")
    assert sorted(ran) == sorted(stepped) and len(trail) > 500
    for k in ran:
        assert ran[k] == stepped[k], k
    jobs = r.jobs
    jct_h = float(np.sum(np.asarray(jobs["end_s"]) - np.asarray(jobs["submit_s"]))) / 3600
    assert total == pytest.approx(-jct_h, rel=1e-9)
