#!/usr/bin/env python3
"""Independent reference for tenantsim's ease.ml defaults (DESIGN §2-4).

Reads a scenario (fixed split, one GPU, one job per tenant) and the
jobs.csv that `tenantsim run SCENARIO --jobs` wrote for it, replays every
policy with its own implementation of the rules, and compares the job
sequences (user, model) one by one. Nothing here is shared with the Rust
code: the GP posterior is the dense textbook formula (an explicit inverse of
Sigma[S,S] + noise*I at every step), not tenantsim's rank-one update.

Supported: schedulers `round-robin` and `greedy` (score `per-second` or
`per-relative-cost`), selectors `gp-ucb` and `gp-ucb-cost` (cost_belief
`oracle` or `prior`), kernel `rbf` with the data-driven v and lengthscale,
keys `beta_scale`, `noise`, `delta`.

Usage: gp_reference.py SCENARIO.toml JOBS.csv    (exit 0 when identical)
"""
import csv
import math
import sys
import tomllib
from pathlib import Path

import numpy as np


def load_trace(path):
    users, models, cells = [], [], []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["user"] not in users:
                users.append(r["user"])
            if r["model"] not in models:
                models.append(r["model"])
            cells.append((r["user"], r["model"], float(r["accuracy"]), float(r["runtime_s"])))
    acc = np.full((len(users), len(models)), np.nan)
    # Runtimes rounded to whole microseconds, at least 1 (DESIGN §7).
    us = np.full((len(users), len(models)), np.nan)
    for u, k, a, c in cells:
        i, j = users.index(u), models.index(k)
        acc[i, j] = a
        us[i, j] = max(1, round(c * 1e6))
    return users, models, acc, us


def rbf_prior(acc, prior):
    """Mean, covariance with the data-driven v and lengthscale (DESIGN §3)."""
    p = acc[prior]
    n_models = p.shape[1]
    have = ~np.isnan(p)
    grand = np.nanmean(p)
    mean = np.array([p[have[:, k], k].mean() if have[:, k].any() else grand for k in range(n_models)])
    v = float(np.mean([((p[have[:, k], k] - mean[k]) ** 2).mean()
                       for k in range(n_models) if have[:, k].any()]))
    d2 = np.zeros((n_models, n_models))
    shared = np.zeros((n_models, n_models), bool)
    dists = []
    for k in range(n_models):
        for l in range(k + 1, n_models):
            both = have[:, k] & have[:, l]
            if both.any():
                d2[k, l] = d2[l, k] = ((p[both, k] - p[both, l]) ** 2).mean()
                shared[k, l] = shared[l, k] = True
                dists.append(math.sqrt(d2[k, l]))
    ell = float(np.median(dists))
    cov = np.where(shared, v * np.exp(-d2 / (2 * ell * ell)), 0.0)
    np.fill_diagonal(cov, v)
    return mean, cov


def replay(policy, users, acc, us, prior, tenants):
    mean, cov = rbf_prior(acc, prior)
    noise = policy.get("noise", 1e-4)
    delta = policy.get("delta", 0.1)
    scale = policy.get("beta_scale", 1.0)
    cost_aware = policy["selector"] == "gp-ucb-cost"
    belief = policy.get("cost_belief", "oracle")
    score = policy.get("score", "per-second")
    n_models = acc.shape[1]
    # `prior` beliefs: relative cost and seconds per model.
    rel_prior, sec_prior = np.ones(n_models), np.zeros(n_models)
    all_secs = [us[j, k] / 1e6 for j in prior for k in range(n_models) if not np.isnan(us[j, k])]
    for k in range(n_models):
        rel = [us[j, k] / np.nanmean(us[j]) for j in prior if not np.isnan(us[j, k])]
        secs = [us[j, k] / 1e6 for j in prior if not np.isnan(us[j, k])]
        rel_prior[k] = np.mean(rel) if rel else 1.0
        sec_prior[k] = np.mean(secs) if secs else np.mean(all_secs)
    avail = [[k for k in range(n_models) if not np.isnan(acc[u, k])] for u in tenants]
    done = [[] for _ in tenants]
    best = [0.0] * len(tenants)

    def propose(i):
        """(model, acquisition, relative cost, seconds) of tenant i."""
        u, obs = tenants[i], done[i]
        untried = [k for k in avail[i] if k not in obs]
        if not untried:
            return None
        if obs:
            inv = np.linalg.inv(cov[np.ix_(obs, obs)] + noise * np.eye(len(obs)))
            resid = np.array([acc[u, k] for k in obs]) - mean[obs]
        t = len(obs) + 1
        beta = scale * 2 * math.log(len(avail[i]) * t * t * math.pi ** 2 / (6 * delta))
        mean_us = np.mean([us[u, k] for k in avail[i]])
        found = None
        for k in untried:  # model index order: the first maximum wins
            if obs:
                kv = cov[k, obs]
                mu = mean[k] + kv @ inv @ resid
                var = max(cov[k, k] - kv @ inv @ kv, 0.0)
            else:
                mu, var = mean[k], cov[k, k]
            if cost_aware:
                rel = us[u, k] / mean_us if belief == "oracle" else rel_prior[k]
                sec = us[u, k] / 1e6 if belief == "oracle" else sec_prior[k]
                a = mu + math.sqrt(beta / rel) * math.sqrt(var)
            else:
                rel, sec = 1.0, 1.0
                a = mu + math.sqrt(beta) * math.sqrt(var)
            if found is None or a > found[1]:
                found = (k, a, rel, sec)
        return found

    sequence, pointer = [], 0
    for _ in range(sum(len(a) for a in avail)):
        if policy["scheduler"] == "round-robin":
            for d in range(len(tenants)):
                i = (pointer + d) % len(tenants)
                p = propose(i)
                if p is not None:
                    break
            pointer = i + 1
        else:  # greedy: highest gain / cost, the first maximum wins
            pick = None
            for i in range(len(tenants)):
                p = propose(i)
                if p is None:
                    continue
                cost = p[3] if score == "per-second" else p[2]
                s = (p[1] - best[i]) / cost
                if pick is None or s > pick[1]:
                    pick = (i, s, p)
            i, _, p = pick
        k = p[0]
        done[i].append(k)
        best[i] = max(best[i], acc[tenants[i], k])
        sequence.append((users[tenants[i]], k))
    return sequence


def main():
    scenario_path, jobs_path = Path(sys.argv[1]), Path(sys.argv[2])
    scenario = tomllib.loads(scenario_path.read_text())
    users, models, acc, us = load_trace(scenario_path.parent / scenario["trace"]["path"])
    prior = [users.index(u) for u in scenario["split"]["prior"]]
    tenants = [users.index(u) for u in scenario["split"]["tenants"]]
    got = {}
    with open(jobs_path, newline="") as f:
        for r in csv.DictReader(f):
            got.setdefault(r["policy"], []).append((r["user"], r["model"]))
    failures = 0
    for policy in scenario["policy"]:
        want = [(u, models[k]) for u, k in replay(policy, users, acc, us, prior, tenants)]
        have = got.get(policy["name"], [])
        if want == have:
            print(f"{policy['name']}: {len(want)} jobs identical")
            continue
        failures += 1
        first = next((j for j, (a, b) in enumerate(zip(want, have)) if a != b), min(len(want), len(have)))
        print(f"{policy['name']}: DIFFERS at job {first}: reference "
              f"{want[first] if first < len(want) else None}, tenantsim {have[first] if first < len(have) else None}")
    print(f"{len(scenario['policy']) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
