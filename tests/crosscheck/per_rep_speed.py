#!/usr/bin/env python3
"""Per-repetition time of tenantsim against the numpy reference (issue 34).

Times, on the same scenario (default tests/crosscheck/lcdb-per-rep.toml):
- tenantsim: `tenantsim run SCENARIO --threads 1 --reps R --quiet
  --no-cache` (no --jobs; without --no-cache the 2nd and 3rd tries would
  read the results of the 1st back from the default result cache),
  wall time of the whole process, best of `--tries`; per repetition
  with start-up = T(R) / R, without = (T(R) - T(1)) / (R - 1);
- the reference: gp_replay.replay (tests/crosscheck/gp_replay.py) on the
  splits of the first N repetitions, taken from a `--jobs` run of the same
  scenario; first checked job for job against that jobs.csv, then timed
  (best of `--tries`), trace loading excluded; numpy on one thread; and
  the same with `rescore_all` (every idle tenant re-proposed at every
  decision, no cache) on the first `--rescore-reps` repetitions.
Prints both and the ratio. Not part of CI (a timing, not a test).

Usage: per_rep_speed.py [--bin target/release/tenantsim] [--scenario S]
       [--reps 1000] [--ref-reps 50] [--rescore-reps 5] [--tries 3]
"""
import argparse
import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[var] = "1"  # before numpy is imported

import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, str(Path(__file__).resolve().parent))
import gp_replay  # noqa: E402

HERE = Path(__file__).resolve().parent


def run_tenantsim(binary, scenario, reps, out, jobs=False):
    cmd = [binary, "run", str(scenario), "--threads", "1", "--reps", str(reps), "--quiet", "--no-cache", "--out", str(out)]
    if jobs:
        cmd.append("--jobs")
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(HERE.parent.parent / "target/release/tenantsim"))
    ap.add_argument("--scenario", default=str(HERE / "lcdb-per-rep.toml"))
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--ref-reps", type=int, default=50)
    ap.add_argument("--rescore-reps", type=int, default=5)
    ap.add_argument("--tries", type=int, default=3)
    a = ap.parse_args()
    scenario = Path(a.scenario)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # The reference's splits and the job-for-job check.
        run_tenantsim(a.bin, scenario, a.ref_reps, tmp / "jobs", jobs=True)
        sc, users, models, acc, us, gpus, runs, splits = gp_replay.setup(scenario, tmp / "jobs" / "jobs.csv")
        by_name = {p["name"]: p for p in sc["policy"]}
        keys = sorted(runs, key=lambda kv: (kv[1], kv[0]))
        jobs = 0
        for key in keys:
            prior, tenants = splits[key]
            log = gp_replay.replay(acc, us, prior, tenants, gpus, **gp_replay.params(by_name[key[0]]))
            got = [(j, g, users[u], models[k], f"{s / 1e6:.6f}", f"{e / 1e6:.6f}") for j, (g, u, k, s, e) in enumerate(log)]
            if got != runs[key]:
                sys.exit(f"reference differs from tenantsim on {key}: not timing different rules")
            jobs += len(log)
        print(f"reference = tenantsim job for job on {len(keys)} runs ({jobs} jobs)")

        def time_reference(subset, rescore_all):
            times = []
            for _ in range(a.tries):
                t0 = time.perf_counter()
                for key in subset:
                    prior, tenants = splits[key]
                    gp_replay.replay(acc, us, prior, tenants, gpus, **gp_replay.params(by_name[key[0]], rescore_all))
                times.append((time.perf_counter() - t0) / len(subset))
            return times

        ref = time_reference(keys, False)
        rescore = time_reference(keys[:a.rescore_reps], True) if a.rescore_reps else []
        one = min(run_tenantsim(a.bin, scenario, 1, tmp / f"one{t}") for t in range(a.tries))
        many = min(run_tenantsim(a.bin, scenario, a.reps, tmp / f"many{t}") for t in range(a.tries))
    r = min(ref)
    with_start = many / a.reps
    without = (many - one) / (a.reps - 1)
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min)")
    print(f"reference (numpy {gp_replay.np.__version__}, one thread): {r * 1e3:.3f} ms per repetition "
          f"(best of {a.tries} x {len(keys)} repetitions; all tries {', '.join(f'{x * 1e3:.2f}' for x in ref)} ms)")
    if rescore:
        print(f"reference with rescore_all: {min(rescore) * 1e3:.3f} ms per repetition "
              f"(best of {a.tries} x {a.rescore_reps} repetitions)")
    print(f"tenantsim --threads 1: {a.reps} repetitions {many:.3f} s, 1 repetition {one:.3f} s (best of {a.tries})")
    print(f"  per repetition with start-up    {with_start * 1e3:.4f} ms -> ratio {r / with_start:,.0f}x")
    print(f"  per repetition without start-up {without * 1e3:.4f} ms -> ratio {r / without:,.0f}x")
    if rescore:
        rs = min(rescore)
        print(f"  against rescore_all: {rs / with_start:,.0f}x with start-up, {rs / without:,.0f}x without")


if __name__ == "__main__":
    main()
