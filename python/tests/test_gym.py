"""tenantsim.gym (issue 31, docs/DESIGN.md §15.3): the Gymnasium
environments of model mode. An episode driven by ``info["policy_action"]``
is ``tenantsim.run``'s repetition, file for file; the return is minus the
cumulative regret; invalid actions raise and change nothing; forks and the
vector environment continue exactly as single environments do."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import tenantsim  # noqa: E402
import tenantsim.gym as tg  # noqa: E402
from conftest import SCENARIOS, tree  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

QUICKSTART = SCENARIOS / "quickstart.toml"


def one_policy(scenario: dict, policy: str) -> dict:
    """``scenario`` with only ``policy``, one repetition, no figures: what
    an episode's results folder is (``write_episode``)."""
    s = dict(scenario)
    s["policy"] = [p for p in scenario["policy"] if p["name"] == policy]
    assert len(s["policy"]) == 1
    s["repetitions"] = 1
    s.pop("baseline", None)
    s.pop("sweep", None)
    s["output"] = {"plots": False}
    return s


def online_dict() -> dict:
    """A small online scenario (Poisson arrivals after t = 0) on LCDB, a
    cheap selector (a debug build runs it in well under a second)."""
    s = tenantsim.load_scenario(SCENARIOS / "online-lcdb-low-load.toml")
    s["split"]["tenant_count"] = 12
    s["policy"] = [
        {"name": "rr-random", "scheduler": "round-robin", "selector": "random"},
        {"name": "random-in-order", "scheduler": "random", "selector": "in-order"},
    ]
    return s


def drive(env, actions=None):
    """Step ``env`` (reset already) to its end with the policy's actions
    (or ``actions(obs, info)``); the return and the transitions."""
    obs, info = env.last
    total, trail = 0.0, []
    done = False
    while not done:
        a = info["policy_action"] if actions is None else actions(obs, info)
        obs, r, done, trunc, info = env.step(a)
        assert not trunc
        total += r
        trail.append((obs.copy(), r, done))
    return total, trail


def start(env, seed=0):
    env.last = env.reset(seed=seed)
    return env


def results_without_manifest(folder):
    """The files of a results folder but ``run.json`` (it records timings)
    and the marker ``tenantsim run`` leaves to recognise its own folders."""
    files = tree(folder)
    files.pop("run.json")
    files.pop(".tenantsim-results", None)
    return files


@pytest.mark.parametrize("action", ["tenant", "pair"])
def test_check_env_passes(action):
    # quickstart.toml: every tenant arrives at t = 0, so any tenant is
    # eligible at the first decision (DESIGN §15.3). A sampled (tenant,
    # model) pair can still name a model the tenant lacks (its tenant 1 has
    # no model 3), which the env refuses, as documented. check_env samples
    # one action from the unseeded space: the space is seeded, so that
    # draw is the same on every run (regression: the unseeded draw made
    # this test fail in 9 of 200 runs).
    env = tg.make(QUICKSTART, action=action)
    env.unwrapped.action_space.seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    assert isinstance(env.unwrapped, gymnasium.Env)
    assert env.observation_space.shape == (3 * 9 + 6,)


@pytest.mark.parametrize(
    "scenario,policy",
    [
        (tenantsim.load_scenario(QUICKSTART), "rr-most-recent"),
        (tenantsim.load_scenario(QUICKSTART), "random-random"),
        (online_dict(), "random-in-order"),
    ],
)
def test_policy_actions_replay_the_run_byte_for_byte(in_tmp, scenario, policy):
    alone = one_policy(scenario, policy)
    tenantsim.run(alone, out=in_tmp / "run")
    env = start(tg.make(alone))
    total, trail = drive(env)
    r = env.unwrapped.results(out=in_tmp / "episode")
    assert r.out == in_tmp / "episode"
    ran, stepped = results_without_manifest(in_tmp / "run"), results_without_manifest(
        in_tmp / "episode"
    )
    assert sorted(ran) == sorted(stepped)
    for name in ran:
        assert ran[name] == stepped[name], name
    # The return is minus the cumulative regret R(end) of summary.csv
    # (same sum up to rounding: the reward is accrued online, §15.1).
    (cumulative,) = r.summary["cumulative_regret"]
    assert cumulative > 0
    assert total == pytest.approx(-cumulative, rel=1e-9)
    assert env.unwrapped.regret == pytest.approx(cumulative, rel=1e-9)
    # One transition per decision; the last terminates.
    assert [d for *_, d in trail].count(True) == 1 and trail[-1][2]


@pytest.mark.parametrize("scenario", [tenantsim.load_scenario(QUICKSTART), online_dict()])
def test_an_idle_episode_returns_minus_the_stalled_runs_reported_regret(scenario):
    # Regression (EXPERIMENTS §11): idling at every decision stalls the run
    # at its last arrival; its results report R(H) up to the stall horizon
    # (DESIGN §2.6), and the return must be minus that, not minus the
    # smaller R(end) (0 when every tenant arrives at t = 0).
    env = start(tg.make(one_policy(scenario, scenario["policy"][0]["name"])))
    n = env.action_space.n - 1
    total, trail = drive(env, lambda obs, info: n)
    (cumulative,) = env.unwrapped.results().summary["cumulative_regret"]
    assert cumulative > 0
    assert total == pytest.approx(-cumulative, rel=1e-9)
    assert trail[-1][1] < 0, "the last step pays the loss up to the stall horizon"


def test_results_without_out_reads_a_temporary_folder():
    env = start(tg.make(QUICKSTART))
    drive(env)
    r = env.unwrapped.results()
    assert r.out is None
    assert r.mode == "models" and len(r.summary) == 1
    assert r.json["policy"] == "rr-in-order" and r.json["repetition"] == 0


def test_results_before_the_end_and_an_existing_folder_are_errors(in_tmp):
    env = start(tg.make(QUICKSTART))
    with pytest.raises(tenantsim.UsageError, match="has not ended"):
        env.unwrapped.results()
    drive(env)
    (in_tmp / "taken").mkdir()
    with pytest.raises(tenantsim.InputError, match="must not exist"):
        env.unwrapped.results(out=in_tmp / "taken")
    assert list((in_tmp / "taken").iterdir()) == []


def test_invalid_actions_raise_and_change_nothing():
    reference = start(tg.make(QUICKSTART))
    _, expected = drive(reference)
    env = start(tg.make(QUICKSTART))
    obs, info = env.last
    # Out of range (N = 3 tenants, 3 is idle).
    for bad in (4, -1, 100):
        with pytest.raises(tg.InvalidActionError, match=rf"action {bad}: .*allowed now: tenants \[0, 1, 2\] or 3 \(idle\)"):
            env.step(bad)
    assert issubclass(tg.InvalidActionError, ValueError)
    # Tenant 0 takes the first GPU; at the same instant (the second GPU) it
    # is not eligible (one job per tenant at a time).
    obs, r, done, _, info = env.step(0)
    assert info["action_mask"].tolist() == [0, 1, 1, 1]
    with pytest.raises(tg.InvalidActionError, match=r"action 0: tenant 0 is not eligible.*allowed now: tenants \[1, 2\] or 3"):
        env.step(0)
    # Still usable: the rest of the policy's run is the reference's.
    assert info["policy_action"] == 1
    env.last = (obs, info)
    total, rest = drive(env)
    assert len(rest) == len(expected) - 1
    for (o1, r1, d1), (o2, r2, d2) in zip(rest, expected[1:]):
        assert np.array_equal(o1, o2) and r1 == r2 and d1 == d2
    with pytest.raises(tenantsim.UsageError, match="ended"):
        env.step(3)


def test_pair_actions_name_the_model_and_the_selector_choice_replays():
    env = tg.make(QUICKSTART, action="pair")
    k = env.unwrapped.n_models
    assert env.action_space.nvec.tolist() == [4, k + 1]
    obs, info = env.reset(seed=0)
    assert info["policy_action"].tolist() == [0, k]
    assert info["pair_mask"].shape == (3, k + 1)
    # Tenant 1 trains the last model the mask allows it.
    allowed = np.flatnonzero(info["pair_mask"][1, :k])
    model = int(allowed[-1])
    env.step((1, model))
    with pytest.raises(tg.InvalidActionError, match=rf"action \(0, {k + 1}\): the model must be"):
        env.step((0, k + 1))
    # Replaying the rest by the policy ends the episode.
    env.last = (None, env.unwrapped._info(env.unwrapped._core.policy_action()))
    drive(env)
    jobs = env.unwrapped.results().jobs
    first = jobs[jobs["start_s"] == 0.0]
    assert env.unwrapped.model_names[model] in set(first["model"])


def test_reset_seed_is_the_repetition():
    env = tg.make(QUICKSTART)
    env.reset()
    assert env.unwrapped.repetition == 0
    env.reset()
    assert env.unwrapped.repetition == 1
    a, _ = env.reset(seed=5)
    assert env.unwrapped.repetition == 5
    b, _ = env.reset(options={"rep": 5})
    assert np.array_equal(a, b)


def test_fork_continues_identically():
    env = start(tg.make(online_dict()))
    obs, info = env.last
    for _ in range(7):
        obs, r, done, _, info = env.step(info["policy_action"])
    fork = env.unwrapped.fork()
    fork.last = env.last = (obs, info)
    a_total, a = drive(env)
    b_total, b = drive(fork)
    assert a_total == b_total and len(a) == len(b)
    for (o1, r1, d1), (o2, r2, d2) in zip(a, b):
        assert np.array_equal(o1, o2) and r1 == r2 and d1 == d2
    assert results_without_manifest_of(env) == results_without_manifest_of(fork)


def results_without_manifest_of(env):
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        env.unwrapped.results(out=Path(tmp) / "r")
        return results_without_manifest(Path(tmp) / "r")


def test_vector_env_equals_single_envs():
    k_envs = 3
    venv = tg.make_vec(QUICKSTART, k_envs)
    assert isinstance(venv, gymnasium.vector.VectorEnv)
    singles = [tg.make(QUICKSTART) for _ in range(k_envs)]
    vobs, vinfo = venv.reset(seed=10)
    ended = [False] * k_envs
    s_last = []
    for k, env in enumerate(singles):
        o, i = env.reset(seed=10 + k)
        assert np.array_equal(vobs[k], o)
        s_last.append(i)
    resets = 0
    for _ in range(40):  # quickstart episodes are ~13 steps: several resets
        actions = vinfo["policy_action"].copy()
        vobs, vrew, vterm, vtrunc, vinfo = venv.step(actions)
        for k, env in enumerate(singles):
            if ended[k]:
                # Next-step auto-reset: repetition + K.
                o, i = env.reset(seed=env.unwrapped.repetition + k_envs)
                r, d = 0.0, False
                resets += 1
            else:
                o, r, d, _, i = env.step(int(actions[k]))
            assert np.array_equal(vobs[k], o)
            assert vrew[k] == r and vterm[k] == d and not vtrunc[k]
            assert vinfo["policy_action"][k] == i["policy_action"]
            assert np.array_equal(vinfo["action_mask"][k], i["action_mask"])
            ended[k] = d
    assert resets >= k_envs
    assert venv.repetitions == [env.unwrapped.repetition for env in singles]


def test_vector_invalid_action_changes_nothing():
    venv = tg.make_vec(QUICKSTART, 2)
    obs, info = venv.reset(seed=0)
    with pytest.raises(tg.InvalidActionError, match="environment 1: action 9"):
        venv.step(np.array([0, 9]))
    obs2, rew, term, trunc, info2 = venv.step(np.array([0, 0]))
    single = tg.make(QUICKSTART)
    single.reset(seed=1)
    o, r, *_ = single.step(0)
    assert np.array_equal(obs2[1], o) and rew[1] == r


def test_encoder_and_errors():
    space = gymnasium.spaces.Box(0.0, 1.0, shape=(3,), dtype=np.float32)
    env = tg.make(QUICKSTART, encoder=lambda obs, e: obs[1 : 9 * 3 : 9].copy(), observation_space=space)
    obs, _ = env.reset(seed=0)
    assert obs.tolist() == [1.0, 1.0, 1.0]  # every tenant eligible at t = 0
    with pytest.raises(tenantsim.UsageError, match="observation_space"):
        tg.make(QUICKSTART, encoder=lambda o, e: o)
    with pytest.raises(tenantsim.UsageError, match='action: expected "tenant"'):
        tg.make(QUICKSTART, action="job")
    with pytest.raises(tenantsim.UsageError, match="policy=\"nope\": no such policy.*rr-in-order"):
        tg.make(QUICKSTART, policy="nope")
    # make gives job-mode scenarios their own environment (test_gym_jobs.py);
    # the model-mode class itself refuses them.
    with pytest.raises(tenantsim.UsageError, match="model-mode scenarios only"):
        tg.TenantsimEnv(SCENARIOS / "jobs-quickstart.toml")
    with pytest.raises(tenantsim.UsageError, match="num_envs"):
        tg.make_vec(QUICKSTART, 0)


def test_observation_features_are_documented():
    env = tg.make(QUICKSTART).unwrapped
    assert len(env.tenant_features) == 9 and len(env.global_features) == 6
    obs, _ = env.reset(seed=0)
    g = dict(zip(env.global_features, obs[-6:]))
    assert g["free_gpus"] == 2 and g["free_gpu_fraction"] == 1.0 and g["arrived_fraction"] == 1.0
    t0 = dict(zip(env.tenant_features, obs[:9]))
    assert t0["arrived"] == 1 and t0["eligible"] == 1 and t0["running"] == 0


def test_bench_gym_example_runs(capsys, monkeypatch):
    import runpy
    import sys

    from conftest import REPO

    monkeypatch.setattr(
        sys,
        "argv",
        ["bench_gym.py", "--scenario", str(QUICKSTART), "--policy", "rr-in-order",
         "--seconds", "0.05", "--num-envs", "2"],
    )
    runpy.run_path(str(REPO / "python" / "examples" / "bench_gym.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "quickstart.toml, policy rr-in-order: 3 tenants" in out
    for row in ("single, policy actions", "single, random valid actions", "vector 2, 1 thread"):
        line = next(l for l in out.splitlines() if l.startswith(row))
        assert int(line.split()[-3]) > 0  # steps taken


def test_check_env_refused_where_tenants_arrive_later():
    # DESIGN §15.3: with Poisson arrivals, few tenants are eligible at the
    # first decision; check_env's sampled action is refused, as documented.
    env = tg.make(tenantsim.load_scenario(SCENARIOS / "online-lcdb-low-load.toml"))
    _, info = env.reset(seed=123)
    assert info["action_mask"].sum() < len(info["action_mask"]) // 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(tg.InvalidActionError, match="is not eligible now"):
            check_env(env.unwrapped)


def test_max_episode_steps_truncates():
    env = tg.make(QUICKSTART, max_episode_steps=3)
    _, info = env.reset(seed=0)
    flags = []
    for _ in range(3):
        _, _, terminated, truncated, info = env.step(info["policy_action"])
        flags.append((terminated, truncated))
    assert flags == [(False, False), (False, False), (False, True)]


@pytest.mark.parametrize("action", ["tenant", "pair"])
def test_vector_threads_do_not_change_results(action):
    one = tg.make_vec(QUICKSTART, 5, action=action)
    two = tg.make_vec(QUICKSTART, 5, action=action, threads=2)
    a, ia = one.reset(seed=3)
    b, ib = two.reset(seed=3)
    assert np.array_equal(a, b)
    for _ in range(30):
        a, ra, ta, _, ia = one.step(ia["policy_action"])
        b, rb, tb, _, ib = two.step(ib["policy_action"])
        assert np.array_equal(a, b) and np.array_equal(ra, rb) and np.array_equal(ta, tb)
        assert np.array_equal(ia["action_mask"], ib["action_mask"])
    assert one.regrets == two.regrets and one.repetitions == two.repetitions
    with pytest.raises(tenantsim.UsageError, match="threads: expected 1 to 256"):
        tg.make_vec(QUICKSTART, 2, threads=0)


def limits_scenario() -> dict:
    """online-lcdb-high-load (tenants arriving after t = 0 on 4 GPUs) with
    `[limits]`: a patience that some tenants run out of (7 of 60 in
    repetition 0 under random actions), a budget and a
    job cap, so tenants leave, are cancelled and stop being eligible."""
    import tomllib

    from conftest import TRACES

    d = tomllib.loads((SCENARIOS / "online-lcdb-high-load.toml").read_text())
    d["trace"]["path"] = str(TRACES / "lcdb.csv")
    d["limits"] = {"patience_s": 120, "budget_gpu_s": 4000, "max_jobs": 12}
    return d


def random_action(rng, info, pair: bool, n_models: int):
    """A random allowed action: idle one time in eight, else an allowed
    tenant (in pair mode an allowed model of it, or the selector's)."""
    mask = info["action_mask"]
    allowed = np.flatnonzero(mask[:-1])
    if len(allowed) == 0 or rng.random() < 0.125:
        tenant = len(mask) - 1
        return (tenant, n_models) if pair else tenant
    i = int(allowed[rng.integers(len(allowed))])
    if not pair:
        return i
    models = np.flatnonzero(info["pair_mask"][i])
    return (i, int(models[rng.integers(len(models))]))


INCREMENTAL_CASES = [
    (limits_scenario, "tenant", 2),
    (limits_scenario, "pair", 1),
    (lambda: SCENARIOS / "easeml-dl-mixed.toml", "tenant", 2),  # typed GPUs
    (lambda: SCENARIOS / "lcdb-curves-8gpu.toml", "pair", 1),  # levels, 8 GPUs
    (lambda: QUICKSTART, "pair", 3),
]


@pytest.mark.parametrize("scenario,action,episodes", INCREMENTAL_CASES)
def test_incremental_observation_equals_full_encoding(scenario, action, episodes):
    # DESIGN §15.3: the observation and the mask are rewritten only where
    # the run touched a tenant (and hours_since_arrival when the clock
    # moved); at every step they equal a whole re-encoding, bit for bit,
    # in a single environment, in a fork of it and after resets.
    env = tg.make(scenario(), action=action).unwrapped
    pair = action == "pair"
    rng = np.random.default_rng(5)
    steps = 0

    def check(e, obs, info):
        full_obs, full_mask = e._core._full()
        assert obs.tobytes() == bytes(full_obs)
        mask = info["pair_mask"] if pair else info["action_mask"]
        assert mask.tobytes() == bytes(full_mask)

    for ep in range(episodes):
        obs, info = env.reset(seed=ep)
        check(env, obs, info)
        fork, done, t = None, False, 0
        while not done and t < 3000:
            obs, _, done, _, info = env.step(random_action(rng, info, pair, env.n_models))
            check(env, obs, info)
            t += 1
            if t == 40:
                fork = env.fork()
                check(fork, fork.observation(), fork._info(fork._core.policy_action()))
        steps += t
        if fork is not None:
            fdone, finfo = fork._core.ended, fork._info(fork._core.policy_action())
            for _ in range(200):
                if fdone:
                    break
                fobs, _, fdone, _, finfo = fork.step(random_action(rng, finfo, pair, env.n_models))
                check(fork, fobs, finfo)
    assert steps > 20  # every case steps through whole episodes


@pytest.mark.parametrize("action", ["tenant", "pair"])
def test_vector_buffers_are_incremental_and_reused(action):
    # The vector environment's buffers are written in place (DESIGN
    # §15.3): at every step, through auto-resets, they equal the whole
    # encoding; copy=False returns the same read-only arrays each call,
    # copy=True (the default) new ones with the same values.
    scenario = limits_scenario()
    fast = tg.make_vec(scenario, 4, action=action, copy=False)
    safe = tg.make_vec(scenario, 4, action=action)
    obs, info = fast.reset(seed=2)
    sobs, sinfo = safe.reset(seed=2)
    assert np.array_equal(obs, sobs)
    assert not obs.flags.writeable and sobs.flags.writeable
    ended = 0
    for _ in range(1600):  # episodes of 1,288 to 1,492 steps
        a = info["policy_action"].copy()
        obs2, rew, term, trunc, info2 = fast.step(a)
        sobs2, srew, sterm, _, sinfo2 = safe.step(a)
        assert obs2 is obs and info2["action_mask"] is info["action_mask"]
        assert sobs2 is not sobs
        assert np.array_equal(obs2, sobs2) and np.array_equal(rew, srew) and np.array_equal(term, sterm)
        assert np.array_equal(info2["action_mask"], sinfo2["action_mask"])
        full_obs, full_mask = fast._core._full()
        assert obs2.tobytes() == bytes(full_obs)
        assert info2["action_mask"].tobytes() == bytes(full_mask)
        ended += int(term.sum())
        info, sobs = info2, sobs2
    assert ended >= 1  # auto-resets happened on the way
