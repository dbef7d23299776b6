#!/usr/bin/env python3
"""The "up to" speedup of a tenantsim run: max over theta of T_B(theta) / T_X(theta).

Reads a results folder's jobs.csv (run with --jobs) and rebuilds, exactly,
each policy's mean loss curve L(tau) = mean over repetitions of the mean over
tenants of (A*_i - best_i(tau)) (DESIGN §2; every tenant arrives at 0). A*_i
is the best accuracy of user i over every job in the file, so every policy
must have tried each tenant's best model (true when the run ends with no
untried model, as in a run without horizon; the script checks that every
(policy, repetition) ends at loss 0 and stops otherwise).

T(theta) is the first completion time with L(tau) <= theta. As a function of
theta it is a step function that changes only at values the curve takes, so
the ratio T_B / T_X over a theta range is piecewise constant with breakpoints
at the values of both curves: the script evaluates it at every such value
inside [--theta-min, --theta-max] (and at both ends), which gives the exact
maximum over the continuous range, not a grid approximation. A baseline
written `A+B` is the better of A and B at each theta (T = min(T_A, T_B)),
e.g. "faster than both heuristics". It prints, per
(policy, baseline), the maximum and the theta range where it holds, and, with
--at, T and the speedup at fixed thetas (these equal speedups.csv).

tenantsim itself writes speedups_up_to.csv: the same maximum over the
scenario's one baseline, on 200 log-spaced thetas ([output] up_to_thetas).
This script adds other baselines from the same run, the `A+B` baseline and
the exact breakpoints; on the easeml-dl runs both give the same maxima
(docs/EXPERIMENTS.md §7).

    python3 scripts/upto-speedup.py RESULTS/jobs.csv --baseline rr-most-recent \
        [--baseline rr-most-cited] [--policy ease.ml] \
        [--theta-min 0.001] [--theta-max 0.1] [--at 0.05 0.02 0.01]

Standard library only.
"""

import argparse
import csv
import math
import sys
from collections import defaultdict


def read_jobs(path):
    """{policy: {rep: [(end_s, user, accuracy)]}} and {user: best accuracy}."""
    runs = defaultdict(lambda: defaultdict(list))
    best = {}
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            need = {"policy", "rep", "user", "end_s", "accuracy"}
            missing = need - set(reader.fieldnames or [])
            if missing:
                sys.exit(f"{path}: line 1: missing column(s) {', '.join(sorted(missing))}")
            for row in reader:
                try:
                    end, acc = float(row["end_s"]), float(row["accuracy"])
                    rep = int(row["rep"])
                except (TypeError, ValueError):
                    sys.exit(f"{path}: line {reader.line_num}: bad number")
                user = row["user"]
                runs[row["policy"]][rep].append((end, user, acc))
                best[user] = max(best.get(user, 0.0), acc)
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    if not runs:
        sys.exit(f"{path}: no jobs")
    return runs, best


def rep_curve(jobs, best):
    """[(tau, L(tau) after every completion at tau)], starting at (0, L(0))."""
    users = sorted({u for _, u, _ in jobs})
    have = {u: 0.0 for u in users}
    loss = sum(best[u] for u in users)
    out = [(0.0, loss / len(users))]
    jobs = sorted(jobs)
    i = 0
    while i < len(jobs):
        t = jobs[i][0]
        while i < len(jobs) and jobs[i][0] == t:
            _, u, a = jobs[i]
            if a > have[u]:
                loss -= a - have[u]
                have[u] = a
            i += 1
        out.append((t, loss / len(users)))
    final = sum(best[u] - have[u] for u in users)
    return out, final


def mean_curve(reps, best):
    curves = []
    for rep, jobs in sorted(reps.items()):
        c, final = rep_curve(jobs, best)
        if final > 1e-12:
            sys.exit(f"repetition {rep} ends at loss {final}: not every best model was tried")
        curves.append(c)
    times = sorted({t for c in curves for t, _ in c})
    pos = [0] * len(curves)
    out = []
    for t in times:
        total = math.fsum(
            _value_at(c, pos, k, t) for k, c in enumerate(curves)
        )
        out.append((t, total / len(curves)))
    return out


def _value_at(curve, pos, k, t):
    while pos[k] + 1 < len(curve) and curve[pos[k] + 1][0] <= t:
        pos[k] += 1
    return curve[pos[k]][1]


def time_to(curve, theta):
    for t, loss in curve:
        if loss <= theta + 1e-12:
            return t
    return math.inf


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("jobs")
    p.add_argument("--baseline", action="append", required=True)
    p.add_argument("--policy", action="append", help="default: every other policy")
    p.add_argument("--theta-min", type=float, default=0.001)
    p.add_argument("--theta-max", type=float, default=0.1)
    p.add_argument("--at", type=float, nargs="*", default=[])
    a = p.parse_args()
    if not 0 < a.theta_min < a.theta_max:
        sys.exit("expected 0 < --theta-min < --theta-max")

    runs, best = read_jobs(a.jobs)
    curves = {name: mean_curve(reps, best) for name, reps in runs.items()}
    for b in a.baseline:
        for part in b.split("+"):
            if part not in curves:
                sys.exit(f"unknown baseline {part!r}: the file has {', '.join(curves)}")
    policies = a.policy or list(curves)
    for x in policies:
        if x not in curves:
            sys.exit(f"unknown policy {x!r}: the file has {', '.join(curves)}")

    print(f"dense theta range [{a.theta_min:g}, {a.theta_max:g}], exact breakpoints")
    for b in a.baseline:
        for x in policies:
            if x == b:
                continue
            cbs, cx = [curves[part] for part in b.split("+")], curves[x]
            values = {v for c in cbs + [cx] for _, v in c}
            thetas = sorted(
                {a.theta_min, a.theta_max}
                | {v for v in values if a.theta_min <= v <= a.theta_max}
            )
            best_ratio, where = -1.0, []
            for th in thetas:
                tb, tx = min(time_to(c, th) for c in cbs), time_to(cx, th)
                r = tb / tx if tx > 0 else (math.inf if tb > 0 else 1.0)
                if r > best_ratio + 1e-12:
                    best_ratio, where = r, [(th, tb, tx)]
                elif abs(r - best_ratio) <= 1e-12:
                    where.append((th, tb, tx))
            lo, hi = where[0][0], where[-1][0]
            th, tb, tx = where[0]
            print(
                f"{x} over {b}: up to {best_ratio:.2f}x at theta {lo:.6g}"
                + (f"..{hi:.6g}" if f"{hi:.6g}" != f"{lo:.6g}" else "")
                + f" (T_{b} = {tb:g} s, T_{x} = {tx:g} s)"
            )
            for th in a.at:
                tb, tx = min(time_to(c, th) for c in cbs), time_to(cx, th)
                print(f"    theta {th:g}: T_{b} = {tb:g} s, T_{x} = {tx:g} s, speedup {tb / tx:.3g}")


if __name__ == "__main__":
    main()
