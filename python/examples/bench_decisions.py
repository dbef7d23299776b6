"""Decisions per second of a trivial Python scheduler next to the same
scheduler built in, on a 10,000-tenant synthetic (SYN) scenario.

    python python/examples/bench_decisions.py [--tenants 10000] [--gpus 64]

Both runs use `in-order` models; the Python scheduler is round-robin with
`state.next_eligible` (one call per decision). A decision is one job
started; decisions/s = jobs / wall time of the whole run (engine
included), and jobs / the policy time run.json reports (`policies[].time`).
Results are byte-identical between the two (checked).
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

import tenantsim


class PyRoundRobin(tenantsim.Scheduler):
    def __init__(self) -> None:
        self.pointer = 0

    def pick(self, state):
        t = state.next_eligible(self.pointer)
        if t is not None:
            self.pointer = t + 1
        return t


def scenario(scheduler: str, tenants: int, gpus: int) -> dict:
    return {
        "name": "bench-decisions",
        "seed": 0,
        "repetitions": 1,
        "thresholds": [0.05],
        "trace": {"syn": {"users": tenants, "models": 20, "seed": 0}},
        "cluster": {"gpus": gpus},
        "policy": [{"name": "rr", "scheduler": scheduler, "selector": "in-order"}],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tenants", type=int, default=10_000)
    ap.add_argument("--gpus", type=int, default=64)
    args = ap.parse_args()
    rows = []
    results = {}
    for label, sched, policies in (
        ("built-in round-robin", "round-robin", None),
        ("Python round-robin", "py-rr", {"py-rr": PyRoundRobin}),
    ):
        t0 = time.perf_counter()
        r = tenantsim.run(scenario(sched, args.tenants, args.gpus), threads=1, policies=policies)
        wall = time.perf_counter() - t0
        jobs = len(r.jobs)
        policy_time = r.json["policies"][0].get("time", {})
        policy_s = policy_time.get("policy_s") if isinstance(policy_time, dict) else None
        rows.append(
            {
                "scheduler": label,
                "decisions": jobs,
                "wall_s": round(wall, 3),
                "decisions_per_s": round(jobs / wall),
                "policy_s": policy_s,
                "decisions_per_policy_s": round(jobs / policy_s) if policy_s else None,
            }
        )
        results[label] = r
    pd.testing.assert_frame_equal(
        results["built-in round-robin"].jobs, results["Python round-robin"].jobs
    )
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
