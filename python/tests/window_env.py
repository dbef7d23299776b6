"""Helpers the window environments' tests share (test_gym_jobs.py,
test_gym_shared.py; DESIGN §15.5, §15.7)."""

from __future__ import annotations

import numpy as np


def step_policy(env, info):
    """One step of ``env`` with the scheduler's own decision (raw where
    the window cannot say it)."""
    a = info["policy_action"]
    if a >= 0:
        return env.step(a)
    return env.unwrapped.step_choice(info["policy_choice"])


def check_fork_continues(env, steps, out, without_manifest):
    """Step ``env`` ``steps`` scheduler decisions into repetition 0, fork
    it, and drive both to the end: the same transitions, returns and
    results folders (``without_manifest`` of each, written under ``out``)."""
    _, info = env.reset(seed=0)
    for _ in range(steps):
        _, _, done, _, info = step_policy(env, info)
        assert not done
    fork = env.unwrapped.fork()
    a_total, _, a = drive(env, info)
    b_total, _, b = drive(fork, info)
    assert a_total == b_total and len(a) == len(b) and a
    for (o1, r1, d1), (o2, r2, d2) in zip(a, b):
        assert np.array_equal(o1, o2) and r1 == r2 and d1 == d2
    env.unwrapped.results(out=out / "a")
    fork.results(out=out / "b")
    assert without_manifest(out / "a") == without_manifest(out / "b")


def drive(env, info):
    """Step ``env`` to its end with the scheduler's own decisions (through
    ``step_choice`` where the window cannot say them); the return, the
    number of raw choices and the transitions."""
    total, raw, trail, done = 0.0, 0, [], False
    while not done:
        raw += info["policy_action"] < 0
        obs, r, done, trunc, info = step_policy(env, info)
        assert not trunc
        total += r
        trail.append((obs.copy(), r, done))
    return total, raw, trail
