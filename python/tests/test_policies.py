"""Policies written in Python (model mode): registered by name, named in
[[policy]] tables, checked by the engine like built-in ones."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import tenantsim
from conftest import TRACES


class PyRoundRobin(tenantsim.Scheduler):
    """DESIGN §4.1: the first eligible tenant at or after a pointer
    (wrapping); the pointer moves just past it."""

    def __init__(self) -> None:
        self.pointer = 0

    def pick(self, state):
        eligible = state.eligible_tenants()
        if not eligible:
            return None
        chosen = next((t for t in eligible if t >= self.pointer), eligible[0])
        self.pointer = chosen + 1
        return chosen


class PyInOrder(tenantsim.Selector):
    """DESIGN §4.6: the first untried available model in trace order."""

    def propose(self, state, tenant):
        return state.untried_models(tenant)[0]


class PyRandom(tenantsim.Scheduler):
    """DESIGN §4.2: the r-th eligible tenant, r = self.rng.below(count)."""

    def pick(self, state):
        eligible = state.eligible_tenants()
        return eligible[self.rng.below(len(eligible))] if eligible else None


class PyRandomModel(tenantsim.Selector):
    """DESIGN §4.6 `random`: the r-th untried model, r = self.rng.below(count)
    (with round-robin users every draw starts its job at once)."""

    def propose(self, state, tenant):
        untried = state.untried_models(tenant)
        return untried[self.rng.below(len(untried))]


class PyChoice(tenantsim.Scheduler):
    """A random eligible tenant with random.Random's own choice()."""

    def pick(self, state):
        eligible = state.eligible_tenants()
        return self.rng.choice(eligible) if eligible else None


def scenario(scheduler, selector, gpus=2, reps=10, **extra):
    s = {
        "name": "py",
        "seed": 7,
        "repetitions": reps,
        "thresholds": [0.2, 0.1, 0.05],
        "trace": {"path": str(TRACES / "hand.csv")},
        "cluster": {"gpus": gpus},
        "policy": [{"name": "p", "scheduler": scheduler, "selector": selector}],
    }
    s.update(extra)
    return s


POLICIES = {
    "py-rr": PyRoundRobin,
    "py-in-order": PyInOrder,
    "py-random": PyRandom,
    "py-random-model": PyRandomModel,
    "py-choice": PyChoice,
}


@pytest.mark.parametrize("gpus", [1, 2, 3])
def test_python_round_robin_in_order_gives_the_builtin_job_log(gpus):
    builtin = tenantsim.run(scenario("round-robin", "in-order", gpus=gpus))
    python = tenantsim.run(scenario("py-rr", "py-in-order", gpus=gpus), policies=POLICIES)
    assert len(builtin.jobs) > 0
    pd.testing.assert_frame_equal(builtin.jobs, python.jobs)
    pd.testing.assert_frame_equal(builtin.summary, python.summary)


@pytest.mark.parametrize(
    "builtin,python",
    [
        (("round-robin", "random"), ("py-rr", "py-random-model")),
        (("random", "in-order"), ("py-random", "py-in-order")),
        (("random", "random"), ("py-random", "py-random-model")),
    ],
)
def test_python_random_policies_on_self_rng_replay_the_builtin_ones(builtin, python):
    split = {"split": {"tenant_count": 2}}  # tenants sampled per repetition too
    a = tenantsim.run(scenario(*builtin, **split))
    b = tenantsim.run(scenario(*python, **split), policies=POLICIES)
    assert a.jobs["user"].nunique() > 1
    pd.testing.assert_frame_equal(a.jobs, b.jobs)


def test_policy_table_keys_are_keyword_arguments():
    class Nth(tenantsim.Selector):
        def __init__(self, nth=0):
            self.nth = nth

        def propose(self, state, tenant):
            untried = state.untried_models(tenant)
            return untried[min(self.nth, len(untried) - 1)]

    s = scenario("round-robin", "nth", reps=1)
    s["policy"][0]["nth"] = 1
    r = tenantsim.run(s, policies={"nth": Nth})
    first = r.jobs[(r.jobs["user"] == "u1")].iloc[0]
    assert first["model"] == "forest"  # u1's second model
    s["policy"][0]["bogus"] = True
    with pytest.raises(tenantsim.PolicyError, match="unexpected keyword argument 'bogus'"):
        tenantsim.run(s, policies={"nth": Nth})


def test_python_scheduler_pairs_with_a_builtin_selector_and_back():
    a = tenantsim.run(scenario("round-robin", "most-cited"))
    b = tenantsim.run(scenario("py-rr", "most-cited"), policies=POLICIES)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    c = tenantsim.run(scenario("random", "in-order"))
    d = tenantsim.run(scenario("random", "py-in-order"), policies=POLICIES)
    pd.testing.assert_frame_equal(c.jobs, d.jobs)


def test_python_policy_results_do_not_depend_on_threads():
    s = scenario("py-choice", "py-in-order", **{"split": {"tenant_count": 2}})
    one = tenantsim.run(s, threads=1, policies=POLICIES)
    two = tenantsim.run(s, threads=2, policies=POLICIES)
    for name in one.tables:
        pd.testing.assert_frame_equal(one.tables[name], two.tables[name], obj=name)
    # self.rng is seeded per repetition: the repetitions do not all agree.
    firsts = one.jobs[one.jobs["job"] == 0].groupby("rep")["user"].first()
    assert firsts.nunique() > 1


def test_rng_is_seeded_from_seed_repetition_and_policy():
    seen = []

    class Record(tenantsim.Scheduler):
        def pick(self, state):
            if not seen or seen[-1][0] is not self:
                seen.append((self, self.rng.random()))
            eligible = state.eligible_tenants()
            return eligible[0] if eligible else None

    tenantsim.run(scenario("rec", "in-order", reps=3), threads=1, policies={"rec": Record})
    first = [x for _, x in seen]
    seen.clear()
    tenantsim.run(scenario("rec", "in-order", reps=3), threads=1, policies={"rec": Record})
    assert [x for _, x in seen] == first  # the same draws run after run
    assert len(set(first)) == 3  # a new instance and stream per repetition
    seen.clear()
    tenantsim.run(scenario("rec", "in-order", reps=3, seed=8), threads=1, policies={"rec": Record})
    assert [x for _, x in seen] != first  # the seed changes them


def test_ineligible_tenant_is_a_policy_error(tmp_path):
    class Bad(tenantsim.Scheduler):
        def pick(self, state):
            return state.n_tenants + 5

    with pytest.raises(tenantsim.PolicyError, match="picked tenant 8, which is not eligible"):
        tenantsim.run(scenario("bad", "in-order"), policies={"bad": Bad}, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_tried_model_is_a_policy_error():
    class Same(tenantsim.Selector):
        def propose(self, state, tenant):
            return 0

    with pytest.raises(tenantsim.PolicyError, match="unavailable or already tried"):
        tenantsim.run(scenario("round-robin", "same"), policies={"same": Same})


def test_exception_inside_a_policy_stops_the_run_with_its_traceback(tmp_path):
    class Boom(tenantsim.Selector):
        def propose(self, state, tenant):
            raise ValueError(f"no model for tenant {tenant}")

    with pytest.raises(tenantsim.PolicyError) as e:
        tenantsim.run(scenario("round-robin", "boom"), policies={"boom": Boom}, out=tmp_path / "out")
    message = str(e.value)
    assert "the Python policy `boom` failed in repetition 0" in message
    assert "Traceback" in message and "in propose" in message
    assert "ValueError: no model for tenant 0" in message
    assert isinstance(e.value.__cause__, ValueError)
    assert not (tmp_path / "out").exists()  # no results folder


def test_wrong_answer_type_is_a_policy_error():
    class Name(tenantsim.Scheduler):
        def pick(self, state):
            return "u1"

    with pytest.raises(tenantsim.PolicyError, match="expected a tenant index"):
        tenantsim.run(scenario("name", "in-order"), policies={"name": Name})


def test_state_is_a_view_valid_during_the_call_only():
    kept = []

    class Look(tenantsim.Scheduler):
        def pick(self, state):
            kept.append(state)
            eligible = state.eligible_tenants()
            for t in eligible:
                view = state.tenant(t)
                assert view.user in {"u1", "u2", "u3"}
                assert set(view.tried) | set(state.untried_models(t)) <= set(range(state.n_models))
                assert not set(view.tried) & set(state.untried_models(t))
                assert set(view.running) <= set(view.tried)
                assert 0.0 <= view.best <= 1.0 and view.arrival_s == 0.0
            return eligible[0] if eligible else None

    tenantsim.run(scenario("look", "in-order", reps=1), policies={"look": Look})
    assert kept and state_models(kept[0]) == ["linear", "forest", "boosting", "deepnet"]
    with pytest.raises(RuntimeError, match="only during pick"):
        kept[0].eligible_tenants()


def test_a_tenants_arrival_time_is_unknown_until_it_arrives():
    # Regression (DESIGN §2.8): with the arrival times listed (every order
    # but "streamed") `arrival_s` gave the time of a tenant not arrived
    # yet, so a policy could see the future. It is NaN until the tenant
    # arrives, then its time, at or before the decision's clock.
    seen = {"arrived": 0, "not yet": 0}

    class Look(tenantsim.Scheduler):
        def pick(self, state):
            for i in range(state.n_tenants):
                view = state.tenant(i)
                if view.arrived:
                    assert 0.0 <= view.arrival_s <= state.now_s
                    seen["arrived"] += 1
                else:
                    assert math.isnan(view.arrival_s)
                    seen["not yet"] += 1
            eligible = state.eligible_tenants()
            return eligible[0] if eligible else None

    arrivals = {"kind": "poisson", "rate_per_hour": 60}
    tenantsim.run(scenario("look", "in-order", reps=3, arrivals=arrivals), policies={"look": Look})
    assert seen["arrived"] > 10 and seen["not yet"] > 5, seen


def state_models(state):
    return state.models


def test_policies_must_be_policy_classes():
    with pytest.raises(tenantsim.UsageError, match="subclass of tenantsim.Scheduler"):
        tenantsim.run(scenario("round-robin", "in-order"), policies={"x": object})
    with pytest.raises(tenantsim.UsageError, match="`round-robin`: a scheduler of that name is already"):
        # A name can be registered once: never a built-in's.
        tenantsim.run(scenario("round-robin", "in-order"), policies={"round-robin": PyRoundRobin})


class PyFifo(tenantsim.JobScheduler):
    """fifo as a priority: the submit time (ties by index, as the engine's)."""

    def priority(self, job, now_s):
        return job.submit_s


class PySjf(tenantsim.JobScheduler):
    """sjf as a priority: the duration (ties by submit time, then index)."""

    def priority(self, job, now_s):
        return job.duration_s


def job_scenario(scheduler, backfill=False, **extra):
    s = {
        "mode": "jobs",
        "name": "py-jobs",
        "seed": 1,
        "repetitions": 1,
        "jobs": {"path": str(TRACES / "jobs-hand.csv")},
        "cluster": {"nodes": 1, "gpus_per_node": 2, "backfill": backfill},
        "policy": [{"name": "p", "scheduler": scheduler}],
    }
    s.update(extra)
    return s


@pytest.mark.parametrize("backfill", [False, True])
@pytest.mark.parametrize("builtin,python", [("fifo", PyFifo), ("sjf", PySjf)])
def test_python_job_scheduler_gives_the_builtin_job_log(builtin, python, backfill):
    a = tenantsim.run(job_scenario(builtin, backfill))
    b = tenantsim.run(job_scenario("py", backfill), policies={"py": python})
    assert a.mode == b.mode == "jobs" and len(a.jobs) == 5
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    pd.testing.assert_frame_equal(a.summary, b.summary)


def test_python_job_scheduler_on_sampled_jobs_does_not_depend_on_threads():
    s = job_scenario("py", repetitions=4, jobs={"path": str(TRACES / "jobs-hand.csv"), "sample": 3})
    one = tenantsim.run(s, threads=1, policies={"py": PySjf})
    two = tenantsim.run(s, threads=2, policies={"py": PySjf})
    builtin = tenantsim.run(s | {"policy": [{"name": "p", "scheduler": "sjf"}]})
    pd.testing.assert_frame_equal(one.jobs, two.jobs)
    pd.testing.assert_frame_equal(one.jobs, builtin.jobs)


def test_exception_in_a_python_job_scheduler_is_a_policy_error(tmp_path):
    class Boom(tenantsim.JobScheduler):
        def priority(self, job, now_s):
            if job.index == 2:
                raise KeyError("no priority")
            return 0.0

    with pytest.raises(tenantsim.PolicyError) as e:
        tenantsim.run(job_scenario("boom"), policies={"boom": Boom}, out=tmp_path / "out")
    assert "the Python policy `boom` failed" in str(e.value)
    assert "in priority" in str(e.value) and "KeyError" in str(e.value)
    assert isinstance(e.value.__cause__, KeyError)
    assert not (tmp_path / "out").exists()

    class Nan(tenantsim.JobScheduler):
        def priority(self, job, now_s):
            return float("nan")

    with pytest.raises(tenantsim.PolicyError, match="NaN"):
        tenantsim.run(job_scenario("nan"), policies={"nan": Nan})


def test_exception_in_observe_stops_the_run_and_writes_nothing(tmp_path):
    """observe cannot return an error: the engine takes it before the next
    decision (Selector.take_error), so no results folder is written."""

    class FailsLate(tenantsim.Selector):
        def propose(self, state, tenant):
            return state.untried_models(tenant)[0]

        def observe(self, state, tenant, model, accuracy):
            raise RuntimeError("observe broke")

    with pytest.raises(tenantsim.PolicyError) as e:
        tenantsim.run(
            scenario("round-robin", "late", reps=1), policies={"late": FailsLate}, out=tmp_path / "out"
        )
    assert "RuntimeError: observe broke" in str(e.value) and "in observe" in str(e.value)
    assert not (tmp_path / "out").exists()


def test_state_tells_the_time_and_the_free_gpus():
    seen = []

    class Clock(tenantsim.Scheduler):
        def pick(self, state):
            seen.append((state.now_s, state.free_gpus))
            return state.next_eligible(0)

    tenantsim.run(scenario("clock", "in-order", gpus=2, reps=1), policies={"clock": Clock})
    # At 0 s both GPUs are free, then one: the hand trace's first
    # completions are at 1 s (u2's linear) and 2 s (u1's linear).
    assert seen[:2] == [(0.0, 2), (0.0, 1)]
    # (Later picks include the runs of each tenant alone, `fairness`,
    # whose clocks start again at 0.)
    assert all(t >= 0.0 and 1 <= f <= 2 for t, f in seen)
    assert max(t for t, _ in seen) > 0.0


def test_state_tells_the_type_of_the_gpu_being_filled():
    seen = []

    class Types(tenantsim.Scheduler):
        def pick(self, state):
            seen.append(state.gpu_type)
            return state.next_eligible(0)

    cluster = {"nodes": [{"type": "fast", "count": 1}, {"type": "slow", "count": 1}]}
    tenantsim.run(
        scenario("types", "in-order", reps=1, fairness=False) | {"cluster": cluster},
        policies={"types": Types},
    )
    # At 0 s GPU 0 (`fast`, type 0) is filled first, then GPU 1 (`slow`).
    assert seen[:2] == [0, 1]
    assert set(seen) == {0, 1}
    seen.clear()
    tenantsim.run(scenario("types", "in-order", reps=1), policies={"types": Types})
    assert seen and set(seen) == {0}


def test_python_job_scheduler_has_its_own_seeded_rng():
    draws = []  # one list per instance (one instance per repetition)

    class Lottery(tenantsim.JobScheduler):
        def __init__(self) -> None:
            self.mine = []
            draws.append(self.mine)

        def priority(self, job, now_s):
            r = self.rng.random()
            self.mine.append(r)
            return r

    s = job_scenario("lottery", repetitions=2)
    a = tenantsim.run(s, policies={"lottery": Lottery})
    first = sorted(draws)
    draws.clear()
    b = tenantsim.run(s, threads=1, policies={"lottery": Lottery})
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    assert sorted(draws) == first, "the same draws in every run"
    assert len(first) == 2 and first[0] != first[1], "each repetition draws its own stream"


@pytest.mark.parametrize("name", ["quickstart", "sweep"])
def test_python_policies_replay_the_builtins_on_the_bundled_scenarios(name):
    """The bundled scenario as the library resolved it (run.json's
    `scenario`), its built-in round-robin + in-order and random + random
    policies replaced by the Python versions: the same job log, point by
    point for the sweep."""
    from conftest import SCENARIOS

    builtin = tenantsim.run(str(SCENARIOS / f"{name}.toml"))
    runs = builtin.points or [builtin]
    python_names = {
        ("round-robin", "in-order"): ("py-rr", "py-in-order"),
        ("random", "random"): ("py-random", "py-random-model"),
    }
    compared = 0
    for r in runs:
        s = r.manifest["scenario"]
        keep = [p for p in s["policy"] if (p["scheduler"], p["selector"]) in python_names]
        assert keep, "the scenario has a policy the Python versions replay"
        s["policy"] = [
            dict(p, scheduler=python_names[(p["scheduler"], p["selector"])][0],
                 selector=python_names[(p["scheduler"], p["selector"])][1])
            for p in keep
        ]
        s["trace"] = {"path": str(TRACES / "hand.csv")}
        if s.get("baseline") not in {p["name"] for p in keep}:
            s.pop("baseline", None)
        mine = tenantsim.run(s, policies=POLICIES)
        names = {p["name"] for p in keep}
        want = r.jobs[r.jobs["policy"].isin(names)].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine.jobs, want)
        compared += len(want)
    assert compared > 0


class TwoRungs(tenantsim.Selector):
    """A two-rung schedule on a curve trace (DESIGN §12): every model at its
    lowest fidelity first, then the best of them at its largest; nothing
    (the tenant waits) while a first-rung job still runs."""

    def propose(self, state, tenant):
        t = state.tenant(tenant)
        models = [k for k in range(state.n_models) if state.fidelities(t.user_index, k)]
        fresh = [k for k in models if state.level_started(tenant, k) is None]
        if fresh:
            return {"model": fresh[0], "level": 0}
        if t.running:
            return None
        if any(state.level_done(tenant, k) == len(state.fidelities(t.user_index, k)) - 1
               for k in models):
            return None  # the schedule is over
        best = max(models, key=lambda k: (state.level_accuracy(t.user_index, k, 0), -k))
        return {"model": best, "level": None}


def test_a_python_selector_proposes_levels_and_waits(tmp_path):
    trace = tmp_path / "curves.csv"
    trace.write_text(
        "user,model,fidelity,accuracy,runtime_s\n"
        "a,m0,10,0.5,1\na,m0,40,0.6,4\n"
        "a,m1,10,0.7,2\na,m1,40,0.9,8\n"
    )
    s = {
        "name": "py-curves",
        "repetitions": 1,
        "thresholds": [0.05],
        "trace": {"path": str(trace)},
        "cluster": {"gpus": 2, "max_jobs_per_tenant": 2},
        "policy": [{"name": "p", "scheduler": "round-robin", "selector": "two-rungs"}],
    }
    r = tenantsim.run(s, policies={"two-rungs": TwoRungs})
    jobs = r.jobs.sort_values("job")
    # m0@10 [0,1] and m1@10 [0,2] on both GPUs; the tenant waits until both
    # are done, then m1 (0.7 > 0.5) runs at 40 for 8 s: [2,10].
    assert list(zip(jobs["model"], jobs["fidelity"], jobs["start_s"], jobs["end_s"])) == [
        ("m0", 10, 0, 1), ("m1", 10, 0, 2), ("m1", 40, 2, 10)
    ]
    assert r.summary["low_fidelity_gpu_s"].tolist() == [3]
    with pytest.raises(tenantsim.PolicyError, match="with key 'levle'"):
        class Typo(tenantsim.Selector):
            def propose(self, state, tenant):
                return {"model": 0, "levle": 0}
        tenantsim.run(s, policies={"two-rungs": Typo})
