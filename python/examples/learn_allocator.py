"""A learned tenant scheduler (issue 31, docs/DESIGN.md §15.3): a linear
softmax policy trained by REINFORCE on synthetic (SYN) traces, evaluated
on held-out LCDB tenants against round-robin and ease.ml's greedy.

    python python/examples/learn_allocator.py [--train-seconds 180 | --batches B]
        [--seed 0] [--reps 30] [--out learned.csv] [--syn-reps 30]

numpy, gymnasium and tenantsim only (``pip install ./python[gym]``).

**The policy.** At each decision of the model-mode environment
(``tenantsim.gym.make``, action ``"tenant"``) every tenant i gets a
feature vector φ_i (``features`` below: scale-free, so one set of weights
serves 30 SYN tenants with jobs of about a second and 124 LCDB tenants
with jobs of 0.3 ms to 1.9 hours) and the score s_i = w · φ_i.
π(i) = exp(s_i) / Σ_{j allowed} exp(s_j) over the tenants
``info["action_mask"]`` allows;
idle only when it allows none (then no choice is made and nothing is
learned from that step). The model of the tenant picked is the scenario's
selector's (``gp-ucb-cost``, ease.ml's), so the learned part is the
scheduler alone, as greedy and round-robin are.

**Why never idle by choice.** Idling with nothing running ends the run
(no event is left). A first version of this learner with a learned idle
score found that the environment's return then counted the regret only
up to that instant (return 0 for idling at the first decision), and
learned to idle. The environment now charges such a stalled run, and one
that idles with nothing running after some jobs while a tenant could
still be served, the stall horizon's R(H) that ``summary.csv`` reports
(DESIGN §2.6, §15.3), so idling no longer pays; the policy stays
work-conserving, as greedy and round-robin are.

**Training** (REINFORCE with a leave-one-out baseline, Williams 1992).
θ = w. Batch n plays repetition n of the training scenario n mod 4
(``train_scenarios``: SYN traces generated in memory, ``[trace.syn]``,
two model spreads × two runtime distributions, 1 GPU) K times with
actions sampled from π. With rewards r_t = −(regret accrued until the next
decision) (§15.3), the return-to-go G_t^k = Σ_{u≥t} r_u^k; the baseline
of episode k at step t is the mean of G_t^j over the other K − 1
episodes (0 past an episode's end); the advantage A_t^k = G_t^k − b_t^k,
divided by the standard deviation of all of the batch's advantages (the
regret's scale differs between traces); the gradient
ĝ = (1/K) Σ_k Σ_t A_t^k ∇_θ log π(a_t^k), with ∇_θ log π(a) = φ_a −
Σ_j π(j) φ_j (0 at a forced idle), is ascended by Adam (Kingma & Ba
2015; lr 0.05, β = (0.9, 0.999)).

**Evaluation.** The trained policy acts greedily (the highest score
among the allowed tenants, ties to the lowest index; idle when none is)
on repetitions 0..R−1 of ``scenarios/lcdb-1gpu.toml`` under that scenario's ``ease.ml`` selector;
the LCDB tenants are held out (training saw SYN traces only). Its rows
come from ``env.unwrapped.results()``; the baselines' from
``tenantsim.run`` of the same scenario and repetitions (their episodes
replayed through the environment give the same regret: checked for
repetition 0 here, for every repetition in
``python/tests/test_learn_example.py``). Table: mean cumulative regret
R(end) (accuracy·s), the half-width of its 95 % Student-t interval
t_{0.975, R−1} · s / √R (s the sample standard deviation, as
``regret.csv``'s band), the ratio to ease.ml's mean, the paired
difference to ease.ml (mean over repetitions of R_policy,r − R_ease.ml,r,
the same tenants in both, with its own 95 % t half-width), the mean over
repetitions of T(θ) (``inf`` if any repetition never reached θ; not the
T(θ) of the mean loss curve that ``tenantsim run`` prints) and of the
final loss.

``--syn-reps R`` also compares the learned policy with ease.ml's greedy
on R new repetitions (new splits of the same SYN users, from repetition
10,000) of each training scenario: the paired difference and its
interval (``syn_table``).

**Determinism.** Everything random is a numpy Generator seeded with
``--seed`` and the environments' repetitions: the same seed and batch
count give the same weights and the same table. ``--train-seconds``
stops after the batch during which the clock passed the budget; the
count it reached is printed, and ``--batches`` that count reproduces the
run exactly.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np

import tenantsim
import tenantsim.gym as tg

REPO = Path(__file__).resolve().parents[2]
EVAL_SCENARIO = REPO / "scenarios" / "lcdb-1gpu.toml"
# The policy of the evaluation scenario whose selector the learned
# scheduler uses (ease.ml's gp-ucb-cost), and the baselines' rows.
EVAL_POLICY = "ease.ml"
BASELINES = ("rr-random", "rr-gp-ucb-cost", "ease.ml")
LEARNED = "learned"

# Per-tenant observation columns (DESIGN §15.3's table, in order).
ARRIVED, ELIGIBLE, RUNNING, COMPLETED, CLOSED, BEST, WAITED, GPU_HOURS, FINISHED = range(9)
TENANT_OBS = 9
FEATURES = (
    "not_started",
    "best_accuracy",
    "best_minus_mean",
    "completed_fraction",
    "closed_fraction",
    "gpu_share",
    "wait_share",
    "cost_share",
)
D = len(FEATURES)


def train_scenarios() -> List[dict]:
    """The training scenarios: SYN traces generated in memory (the ease.ml
    synthetic workload, ``[trace.syn]``; traces/README.md), 60 users × 20
    models, half the users history in each repetition (30 tenants), one
    GPU as the evaluation scenario, ease.ml's policy (its selector picks
    the models; its greedy scheduler is not used in training). Two model
    spreads × two runtime distributions: uniform(0, 2) s as ease.ml's SYN,
    and lognormal(0, 2), heavy-tailed as LCDB's runtimes are."""
    out = []
    for model_sd in (0.05, 0.2):
        for cost in ("uniform(0,2)", "lognormal(0,2)"):
            out.append(
                {
                    "name": f"learn-syn-sd{model_sd}-{cost.split('(')[0]}",
                    "seed": 31,
                    "repetitions": 1,
                    "thresholds": [0.05, 0.02, 0.01],
                    "fairness": False,
                    "trace": {
                        "syn": {
                            "users": 60,
                            "models": 20,
                            "model_sd": model_sd,
                            "user_sd": 0.05,
                            "cost": cost,
                            "seed": 1 + len(out),
                        }
                    },
                    "split": {"prior_fraction": 0.5},
                    "cluster": {"gpus": 1},
                    "output": {"plots": False},
                    "policy": [
                        {"name": "ease.ml", "scheduler": "greedy", "selector": "gp-ucb-cost"}
                    ],
                }
            )
    return out


def _share(x: np.ndarray) -> np.ndarray:
    """x / max(x) (0 where the max is 0): a scale-free share in [0, 1]."""
    top = float(x.max()) if x.size else 0.0
    return x / top if top > 0 else np.zeros_like(x)


def features(obs: np.ndarray, n: int) -> np.ndarray:
    """φ (n × D) from the default observation (DESIGN §15.3):

    - not_started: 1 if the tenant has started no model (closed_fraction 0);
    - best_accuracy: best_i;
    - best_minus_mean: best_i − the mean of best over arrived tenants;
    - completed_fraction, closed_fraction: as observed;
    - gpu_share: gpu_hours_used_i / max_j gpu_hours_used_j;
    - wait_share: hours_since_arrival_i / max_j hours_since_arrival_j;
    - cost_share: c_i / max_j c_j with c_i = gpu_hours_used_i /
      closed_fraction_i (0 before the first start), proportional to the
      tenant's mean GPU time per model started.

    Shares divide by the largest over the tenants, so the features do not
    depend on the trace's time scale."""
    t = obs[: n * TENANT_OBS].reshape(n, TENANT_OBS).astype(np.float64)
    closed = t[:, CLOSED]
    best = t[:, BEST]
    arrived = t[:, ARRIVED] > 0
    mean_best = float(best[arrived].mean()) if arrived.any() else 0.0
    per_model = np.divide(
        t[:, GPU_HOURS], closed, out=np.zeros(n), where=closed > 0
    )
    phi = np.empty((n, D))
    phi[:, 0] = closed == 0
    phi[:, 1] = best
    phi[:, 2] = np.where(arrived, best - mean_best, 0.0)
    phi[:, 3] = t[:, COMPLETED]
    phi[:, 4] = closed
    phi[:, 5] = _share(t[:, GPU_HOURS])
    phi[:, 6] = _share(t[:, WAITED])
    phi[:, 7] = _share(per_model)
    return phi


def probabilities(theta: np.ndarray, phi: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """π over the n tenants: softmax of θ · φ_i over the allowed ones (max
    subtracted before exp), 0 elsewhere; ``allowed`` has one at least."""
    s = np.where(allowed, phi @ theta, -np.inf)
    e = np.exp(s - s[allowed].max())
    return e / e.sum()


def greedy_action(theta: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> int:
    """The allowed tenant of the highest score, ties to the lowest index;
    idle (n) if no tenant is allowed."""
    n = len(mask) - 1
    allowed = mask[:n].astype(bool)
    if not allowed.any():
        return n
    s = np.where(allowed, features(obs, n) @ theta, -np.inf)
    return int(np.argmax(s))


def initial_theta() -> np.ndarray:
    """w = 0: a uniformly random (work-conserving) scheduler."""
    return np.zeros(D)


@dataclass
class Episode:
    """One sampled episode: ∇ log π of each step's action, and the rewards."""

    grads: np.ndarray
    rewards: np.ndarray

    @property
    def ret(self) -> float:
        return float(self.rewards.sum())


def sample_episode(env, rep: int, theta: np.ndarray, rng: np.random.Generator) -> Episode:
    """Play repetition ``rep`` with actions drawn from π_θ."""
    u = env.unwrapped
    n = u.n_tenants
    obs, info = env.reset(seed=rep)
    grads, rewards = [], []
    done = False
    while not done:
        allowed = info["action_mask"][:n].astype(bool)
        if allowed.any():
            phi = features(obs, n)
            p = probabilities(theta, phi, allowed)
            a = int(rng.choice(n, p=p))
            grads.append(phi[a] - p @ phi)
        else:
            a = n  # forced idle: no choice, no gradient
            grads.append(np.zeros(D))
        obs, r, done, _, info = env.step(a)
        rewards.append(r)
    return Episode(np.array(grads), np.array(rewards))


def batch_gradient(episodes: Sequence[Episode]) -> np.ndarray:
    """ĝ of the module's doc: leave-one-out baseline per step index,
    advantages divided by their standard deviation over the batch."""
    k = len(episodes)
    length = max(len(e.rewards) for e in episodes)
    g = np.zeros((k, length))  # return-to-go, 0 past an episode's end
    for j, e in enumerate(episodes):
        g[j, : len(e.rewards)] = np.cumsum(e.rewards[::-1])[::-1]
    baseline = (g.sum(axis=0, keepdims=True) - g) / (k - 1)
    adv = [(g[j] - baseline[j])[: len(e.rewards)] for j, e in enumerate(episodes)]
    sd = float(np.concatenate(adv).std())
    if sd == 0.0:
        return np.zeros(D)
    return sum(a @ e.grads for a, e in zip(adv, episodes)) / (k * sd)


@dataclass
class Adam:
    """Adam ascent (Kingma & Ba 2015): m ← β₁m + (1−β₁)g, v ← β₂v +
    (1−β₂)g², θ ← θ + lr · m̂ / (√v̂ + ε), m̂ = m/(1−β₁ᵗ), v̂ = v/(1−β₂ᵗ)."""

    lr: float = 0.05
    b1: float = 0.9
    b2: float = 0.999
    eps: float = 1e-8
    t: int = 0
    m: np.ndarray = field(default_factory=lambda: np.zeros(D))
    v: np.ndarray = field(default_factory=lambda: np.zeros(D))

    def step(self, theta: np.ndarray, g: np.ndarray) -> np.ndarray:
        self.t += 1
        self.m = self.b1 * self.m + (1 - self.b1) * g
        self.v = self.b2 * self.v + (1 - self.b2) * g * g
        m_hat = self.m / (1 - self.b1**self.t)
        v_hat = self.v / (1 - self.b2**self.t)
        return theta + self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


@dataclass
class Training:
    theta: np.ndarray
    batches: int
    episodes: int
    steps: int
    seconds: float
    log: List[dict]


def train(
    *,
    seed: int,
    batches: Optional[int] = None,
    seconds: Optional[float] = None,
    per_batch: int = 8,
    lr: float = 0.05,
    log_every: int = 0,
) -> Training:
    """REINFORCE on ``train_scenarios()`` (module doc). Stops after
    ``batches`` batches, or after the batch during which ``seconds`` of
    wall time passed (give one of them)."""
    if (batches is None) == (seconds is None):
        raise ValueError("train: give exactly one of batches= and seconds=")
    if per_batch < 2:
        raise ValueError(f"train: per_batch must be >= 2 (the baseline leaves one out), got {per_batch}")
    envs = [tg.make(s, policy="ease.ml") for s in train_scenarios()]
    rng = np.random.default_rng(seed)
    theta = initial_theta()
    opt = Adam(lr=lr)
    log: List[dict] = []
    steps = 0
    start = time.perf_counter()
    n = 0
    while True:
        if batches is not None and n >= batches:
            break
        if seconds is not None and n > 0 and time.perf_counter() - start >= seconds:
            break
        env = envs[n % len(envs)]
        eps = [sample_episode(env, n, theta, rng) for _ in range(per_batch)]
        steps += sum(len(e.rewards) for e in eps)
        theta = opt.step(theta, batch_gradient(eps))
        n += 1
        mean_regret = -float(np.mean([e.ret for e in eps]))
        log.append({"batch": n, "scenario": env.unwrapped._core.scenario_name, "mean_regret": mean_regret})
        if log_every and n % log_every == 0:
            w = " ".join(f"{p}={v:+.2f}" for p, v in zip(FEATURES, theta))
            print(f"batch {n:5d} ({time.perf_counter() - start:6.1f} s) {w}", flush=True)
    return Training(theta, n, n * per_batch, steps, time.perf_counter() - start, log)


def learned_summaries(theta: np.ndarray, reps: int, scenario=EVAL_SCENARIO) -> list:
    """The learned policy (greedy in θ) on repetitions 0..reps−1 of
    ``scenario`` under its ``ease.ml`` selector: per repetition, the
    episode's return and its ``results().summary`` row (a pandas Series)."""
    env = tg.make(scenario, policy=EVAL_POLICY)
    out = []
    for rep in range(reps):
        obs, info = env.reset(seed=rep)
        total, done = 0.0, False
        while not done:
            a = greedy_action(theta, obs, info["action_mask"])
            obs, r, done, _, info = env.step(a)
            total += r
        row = env.unwrapped.results().summary.iloc[0].copy()
        row["policy"] = LEARNED
        out.append((total, row))
    return out


def baseline_summary(reps: int, scenario=EVAL_SCENARIO):
    """``tenantsim.run`` of ``scenario`` with the baselines only and
    ``reps`` repetitions: its per-(policy, repetition) summary and
    regret table."""
    s = tenantsim.load_scenario(scenario)
    s["policy"] = [p for p in s["policy"] if p["name"] in BASELINES]
    s["repetitions"] = reps
    s["output"] = {"plots": False}
    r = tenantsim.run(s)
    return r.summary, r.regret


def replayed_regret(policy: str, rep: int, scenario=EVAL_SCENARIO) -> float:
    """R(end) of ``policy``'s repetition ``rep`` driven through the
    environment by ``info["policy_action"]`` (the built-in run's)."""
    env = tg.make(scenario, policy=policy)
    _, info = env.reset(seed=rep)
    done = False
    while not done:
        _, _, done, _, info = env.step(info["policy_action"])
    return env.unwrapped.regret


# -- the table -------------------------------------------------------------


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularised incomplete beta function
    (Lentz's method, Numerical Recipes §6.4)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _beta_inc(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularised incomplete beta function."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """Student's t CDF: 1 − ½ I_{df/(df+t²)}(df/2, ½) for t ≥ 0, by symmetry below."""
    tail = 0.5 * _beta_inc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The p-quantile (p > ½) of Student's t by bisection on ``t_cdf`` (to 1e-12)."""
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    while hi - lo > 1e-12 * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def ci_half_width(x: np.ndarray, level: float = 0.95) -> float:
    """t_{(1+level)/2, R−1} · s / √R; NaN for fewer than 2 values."""
    r = len(x)
    if r < 2:
        return float("nan")
    return t_quantile(0.5 + level / 2.0, r - 1) * float(np.std(x, ddof=1)) / math.sqrt(r)


def table(rows_by_policy: Dict[str, list]) -> List[dict]:
    """One row per policy from its per-repetition summary rows (see the
    module's doc for the columns)."""
    out = []
    ref = np.array([float(r["cumulative_regret"]) for r in rows_by_policy["ease.ml"]])
    for policy, rows in rows_by_policy.items():
        regret = np.array([float(r["cumulative_regret"]) for r in rows])
        diff = regret - ref  # paired: the same repetition, the same tenants
        row = {
            "policy": policy,
            "reps": len(rows),
            "mean_regret": float(regret.mean()),
            "ci95": ci_half_width(regret),
            "ratio_to_easeml": float(regret.mean() / ref.mean()),
            "diff_to_easeml": float(diff.mean()),
            "diff_ci95": ci_half_width(diff) if policy != "ease.ml" else 0.0,
        }
        for col in rows[0].index:
            if col.startswith("time_to_"):
                v = np.array([float(r[col]) for r in rows])
                row["mean_" + col] = float(v.mean())
        row["mean_final_loss"] = float(np.mean([float(r["final_loss"]) for r in rows]))
        out.append(row)
    return out


def print_table(rows: List[dict]) -> None:
    cols = list(rows[0])
    print("  ".join(f"{c:>16}" if i else f"{c:16}" for i, c in enumerate(cols)))
    for row in rows:
        cells = []
        for i, c in enumerate(cols):
            v = row[c]
            cells.append(f"{v:16}" if i == 0 else (f"{v:>16}" if isinstance(v, int) else f"{v:>16.4f}"))
        print("  ".join(cells))


def write_csv(rows: List[dict], out: Path) -> None:
    """Write ``rows`` to ``out`` atomically (a temporary file beside it,
    renamed); ``repr`` of floats, so the file is exact."""
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for row in rows:
            w.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    os.replace(tmp, out)


def evaluate(theta: np.ndarray, reps: int, scenario=EVAL_SCENARIO) -> dict:
    """The evaluation's pieces: the baselines' summary and regret table
    (``tenantsim.run``), the learned policy's returns and rows, and the
    table."""
    summary, regret = baseline_summary(reps, scenario)
    learned = learned_summaries(theta, reps, scenario)
    rows: Dict[str, list] = {}
    for policy in BASELINES:
        sub = summary[summary["policy"] == policy].sort_values("rep")
        rows[policy] = [r for _, r in sub.iterrows()]
    rows[LEARNED] = [row for _, row in learned]
    return {
        "summary": summary,
        "regret": regret,
        "learned_returns": [ret for ret, _ in learned],
        "learned_rows": rows[LEARNED],
        "table": table(rows),
    }


SYN_FIRST_REP = 10_000


def syn_table(theta: np.ndarray, reps: int, first: int = SYN_FIRST_REP) -> List[dict]:
    """The learned policy (greedy in θ) against ease.ml's greedy (replayed
    by ``info["policy_action"]``) on repetitions first..first+reps−1 of
    each training scenario: new splits of the SYN users, not played in
    training unless it ran ``first`` batches. Per scenario: both mean
    R(end) and the paired difference learned − ease.ml with its 95 %
    t half-width."""
    out = []
    for scenario in train_scenarios():
        env = tg.make(scenario, policy="ease.ml")
        regrets: Dict[str, list] = {"ease.ml": [], LEARNED: []}
        for label in regrets:
            for rep in range(first, first + reps):
                obs, info = env.reset(seed=rep)
                done = False
                while not done:
                    if label == LEARNED:
                        a = greedy_action(theta, obs, info["action_mask"])
                    else:
                        a = info["policy_action"]
                    obs, _, done, _, info = env.step(a)
                regrets[label].append(env.unwrapped.regret)
        diff = np.array(regrets[LEARNED]) - np.array(regrets["ease.ml"])
        out.append(
            {
                "scenario": scenario["name"],
                "reps": reps,
                "easeml_regret": float(np.mean(regrets["ease.ml"])),
                "learned_regret": float(np.mean(regrets[LEARNED])),
                "diff": float(diff.mean()),
                "diff_ci95": ci_half_width(diff),
            }
        )
    return out


def main(argv: Optional[Sequence[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    budget = ap.add_mutually_exclusive_group()
    budget.add_argument("--train-seconds", type=float, default=None, help="wall-time budget (default 180)")
    budget.add_argument("--batches", type=int, default=None, help="train exactly this many batches")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-batch", type=int, default=8, help="episodes per batch (K)")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--reps", type=int, default=30, help="evaluation repetitions (R)")
    ap.add_argument("--out", type=Path, default=None, help="write the table as CSV here")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument(
        "--syn-reps",
        type=int,
        default=0,
        help=f"also compare with ease.ml on this many SYN repetitions from {SYN_FIRST_REP} (default 0: no)",
    )
    args = ap.parse_args(argv)
    if args.batches is not None and args.batches < 1:
        ap.error(f"--batches: expected at least 1, got {args.batches}")
    if args.train_seconds is not None and not args.train_seconds > 0:
        ap.error(f"--train-seconds: expected a positive number, got {args.train_seconds}")
    if args.reps < 2:
        ap.error(f"--reps: expected at least 2 (a confidence interval needs two), got {args.reps}")
    if args.syn_reps < 0 or args.syn_reps == 1:
        ap.error(f"--syn-reps: expected 0 or at least 2, got {args.syn_reps}")
    if args.per_batch < 2:
        ap.error(f"--per-batch: expected at least 2 (the baseline leaves one out), got {args.per_batch}")
    if args.out is not None and args.out.is_dir():
        ap.error(f"--out: {args.out} is a folder; expected a CSV file path")
    if args.out is not None and not args.out.resolve().parent.is_dir():
        ap.error(f"--out: {args.out}: its folder {args.out.resolve().parent} does not exist")
    if args.batches is None and args.train_seconds is None:
        args.train_seconds = 180.0
    print(f"load {os.getloadavg()[0]:.2f} (1-min average) at the start")
    tr = train(
        seed=args.seed,
        batches=args.batches,
        seconds=args.train_seconds,
        per_batch=args.per_batch,
        lr=args.lr,
        log_every=args.log_every,
    )
    print(
        f"trained {tr.batches} batches ({tr.episodes} SYN episodes, {tr.steps} steps) in "
        f"{tr.seconds:.1f} s; reproduce with --seed {args.seed} --batches {tr.batches}"
    )
    print("weights: " + " ".join(f"{p}={v:+.4f}" for p, v in zip(FEATURES, tr.theta)))
    t0 = time.perf_counter()
    ev = evaluate(tr.theta, args.reps)
    for policy in BASELINES:
        ran = float(ev["summary"].query("policy == @policy and rep == 0")["cumulative_regret"].iloc[0])
        replay = replayed_regret(policy, 0)
        if not math.isclose(ran, replay, rel_tol=1e-9):
            raise SystemExit(f"{policy}: tenantsim.run's R(end) {ran} != the environment's {replay}")
    print(
        f"evaluated on {EVAL_SCENARIO.relative_to(REPO)} (held-out LCDB tenants), "
        f"{args.reps} repetitions, in {time.perf_counter() - t0:.1f} s; regret in accuracy·s"
    )
    print_table(ev["table"])
    if args.out is not None:
        write_csv(ev["table"], args.out)
        print(f"table in {args.out}")
    if args.syn_reps:
        print(f"on SYN repetitions {SYN_FIRST_REP}..{SYN_FIRST_REP + args.syn_reps - 1} of the training scenarios:")
        print_table(syn_table(tr.theta, args.syn_reps))


if __name__ == "__main__":
    main()
