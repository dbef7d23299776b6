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
from window_env import check_fork_continues, drive  # noqa: E402

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
    check_fork_continues(env, 3, in_tmp, without_manifest)


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
    # A shared scenario is not a job-mode one (tenantsim.gym.make gives
    # it its own environment: test_gym_shared.py).
    with pytest.raises(tenantsim.UsageError, match='mode = "jobs"'):
        tenantsim._tenantsim.JobGymCore(str(SCENARIOS / "shared-quickstart.toml"))


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


# -- action="start-or-preempt" (DESIGN §15.5) ---------------------------------


def drive_windows(env, info):
    """Step ``env`` to its end by ``env.step(info["policy_action"])`` alone
    (every scheduler choice must fit the windows); the return, the number
    of preemptions taken from the running window, and the transitions."""
    w = env.unwrapped.window
    total, preempts, trail, done = 0.0, 0, [], False
    while not done:
        a = info["policy_action"]
        assert a >= 0, f"the scheduler's choice {info['policy_choice']} is outside the windows"
        preempts += int(w <= a < 2 * w)
        obs, r, done, trunc, info = env.step(a)
        assert not trunc
        total += r
        trail.append((obs.copy(), r, done))
    return total, preempts, trail


def test_start_or_preempt_spaces_and_check_env():
    env = tg.make(JOBS, window=3, action="start-or-preempt")
    assert env.action_space == gymnasium.spaces.Discrete(7)
    assert env.observation_space.shape == (3 * 5 + 3 * 5 + 4,)
    assert env.unwrapped.end_action == 6
    assert env.unwrapped.running_features == [
        "present",
        "gpus_frac",
        "age_h",
        "attained_h",
        "remaining_h",
    ]
    # The default kind keeps its observation: waiting slots and globals.
    default = tg.make(JOBS, window=3)
    obs_d, info_d = default.reset(seed=0)
    obs_p, info_p = env.reset(seed=0)
    assert np.array_equal(obs_d[:15], obs_p[:15]) and np.array_equal(obs_d[15:], obs_p[30:])
    assert info_d["action_mask"].tolist() == [1, 0, 0, 1]
    assert info_p["action_mask"].tolist() == [1, 0, 0, 0, 0, 0, 1]
    # After j0 (2 GPUs) starts it is in running slot 0.
    obs, _, _, _, info = env.step(info_p["policy_action"])
    while env.unwrapped.observation()[-1] == 0.0:
        obs, _, _, _, info = env.step(info["policy_action"])
    assert obs[15] == 1.0 and obs[16] == 1.0  # present, both GPUs
    assert info["action_mask"][3] == 1 and info["action_mask"][4] == 0
    # check_env steps one action it draws unseeded at the first decision,
    # where nothing runs yet (no pass has started a job): the running slot
    # (action 1 of 3) is then empty and refused, as documented. The action
    # space is seeded so that draw is reproducible, and it is checked to
    # be an allowed one (its seeded draw, 123, is action 0: allowed too).
    small = tg.make(JOBS, window=1, action="start-or-preempt")
    _, first = small.reset(seed=0)
    small.action_space.seed(0)
    probe = gymnasium.spaces.Discrete(3)
    probe.seed(0)
    assert first["action_mask"][probe.sample()] == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(small.unwrapped)
    with pytest.raises(tenantsim.UsageError, match=r'action="preempt": expected "start" or'):
        tg.make(JOBS, action="preempt")


@pytest.mark.parametrize("policy", ["srtf", "las"])
def test_start_or_preempt_policy_actions_replay_the_run(in_tmp, policy):
    alone = jobs_dict(policy)
    tenantsim.run(alone, out=in_tmp / "run")
    env = tg.make(alone, action="start-or-preempt")
    _, info = env.reset(seed=0)
    total, _, trail = drive_windows(env, info)
    r = env.unwrapped.results(out=in_tmp / "episode")
    ran, stepped = without_manifest(in_tmp / "run"), without_manifest(in_tmp / "episode")
    assert sorted(ran) == sorted(stepped) and "jobs.csv" in ran
    for name in ran:
        assert ran[name] == stepped[name], name
    assert int(r.summary["preemptions"].iloc[0]) > 0
    jobs = r.jobs
    jct_h = float(np.sum(np.asarray(jobs["end_s"]) - np.asarray(jobs["submit_s"]))) / 3600
    assert total == pytest.approx(-jct_h, rel=1e-12)


def test_start_or_preempt_replays_max_min_fairness_rounds(in_tmp):
    # gavel-v100-32-rounds' max-min-fairness preempts jobs on their own at
    # round boundaries (a preemption action, no start): those come as
    # running-window actions. The 500-job trace cut to its first 120 jobs;
    # a window of 64 holds every waiting and running job it has.
    path = SCENARIOS / "gavel-v100-32-rounds.toml"
    doc = load(path)
    trace = (path.parent / doc["jobs"]["path"]).resolve()
    lines = trace.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = in_tmp / "trace.csv"
    cut.write_text("".join(lines[:121]), encoding="utf-8")
    doc["jobs"]["path"] = str(cut)
    doc["policy"] = [p for p in doc["policy"] if p["name"] == "max-min-fairness"]
    doc["output"] = {"plots": False}
    doc["repetitions"] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tenantsim.run(doc, out=in_tmp / "run")
        env = tg.make(doc, window=64, action="start-or-preempt")
    _, info = env.reset(seed=0)
    total, preempts, trail = drive_windows(env, info)
    assert preempts > 0
    env.unwrapped.results(out=in_tmp / "episode")
    ran, stepped = without_manifest(in_tmp / "run"), without_manifest(in_tmp / "episode")
    assert sorted(ran) == sorted(stepped)
    for k in ran:
        assert ran[k] == stepped[k], k


def test_an_invalid_preemption_raises_and_changes_nothing():
    reference = tg.make(jobs_dict("srtf"), window=4, action="start-or-preempt")
    _, info = reference.reset(seed=0)
    _, _, expected = drive_windows(reference, info)
    env = tg.make(jobs_dict("srtf"), window=4, action="start-or-preempt")
    _, info = env.reset(seed=0)
    # Nothing runs at the first decision: every running slot is empty.
    obs0 = env.unwrapped.observation().copy()
    with pytest.raises(tg.InvalidActionError, match=r"action 4: running slot 0 is empty \(0 job"):
        env.step(4)
    msg = (
        r"action 9 is out of range: allowed are 0 to 3 \(a waiting slot: start\), "
        r"4 to 7 \(a running slot: preempt\) and 8 \(end the pass\)"
    )
    with pytest.raises(tg.InvalidActionError, match=msg):
        env.step(9)
    assert np.array_equal(env.unwrapped.observation(), obs0)
    assert env.unwrapped._core.steps == 0
    # Once a job runs, a preemption of an empty running slot is refused too.
    trail = []
    while env.unwrapped.observation()[-1] == 0.0:
        obs, r, done, _, info = env.step(info["policy_action"])
        trail.append((obs.copy(), r, done))
    running = int(env.unwrapped.observation()[-1])
    before = env.unwrapped.observation().copy()
    with pytest.raises(tg.InvalidActionError, match=rf"running slot {running} is empty"):
        env.step(4 + running)
    assert np.array_equal(env.unwrapped.observation(), before)
    # Still the policy's run, step for step.
    _, _, rest = drive_windows(env, info)
    trail += rest
    assert len(trail) == len(expected)
    for (o1, r1, d1), (o2, r2, d2) in zip(trail, expected):
        assert np.array_equal(o1, o2) and r1 == r2 and d1 == d2


def test_a_preemption_from_the_running_window_is_a_deviation():
    # fifo: j0 starts at t = 0; preempting it from running slot 0 detaches
    # the scheduler, as the raw ("preempt", 0) does (the test above).
    env = tg.make(jobs_dict("fifo"), window=4, action="start-or-preempt")
    _, info = env.reset(seed=0)
    _, _, _, _, info = env.step(info["policy_action"])
    assert info["action_mask"][4] == 1
    raw = env.unwrapped.fork()
    obs, r, done, _, info = env.step(4)
    raw_obs, raw_r, _, _, raw_info = raw.step_choice(("preempt", 0))
    assert info["policy_choice"] is None and info["policy_action"] == -1
    assert np.array_equal(obs, raw_obs) and r == raw_r
    assert obs[20] == 0.0  # running slot 0 is empty now


# -- the vector environment (make_vec on a job scenario) ----------------------


def _single_step(env, a):
    obs, r, done, _, info = env.step(int(a))
    return obs, r, done, info


@pytest.mark.parametrize("action", ["start", "start-or-preempt"])
def test_job_vector_env_is_k_single_envs_stepped_alike(action):
    # Sub-environments 0 and 2 follow the scheduler (srtf; the end action
    # where the windows cannot say its choice), 1 starts the last startable
    # job of its window (a deviation) or ends the pass. Next-step auto-reset: the call after an
    # episode's end starts repetition rep + K, action ignored, reward 0.
    doc, k_envs = jobs_dict("srtf"), 3
    vec = tg.make_vec(doc, k_envs, window=4, action=action)
    assert isinstance(vec, tg.TenantsimJobVecEnv)
    assert vec.single_action_space == tg.make(doc, window=4, action=action).action_space
    singles = [tg.make(doc, window=4, action=action) for _ in range(k_envs)]
    obs, infos = vec.reset(seed=5)
    assert vec.repetitions == [5, 6, 7]
    single = [env.reset(seed=5 + k) for k, env in enumerate(singles)]
    for k in range(k_envs):
        assert np.array_equal(obs[k], single[k][0])
        assert infos["policy_action"][k] == single[k][1]["policy_action"]
        assert np.array_equal(infos["action_mask"][k], single[k][1]["action_mask"])
    reset_next = [False] * k_envs
    infos_k = [s[1] for s in single]
    ended = [0] * k_envs
    steps = 0
    while min(ended) < 1 or steps < 60:
        steps += 1
        assert steps < 2000
        actions = np.zeros(k_envs, dtype=np.int64)
        for k in range(k_envs):
            mask = infos["action_mask"][k]
            if k == 1:
                starts = np.flatnonzero(mask[:4])
                actions[k] = int(starts[-1]) if len(starts) else len(mask) - 1
            else:
                a = infos["policy_action"][k]
                actions[k] = a if a >= 0 else len(mask) - 1
        obs, rew, term, trunc, infos = vec.step(actions)
        assert not trunc.any()
        for k, env in enumerate(singles):
            if reset_next[k]:
                o, i = env.reset(seed=env.unwrapped.repetition + k_envs)
                r, d = 0.0, False
                reset_next[k] = False
            else:
                o, r, d, i = _single_step(env, actions[k])
            assert np.array_equal(obs[k], o), (steps, k)
            assert rew[k] == r and bool(term[k]) == d
            assert infos["policy_action"][k] == i["policy_action"]
            assert np.array_equal(infos["action_mask"][k], i["action_mask"])
            if d:
                reset_next[k] = True
                ended[k] += 1
    assert vec.repetitions[0] >= 5 + k_envs  # sub-environment 0 auto-reset


def test_job_vector_env_invalid_action_raises_and_changes_nothing():
    doc = jobs_dict("srtf")
    a = tg.make_vec(doc, 2, window=4, action="start-or-preempt")
    b = tg.make_vec(doc, 2, window=4, action="start-or-preempt")
    _, ia = a.reset(seed=0)
    _, ib = b.reset(seed=0)
    good = ia["policy_action"].copy()
    # Sub-environment 1 preempts from an empty running slot (nothing runs
    # at t = 0); sub-environment 0's valid action is not taken either.
    with pytest.raises(tg.InvalidActionError, match=r"environment 1: action 4: running slot 0 is empty"):
        a.step(np.array([good[0], 4]))
    with pytest.raises(tg.InvalidActionError, match=r"environment 0: action 9 is out of range"):
        a.step(np.array([9, good[1]]))
    for _ in range(25):
        acts = ia["policy_action"].copy()
        acts[acts < 0] = 8
        oa, ra, ta, _, ia = a.step(acts)
        ob, rb, tb, _, ib = b.step(acts)
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(ta, tb)
        assert np.array_equal(ia["policy_action"], ib["policy_action"])
    with pytest.raises(tenantsim.UsageError, match="num_envs"):
        tg.make_vec(doc, 0)
