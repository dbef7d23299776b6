"""tenantsim.whatif: fork a finished run and compare the continuations
(docs/DESIGN.md §15.4)."""

from pathlib import Path

import pytest

import tenantsim

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def plain(tmp_path):
    out = tmp_path / "plain"
    tenantsim.run(str(REPO / "scenarios" / "quickstart.toml"), out=out, reps=1)
    return out


def test_the_unchanged_continuation_is_the_plain_run(plain, tmp_path):
    base, changed = tenantsim.whatif(plain, 5, gpus=0, out=tmp_path / "w")
    ran = tenantsim.run(str(REPO / "scenarios" / "quickstart.toml"), reps=1)
    for r in (base, changed):
        assert list(r.summary["policy"]) == list(ran.summary["policy"])
        assert list(r.summary["cumulative_regret"]) == list(ran.summary["cumulative_regret"])
    assert base.out == tmp_path / "w" / "baseline"
    assert [f["forked_at_s"] >= 5 for f in base.json["forks"]] == [True] * 4


def test_a_gpu_added_at_the_fork_shortens_round_robin(plain):
    base, changed = tenantsim.whatif(plain, 3, gpus=1)
    assert base.out.parent == plain / "whatif-rep0-at3-gpus+1"
    b = base.summary.set_index("policy")
    c = changed.summary.set_index("policy")
    # Measured by `tenantsim whatif RESULTS --at 3 --gpus +1` (DESIGN §15.4).
    assert b.loc["rr-in-order", "cumulative_regret"] == pytest.approx(15.3)
    assert c.loc["rr-in-order", "cumulative_regret"] == pytest.approx(13.5)
    assert c.loc["rr-in-order", "gpu_busy_fraction"] == pytest.approx(41 / 56)
    assert base.json["change"] == {"gpus": 1}


def test_switching_policy_at_the_start_gives_that_policys_run(plain):
    base, changed = tenantsim.whatif(plain, 0, policy="rr-most-cited")
    b = base.summary.set_index("policy")
    for regret in changed.summary["cumulative_regret"]:
        assert regret == b.loc["rr-most-cited", "cumulative_regret"]


def test_bad_inputs_are_clear_errors(plain, tmp_path):
    with pytest.raises(tenantsim.UsageError, match="its policies: rr-in-order"):
        tenantsim.whatif(plain, 1, policy="nope")
    with pytest.raises(tenantsim.UsageError, match="at least 0"):
        tenantsim.whatif(plain, -1, gpus=1)
    with pytest.raises(tenantsim.UsageError, match="past the end"):
        tenantsim.whatif(plain, 100, gpus=1)
    with pytest.raises(tenantsim.UsageError, match="only free GPUs can be removed"):
        tenantsim.whatif(plain, 1, gpus=-3)
    with pytest.raises(tenantsim.UsageError, match="exactly one of"):
        tenantsim.whatif(plain, 1)
    with pytest.raises(tenantsim.InputError, match="no such results folder"):
        tenantsim.whatif(tmp_path / "missing", 1, gpus=1)
