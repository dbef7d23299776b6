"""Environment steps per second of tenantsim.gym (issue 31), single and
vectorised, on LCDB-sized episodes (docs/PERFORMANCE.md, "Steppable engine
and Gymnasium (issue 31)").

    python python/examples/bench_gym.py [--scenario scenarios/lcdb-1gpu.toml]
        [--policy rr-random] [--seconds 3] [--num-envs 16 64 256]
        [--threads 1] [--copy both|no|yes] [--skip-single] [--window 16]

A job-mode or shared scenario (e.g. ``--scenario
scenarios/shared-quickstart.toml``; DESIGN §15.5, §15.7) gets the window
environments (``--window W``, ``--policy`` the cluster policy, the first
by default; ``--point k`` for a scenario with a sweep): the same rows but
the random one, the scheduler's own actions taken raw where the window
cannot say them (``policy_action`` −1); the vector rows step on the
calling thread and always copy (``--threads``, ``--copy`` are model
mode's).

A step is one decision (one `env.step`); steps/s = steps / wall time of
the loop, episode resets included; steps/cpu_s = steps / the CPU time the
process spent in the loop (all its threads), which a loaded machine's
waiting for a core does not inflate. Rows:

- `single, policy actions`: `env.step(info["policy_action"])` through the
  gymnasium API (`tenantsim.gym.make`), the whole Python loop counted;
- `single, random valid actions`: a uniformly random allowed action from
  `info["action_mask"]` (numpy's Generator; the choosing is counted);
- `single, core (no gymnasium layer)`: the Rust object's `step` alone, what
  the Python wrapper costs shown by difference;
- `vector K, T thread(s)`: `make_vec(scenario, K, threads=T,
  copy=False).step(info["policy_action"])`, K episodes per call, the
  arrays returned the same read-only buffers every call; steps/s counts
  every sub-environment's step;
- `vector K, T thread(s), copied`: the same with `copy=True` (the
  default): every call returns new arrays (`--copy` picks the rows).

Measure with a release build of the package (`pip install ./python[gym]`
or `maturin develop --release`).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import tenantsim.gym as tg

REPO = Path(__file__).resolve().parents[2]


def timed(seconds: float, body) -> tuple:
    """Call ``body()`` (it returns the steps it took) until ``seconds``
    have passed; (steps, wall seconds, CPU seconds of the process: every
    thread's user + system time)."""
    steps, t0, c0 = 0, time.perf_counter(), time.process_time()
    while True:
        steps += body()
        wall = time.perf_counter() - t0
        if wall >= seconds:
            return steps, wall, time.process_time() - c0


def single_policy(env, chunk: int):
    state = {"info": env.reset(seed=0)[1]}

    def body() -> int:
        info = state["info"]
        step = env.step
        for _ in range(chunk):
            _, _, done, _, info = step(info["policy_action"])
            if done:
                _, info = env.reset()
        state["info"] = info
        return chunk

    return body


def single_random(env, chunk: int):
    rng = np.random.default_rng(0)
    state = {"info": env.reset(seed=0)[1]}

    def body() -> int:
        info = state["info"]
        step = env.step
        for _ in range(chunk):
            allowed = np.flatnonzero(info["action_mask"])
            _, _, done, _, info = step(int(allowed[rng.integers(len(allowed))]))
            if done:
                _, info = env.reset()
        state["info"] = info
        return chunk

    return body


def single_core(env, chunk: int):
    core = env.unwrapped._core
    core.reset(0)
    state = {"rep": 0, "a": core.policy_action()[0]}

    def body() -> int:
        a = state["a"]
        step = core.step
        for _ in range(chunk):
            _, _, done, (a, _), _ = step(a)
            if done:
                state["rep"] += 1
                core.reset(state["rep"])
                a = core.policy_action()[0]
        state["a"] = a
        return chunk

    return body


def _window_step(env, info):
    """One step of a window environment with the scheduler's own
    action, raw (``step_choice``) where the window cannot say it, the end
    of the pass after a deviation."""
    a = info["policy_action"]
    if a >= 0:
        return env.step(a)
    choice = info["policy_choice"]
    if choice is not None:
        return env.unwrapped.step_choice(choice)
    return env.step(env.unwrapped._core.window)


def window_single(env, chunk: int):
    state = {"info": env.reset(seed=0)[1]}

    def body() -> int:
        info = state["info"]
        for _ in range(chunk):
            _, _, done, _, info = _window_step(env, info)
            if done:
                _, info = env.reset()
        state["info"] = info
        return chunk

    return body


def window_core(env, chunk: int):
    core = env.unwrapped._core
    core.reset(0)
    w = core.window
    state = {"rep": 0}

    def body() -> int:
        step, step_choice = core.step, core.step_choice
        for _ in range(chunk):
            a = core.policy_action()
            if a >= 0:
                _, done = step(a)
            else:
                c = core.policy_choice()
                _, done = step_choice(*c) if c is not None else step(w)
            if done:
                state["rep"] += 1
                core.reset(state["rep"])
        return chunk

    return body


def window_vector(venv, chunk: int):
    state = {"info": venv.reset(seed=0)[1]}
    k = venv.num_envs
    w = venv.unwrapped._core.window

    def body() -> int:
        info = state["info"]
        step = venv.step
        for _ in range(chunk):
            acts = info["policy_action"]
            _, _, _, _, info = step(np.where(acts >= 0, acts, w))
        state["info"] = info
        return chunk * k

    return body


def window_main(args) -> None:
    """The rows of a job-mode or shared scenario (window environments)."""
    opts = {"policy": args.policy, "window": args.window}
    if args.point is not None:
        opts["point"] = args.point
    env = tg.make(args.scenario, **opts)
    u = env.unwrapped
    _, info = env.reset(seed=0)
    decisions, raw, done = 0, 0, False
    while not done:
        raw += info["policy_action"] < 0
        _, _, done, _, info = _window_step(env, info)
        decisions += 1
    print(
        f"{Path(args.scenario).name}, policy {u._core.policy_name}, window {args.window}: "
        f"observation {u.observation_space.shape[0]} float32, {decisions} decisions "
        f"({raw} raw) in repetition 0; load {os.getloadavg()[0]:.2f}"
    )
    rows = [] if args.skip_single else [
        ("single, policy actions", lambda: window_single(env, 200)),
        ("single, core (no gymnasium layer)", lambda: window_core(env, 200)),
    ]
    for k in args.num_envs:
        rows.append(
            (f"vector {k}, 1 thread, copied", lambda k=k: window_vector(tg.make_vec(args.scenario, k, **opts), 5))
        )
    report(args.seconds, rows)


def report(seconds: float, rows) -> None:
    """Time each row's body (set up just before) and print a line."""
    print(
        f"{'run':44} {'cpu_s':>6} {'steps_per_cpu_s':>15} {'steps':>10} {'wall_s':>7} "
        f"{'steps_per_s':>12}"
    )
    for label, setup in rows:
        steps, wall, cpu = timed(seconds, setup())
        print(
            f"{label:44} {cpu:>6.2f} {steps / max(cpu, 1e-9):>15,.0f} {steps:>10} {wall:>7.2f} "
            f"{steps / wall:>12,.0f}"
        )


def vector(venv, chunk: int):
    state = {"info": venv.reset(seed=0)[1]}
    k = venv.num_envs

    def body() -> int:
        info = state["info"]
        step = venv.step
        for _ in range(chunk):
            _, _, _, _, info = step(info["policy_action"])
        state["info"] = info
        return chunk * k

    return body


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default=str(REPO / "scenarios" / "lcdb-1gpu.toml"))
    ap.add_argument(
        "--policy", default=None,
        help="model mode: rr-random by default; window environments: the first policy",
    )
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--num-envs", type=int, nargs="+", default=[16, 64, 256])
    ap.add_argument("--threads", type=int, default=1, help="threads of the vector rows")
    ap.add_argument(
        "--copy", choices=["both", "no", "yes"], default="both",
        help="vector rows with copy=False (no), copy=True (yes) or both",
    )
    ap.add_argument("--skip-single", action="store_true", help="only the vector rows")
    ap.add_argument("--window", type=int, default=16, help="window environments' W")
    ap.add_argument("--point", type=int, default=None, help="a shared sweep's point")
    args = ap.parse_args()
    if tg._mode_of(args.scenario) in ("jobs", "shared"):
        window_main(args)
        return
    if args.policy is None:
        args.policy = "rr-random"
    env = tg.make(args.scenario, policy=args.policy)
    u = env.unwrapped
    # The episode's size: decisions of repetition 0 under the policy.
    _, info = env.reset(seed=0)
    decisions, done = 0, False
    while not done:
        _, _, done, _, info = env.step(info["policy_action"])
        decisions += 1
    print(
        f"{Path(args.scenario).name}, policy {args.policy}: {u.n_tenants} tenants, "
        f"{u.n_models} models, observation {u.observation_space.shape[0]} float32, "
        f"{decisions} decisions in repetition 0; load {os.getloadavg()[0]:.2f}"
    )
    # Each body is set up (its episode reset) just before it is timed.
    rows = [] if args.skip_single else [
        ("single, policy actions", lambda: single_policy(env, 1000)),
        ("single, random valid actions", lambda: single_random(env, 1000)),
        ("single, core (no gymnasium layer)", lambda: single_core(env, 1000)),
    ]
    copies = {"both": [False, True], "no": [False], "yes": [True]}[args.copy]
    for k in args.num_envs:
        for copy in copies:
            rows.append(
                (
                    f"vector {k}, {args.threads} thread(s)" + (", copied" if copy else ""),
                    lambda k=k, copy=copy: vector(
                        tg.make_vec(
                            args.scenario, k, policy=args.policy, threads=args.threads, copy=copy
                        ),
                        20,
                    ),
                )
            )
    report(args.seconds, rows)


if __name__ == "__main__":
    main()
