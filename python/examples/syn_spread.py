"""docs/EXPERIMENTS.md §4 (synthetic workload, high model spread) from
Python, plus one new policy written in Python.

    python python/examples/syn_spread.py

Runs scenarios/syn-high-spread.toml (60 users × 20 models, half of them
history users, 2 GPUs, 30 repetitions) and prints the §4 columns T(θ),
regret, ± 95 %, regret/base and speedup@θ from the returned DataFrames;
then runs the same scenario as a dict with one more policy, `rr-cheapest`:
round-robin users and a Python selector that trains each tenant's
cheapest untried model first (runtimes from the trace).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import tenantsim

REPO = Path(__file__).resolve().parents[2]


class CheapestFirst(tenantsim.Selector):
    """The untried model with the smallest runtime for this tenant's user
    (ties to the lowest model index)."""

    def propose(self, state, tenant):
        user = state.tenant(tenant).user_index
        return min(state.untried_models(tenant), key=lambda k: (state.runtime_s(user, k), k))


def table(r: tenantsim.Results) -> pd.DataFrame:
    """The §4 table: one row per policy, θ in the scenario's order."""
    thetas = r.json["thresholds"]
    t = r.speedups.pivot(index="policy", columns="theta", values="t_policy_s")[thetas]
    t.columns = [f"T({c:g}) s" for c in t.columns]
    s = r.speedups.pivot(index="policy", columns="theta", values="speedup")[thetas]
    s.columns = [f"speedup@{c:g}" for c in s.columns]
    g = r.regret.set_index("policy")
    out = t.join(
        pd.DataFrame(
            {
                "regret": g["mean_regret"],
                "± 95%": (g["ci_high"] - g["ci_low"]) / 2,
                "regret/base": g["ratio_to_baseline"],
            }
        )
    ).join(s)
    order = list(r.regret["policy"])
    return out.loc[order].round(3)


def main() -> None:
    pd.set_option("display.width", 200)
    scenario = REPO / "scenarios" / "syn-high-spread.toml"
    r = tenantsim.run(scenario)
    print(f"{scenario.name}: {r.json['repetitions']} repetitions, baseline `{r.json['baseline']}`")
    print(table(r).to_string())

    mine = {
        "name": "syn-high-spread-python",
        "seed": 7,
        "repetitions": 30,
        "thresholds": [0.05, 0.02, 0.01],
        "fairness": False,
        "trace": {"path": str(REPO / "traces" / "syn-high-spread.csv")},
        "split": {"prior_fraction": 0.5},
        "cluster": {"gpus": 2},
        "policy": [
            {"name": "rr-most-recent", "scheduler": "round-robin", "selector": "most-recent"},
            {"name": "rr-cheapest", "scheduler": "round-robin", "selector": "py-cheapest"},
            {"name": "ease.ml", "scheduler": "greedy", "selector": "gp-ucb-cost"},
        ],
    }
    r2 = tenantsim.run(mine, policies={"py-cheapest": CheapestFirst})
    print("\nwith a Python selector (rr-cheapest):")
    print(table(r2).to_string())


if __name__ == "__main__":
    main()
