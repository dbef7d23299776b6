//! The result files of shared-cluster mode's own (docs/REFERENCE.md
//! "Shared-cluster mode", DESIGN §13.5): `shares.csv` at the top of the
//! folder and `service/jobs.csv` by segment. The other files of
//! `service/` and `background/` are model and job mode's, unchanged.

use super::FileSchema;

/// Every file of shared mode's own.
pub const ALL: &[&FileSchema] = &[&shares::FILE, &jobs::FILE];

/// `shares.csv`: the GPUs each workload holds over time.
pub mod shares {
    super::super::file_schema::result_file! {
        fixed Shared, "shares.csv", rows "change of a workload's GPU count in a run, in time order per (policy, repetition)", written "always, at the top of the folder";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        TIME_S = "time_s": Seconds, "s", Always, "from this instant on";
        WORKLOAD = "workload": Text, "", Always, "`service` or `background`";
        GPUS = "gpus": Int, "GPUs", Always, "GPUs the workload holds until its next row of the same (policy, rep)";
    }
}

/// `service/jobs.csv` by segment: written instead of model mode's
/// `jobs.csv` when a service job can be preempted (a background, or a
/// preemptive cluster scheduler in some policy).
pub mod jobs {
    super::super::file_schema::result_file! {
        Shared, "jobs.csv", rows "segment a service job held GPUs (in service/; a job's segments in time order, jobs in start order)", written "with --jobs when a service job can be preempted (a [jobs] background, or a preemptive cluster scheduler); otherwise service/jobs.csv is model mode's";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        JOB = "job": Int, "", Always, "the job's number in start order within the run, from 0";
        GPU = "gpu": Int, "", Always, "the first GPU of the node the segment ran on (GPUs numbered node by node)";
        USER = "user": Text, "", Always, "its tenant's user id";
        MODEL = "model": Text, "", Always, "the model trained";
        START_S = "start_s": Seconds, "s", Always, "the segment's start";
        END_S = "end_s": Seconds, "s", Always, "the segment's end";
        ACCURACY = "accuracy": Float, "accuracy", Always, "the job's accuracy, seen when it completes (the same on each of its segments, as model mode writes it for every job)";
        FIDELITY = "fidelity": Float, "", CurveTrace, "the fidelity it trained at (> 0)";
        GPU_TYPE = "gpu_type": Text, "", TypedCluster, "the type of its GPU";
        SEGMENT = "segment": Int, "", Always, "the segment's number within the job, from 0";
        GPUS = "gpus": Int, "GPUs", Always, "GPUs it held";
        OVERHEAD_S = "overhead_s": Seconds, "s", Always, "restore time at its start (restart_overhead_s on a checkpointed resume, else 0)";
        COMPLETED = "completed": Int, "", Always, "1 on the segment that completed the job, else 0";
    }
}
