#!/usr/bin/env python3
"""Straightforward numpy replay of greedy + cost-aware GP-UCB on several GPUs.

The reference of issue 34's per-repetition comparison
(docs/PERFORMANCE.md, "Per repetition against numpy (issue 34)"). It
implements, from docs/DESIGN.md, one repetition of a model-mode run (the
only thing taken from the Rust side is the order of the floating-point
operations of the rank-one step, entry -= (k_a * k_b) / s, from the doc
comment of src/models/gp/posterior.rs, so that near-ties round alike):

- §3.1-3.2 the `rbf` prior with the data-driven v and lengthscale, from the
  repetition's prior users (sums in prior-user order, as DESIGN §3 says);
- §3.3 the posterior of each tenant as a mean vector and a full K x K
  covariance over the trace's models, updated by one rank-one step per
  completed job: s = Sigma[k,k] + noise, mu += Sigma[:,k] (y - mu_k) / s,
  Sigma -= Sigma[:,k] Sigma[k,:] / s (skipped when |s| <= 1e-12);
- §3.4-3.5 beta_t and UCB_c(k) = mu(k) + sqrt(beta_t / c_ik) sigma(k) with the
  `oracle` cost belief (§3.6), argmax over untried models, ties to the lowest
  model index (numpy's argmax keeps the first maximum);
- §4.3 greedy: score = (UCB_c - best_i) / runtime seconds, highest served,
  ties to the lowest tenant index; a tenant's score is recomputed only when
  its state changes (its job completes), the cache any careful Python
  implementation keeps;
- §2.3-2.4 the discrete-event rule on G GPUs: one job per tenant at a time;
  completions at an instant are processed first, then the free GPUs are
  filled lowest index first, one decision at a time; every tenant arrives
  at 0.

The split of a repetition is drawn by tenantsim from its ChaCha8 stream
(DESIGN §5), which this file does not reimplement: it reads each
repetition's tenants from tenantsim's jobs.csv (the users that ran a job)
and takes every other user of the trace as a prior user. Everything after
that is recomputed here and compared job for job: (job, gpu, user, model,
start_s, end_s) in start order.

Usage:
  gp_replay.py SCENARIO.toml JOBS.csv            compare every repetition
  gp_replay.py SCENARIO.toml JOBS.csv --time N   also time N replays
                                                 (one thread, see below)
  ... --rescore-all    rescore every idle tenant at every decision (no cache)
Exit 0 when identical. For timing, set OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
MKL_NUM_THREADS=1 before starting Python (per_rep_speed.py does).
"""
import csv
import heapq
import math
import sys
import time
import tomllib
from pathlib import Path

import numpy as np

MIN_INNOVATION_VARIANCE = 1e-12


def load_trace(path):
    """Users and models in first-appearance order; accuracy and µs runtime
    matrices with NaN for a missing cell (runtimes rounded to whole µs, at
    least 1, DESIGN §7)."""
    users, models, cells = {}, {}, []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            i = users.setdefault(r["user"], len(users))
            k = models.setdefault(r["model"], len(models))
            cells.append((i, k, float(r["accuracy"]), float(r["runtime_s"])))
    acc = np.full((len(users), len(models)), np.nan)
    us = np.full((len(users), len(models)), np.nan)
    for i, k, a, c in cells:
        acc[i, k] = a
        us[i, k] = max(1, round(c * 1e6))
    return list(users), list(models), acc, us


def seq_sum(x, axis=0):
    """Sum along `axis` strictly in order (numpy's sum may pair terms)."""
    return np.cumsum(x, axis=axis).take(-1, axis=axis)


def rbf_prior(p):
    """DESIGN §3.1-3.2 from the prior users' accuracies p (m x K, NaN =
    missing): m_k, then v = mean over models of the population variance
    about m_k, d2(k,l) = mean over users having both of (P[j,k]-P[j,l])^2,
    ell = median of sqrt(d2) over pairs k<l sharing a user (even count: mean
    of the middle two), Sigma = v exp(-d2 / (2 ell^2)), 0 where no user is
    shared, v on the diagonal. Sums run over users in order."""
    have = ~np.isnan(p)
    z = np.where(have, p, 0.0)
    count = have.sum(axis=0)
    grand = seq_sum(z.ravel()) / have.sum()
    mean = np.where(count > 0, seq_sum(z) / np.maximum(count, 1), grand)
    dev = np.where(have, (p - mean) ** 2, 0.0)
    var_k = seq_sum(dev)[count > 0] / count[count > 0]
    v = seq_sum(var_k) / len(var_k)
    both = have[:, :, None] & have[:, None, :]
    diff = np.where(both, (p[:, :, None] - p[:, None, :]) ** 2, 0.0)
    n_both = both.sum(axis=0)
    shared = n_both > 0
    d2 = np.where(shared, seq_sum(diff) / np.maximum(n_both, 1), 0.0)
    upper = np.triu(shared, 1)
    dists = np.sort(np.sqrt(d2[upper]))
    n = len(dists)
    ell = dists[n // 2] if n % 2 else (dists[n // 2 - 1] + dists[n // 2]) / 2
    cov = np.where(shared, v * np.exp(-d2 / (2 * ell * ell)), 0.0)
    np.fill_diagonal(cov, v)
    return mean, cov


def replay(acc, us, prior, tenants, gpus, noise=1e-4, delta=0.1, scale=1.0, rescore_all=False):
    """One repetition: the job log [(gpu, tenant row, model, start µs,
    end µs)] in start order. With `rescore_all`, every tenant not running a
    job is re-proposed and rescored at every decision (ease.ml's greedy rule
    read literally, no cache): the same choices, far more work."""
    mean, cov = rbf_prior(acc[prior])
    n = len(tenants)
    avail = ~np.isnan(acc[tenants])  # n x K
    n_avail = avail.sum(axis=1)
    a_t = np.nan_to_num(acc[tenants])
    c_us = np.where(avail, us[tenants], 1.0)
    mean_us = seq_sum(np.where(avail, c_us, 0.0), axis=1) / n_avail
    rel = c_us / mean_us[:, None]  # oracle relative cost (§3.6)
    sec = c_us / 1e6  # oracle seconds
    untried = avail.copy()
    mu = np.repeat(mean[None, :], n, axis=0)
    sig = np.repeat(cov[None, :, :], n, axis=0)
    done = np.zeros(n, int)
    best = np.zeros(n)
    # Cached proposal per tenant: model and greedy score; eligible flag.
    prop = np.zeros(n, int)
    score = np.full(n, -np.inf)
    eligible = np.zeros(n, bool)
    running = np.zeros(n, bool)
    log_term = math.pi ** 2 / (6 * delta)

    def propose(i):
        if not untried[i].any():
            eligible[i] = False
            return
        t = done[i] + 1
        beta = scale * 2 * math.log(n_avail[i] * t * t * log_term)
        ucb = mu[i] + np.sqrt(beta / rel[i]) * np.sqrt(np.maximum(np.diagonal(sig[i]), 0.0))
        ucb[~untried[i]] = -np.inf
        k = int(np.argmax(ucb))
        prop[i] = k
        score[i] = (ucb[k] - best[i]) / sec[i, k]
        eligible[i] = True

    for i in range(n):
        propose(i)
    free = list(range(gpus))  # kept sorted
    events, seq, now, log = [], 0, 0, []
    masked = np.empty(n)
    while True:
        # Fill the free GPUs, lowest index first, one decision at a time.
        while free and eligible.any():
            if rescore_all:
                for j in range(n):
                    if not running[j]:
                        propose(j)
            np.copyto(masked, score)
            masked[~eligible] = -np.inf
            i = int(np.argmax(masked))  # first maximum: lowest tenant index
            if not eligible[i]:  # every eligible score is -inf
                i = int(np.flatnonzero(eligible)[0])
            k = int(prop[i])
            g = free.pop(0)
            end = now + int(c_us[i, k])
            untried[i, k] = False
            eligible[i] = False
            running[i] = True
            log.append((g, tenants[i], k, now, end))
            heapq.heappush(events, (end, seq, g, i, k))
            seq += 1
        if not events:
            return log
        now = events[0][0]
        while events and events[0][0] == now:
            _, _, g, i, k = heapq.heappop(events)
            y = a_t[i, k]
            done[i] += 1
            running[i] = False
            best[i] = max(best[i], y)
            s_i = sig[i]
            s = s_i[k, k] + noise
            if abs(s) > MIN_INNOVATION_VARIANCE and math.isfinite(s):
                col = s_i[:, k].copy()
                mu[i] += col * ((y - mu[i, k]) / s)
                s_i -= np.outer(col, col) / s
            propose(i)
            free.append(g)
        free.sort()


def read_jobs(path):
    """jobs.csv grouped by (policy, rep): [(job, gpu, user, model, start_s,
    end_s)] in file order."""
    runs = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            runs.setdefault((r["policy"], int(r["rep"])), []).append(
                (int(r["job"]), int(r["gpu"]), r["user"], r["model"], r["start_s"], r["end_s"]))
    return runs


def setup(scenario_path, jobs_path):
    scenario = tomllib.loads(scenario_path.read_text())
    policies = scenario["policy"]
    for p in policies:
        assert p["scheduler"] == "greedy" and p["selector"] == "gp-ucb-cost", p
        assert p.get("cost_belief", "oracle") == "oracle" and p.get("score", "per-second") == "per-second", p
    users, models, acc, us = load_trace(scenario_path.parent / scenario["trace"]["path"])
    gpus = scenario["cluster"]["gpus"]
    runs = read_jobs(jobs_path)
    splits = {}
    index = {u: j for j, u in enumerate(users)}
    for key, rows in runs.items():
        tenant_set = {index[r[2]] for r in rows}
        splits[key] = ([j for j in range(len(users)) if j not in tenant_set], sorted(tenant_set))
    return scenario, users, models, acc, us, gpus, runs, splits


def params(policy, rescore_all=False):
    return dict(noise=policy.get("noise", 1e-4), delta=policy.get("delta", 0.1),
                scale=policy.get("beta_scale", 1.0), rescore_all=rescore_all)


def main():
    args = sys.argv[1:]
    n_time = 0
    rescore_all = "--rescore-all" in args
    if rescore_all:
        args.remove("--rescore-all")
    if "--time" in args:
        j = args.index("--time")
        n_time = int(args[j + 1])
        del args[j:j + 2]
    scenario_path, jobs_path = Path(args[0]), Path(args[1])
    scenario, users, models, acc, us, gpus, runs, splits = setup(scenario_path, jobs_path)
    by_name = {p["name"]: p for p in scenario["policy"]}
    failures = 0
    for (name, rep), have in sorted(runs.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        prior, tenants = splits[(name, rep)]
        log = replay(acc, us, prior, tenants, gpus, **params(by_name[name], rescore_all))
        want = [(j, g, users[u], models[k], f"{s / 1e6:.6f}", f"{e / 1e6:.6f}")
                for j, (g, u, k, s, e) in enumerate(log)]
        if want == have:
            continue
        failures += 1
        first = next((j for j, (a, b) in enumerate(zip(want, have)) if a != b), min(len(want), len(have)))
        print(f"{name} rep {rep}: DIFFERS at job {first}: reference "
              f"{want[first] if first < len(want) else None}, tenantsim {have[first] if first < len(have) else None}")
    jobs = sum(len(v) for v in runs.values())
    print(f"{len(runs) - failures} runs identical ({jobs} jobs, {gpus} GPUs), {failures} differ")
    print(f"{len(runs) - failures} passed, {failures} failed")
    if n_time:
        keys = sorted(runs, key=lambda kv: (kv[1], kv[0]))
        t0 = time.perf_counter()
        for r in range(n_time):
            name, rep = keys[r % len(keys)]
            prior, tenants = splits[(name, rep)]
            replay(acc, us, prior, tenants, gpus, **params(by_name[name], rescore_all))
        dt = time.perf_counter() - t0
        print(f"reference: {n_time} repetitions in {dt:.3f} s, {dt / n_time * 1e3:.3f} ms per repetition")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
