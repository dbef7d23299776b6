//! A job-mode run ([`JobRun`]) to bytes and back, exactly (the result
//! cache and shard files, [`crate::core::io::codec`]). The repetition's jobs
//! are not stored: they are drawn again from the scenario
//! ([`JobScenario::rep_jobs`], a function of the seed and repetition).

use std::io::Read;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::metrics::JobMetrics;
use super::run::JobRun;
use super::scenario::JobScenario;
use super::sim::JobOutcome;
use crate::core::error::{Error, Result};
use crate::core::io::codec;

/// What is stored of a run: all of it but its jobs. Written with borrowed
/// parts (`Stored<&JobOutcome, &JobMetrics>`) and read back owned; one
/// definition, so the two cannot drift apart.
#[derive(Serialize, Deserialize)]
struct Stored<O, M> {
    policy: usize,
    rep: u64,
    outcome: O,
    metrics: M,
    elapsed: Duration,
}

/// Append `run` to `out`.
pub fn encode_job_run(run: &JobRun, out: &mut dyn std::io::Write) -> Result<()> {
    let stored = Stored {
        policy: run.policy,
        rep: run.rep,
        outcome: &run.outcome,
        metrics: &run.metrics,
        elapsed: run.elapsed,
    };
    codec::encode_to(&stored, out)
}

/// The run [`encode_job_run`] wrote into `bytes`, its jobs drawn again
/// from `scenario`.
pub fn decode_job_run(scenario: &JobScenario, bytes: &[u8]) -> Result<JobRun> {
    with_jobs(scenario, codec::decode(bytes)?)
}

/// [`decode_job_run`] of the bytes `input` yields, decoded as they are
/// read ([`codec::decode_from`]): a stored run (a result cache entry, a
/// shard's record) is not held whole beside the run made of it.
pub fn decode_job_run_from(scenario: &JobScenario, input: &mut dyn Read) -> Result<JobRun> {
    with_jobs(scenario, codec::decode_from(input)?)
}

/// The run of what was stored, its jobs drawn again from `scenario`; an
/// error unless there is one stored outcome for each of those jobs.
fn with_jobs(scenario: &JobScenario, stored: Stored<JobOutcome, JobMetrics>) -> Result<JobRun> {
    let Stored {
        policy,
        rep,
        outcome,
        metrics,
        elapsed,
    } = stored;
    let jobs = scenario.rep_jobs(rep);
    if jobs.jobs.len() != outcome.end.len() {
        return Err(Error::input(format!(
            "encoded job run: {} job outcomes for the {} jobs of repetition {rep}",
            outcome.end.len(),
            jobs.jobs.len()
        )));
    }
    Ok(JobRun {
        policy,
        rep,
        jobs,
        outcome,
        metrics,
        elapsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::io::scenario::Overrides;
    use crate::core::testing::Trickle;
    use crate::jobs::run::simulate_job_run;
    use crate::jobs::scenario::parse_job_scenario;

    fn encoded(run: &JobRun) -> Vec<u8> {
        let mut bytes = Vec::new();
        encode_job_run(run, &mut bytes).expect("encodes");
        bytes
    }

    /// A job run read as it is decoded (1 byte, 7 bytes or all at a time)
    /// is the run decoded from its bytes, re-encoded to the same bytes;
    /// cut or extended bytes are errors both ways.
    #[test]
    fn a_job_run_decoded_as_it_is_read_is_the_run_decoded_from_its_bytes() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path();
        std::fs::write(
            dir.join("jobs.csv"),
            "job_id,user,submit_s,duration_s,gpus
a,u,0,8,1
b,u,1,3,2
c,v,2,5,1
d,v,9,1,1
",
        )
        .expect("write");
        let text = "mode = \"jobs\"\nname = \"t\"\n[jobs]\npath = \"jobs.csv\"\n\
                    [cluster]\nnodes = 1\ngpus_per_node = 2\n\
                    [[policy]]\nname = \"f\"\nscheduler = \"fifo\"\n";
        let s = parse_job_scenario(&dir.join("s.toml"), text, Overrides::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let run = simulate_job_run(&s, 0, 0).unwrap_or_else(|e| panic!("{e}"));
        let bytes = encoded(&run);
        let whole = decode_job_run(&s, &bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(encoded(&whole), bytes);
        for n in [1, 7, bytes.len()] {
            let read = decode_job_run_from(&s, &mut Trickle::new(&bytes, n))
                .unwrap_or_else(|e| panic!("{n} at a time: {e}"));
            assert_eq!(read.jobs.jobs.len(), 4);
            assert_eq!(encoded(&read), bytes, "{n} at a time");
        }
        let cut = &bytes[..bytes.len() - 1];
        assert!(decode_job_run(&s, cut).is_err());
        assert!(decode_job_run_from(&s, &mut Trickle::new(cut, 7)).is_err());
        let mut extended = bytes.clone();
        extended.push(0);
        assert!(decode_job_run(&s, &extended).is_err());
        assert!(decode_job_run_from(&s, &mut Trickle::new(&extended, 7)).is_err());
    }
}
