//! The result files of job mode (docs/REFERENCE.md "Job-trace mode"), in
//! the order `tenantsim schema` lists them. Times with six decimals are
//! exact microseconds for submit, start, end and makespan and rounded for
//! averages and percentiles.

use super::FileSchema;

/// Every job-mode file.
pub const ALL: &[&FileSchema] = &[
    &summary::FILE,
    &users::FILE,
    &utilization::FILE,
    &utilization_by_type::FILE,
    &jobs::FILE,
    &sweep::FILE,
];

/// Job-mode `summary.csv`.
pub mod summary {
    super::super::file_schema::result_file! {
        Jobs, "summary.csv", rows "(policy, repetition)", written "always";
        POLICY = "policy": Text, "", Always, "policy name (scenario order)";
        REP = "rep": Int, "", Always, "repetition";
        JOBS = "jobs": Int, "", Always, "jobs in the run";
        MEAN_JCT_S = "mean_jct_s": Seconds, "s", Always, "mean job completion time, JCT = end − submit";
        MEDIAN_JCT_S = "median_jct_s": Seconds, "s", Always, "median JCT (percentiles by linear interpolation between closest ranks, numpy's default)";
        P95_JCT_S = "p95_jct_s": Seconds, "s", Always, "95th percentile JCT";
        P99_JCT_S = "p99_jct_s": Seconds, "s", Always, "99th percentile JCT";
        MEAN_QUEUEING_DELAY_S = "mean_queueing_delay_s": Seconds, "s", Always, "mean of first start − submit";
        MAKESPAN_S = "makespan_s": Seconds, "s", Always, "last end − first submit";
        GPU_UTILIZATION = "gpu_utilization": Float, "", Always, "GPU time held, restores included / (GPUs × makespan)";
        JAIN_INDEX = "jain_index": Float, "", Always, "Jain's index over the users' mean slowdowns (JCT / duration)";
        PREEMPTIONS = "preemptions": Int, "", Always, "preemptions";
        EVENTS = "events": Int, "", Always, "events handled by the loop (stale completions of preempted runs included)";
        GPU_UTILIZATION_BY_TYPE = "gpu_utilization.<type>": Float, "", TypedCluster, "utilisation of the type's GPUs, per GPU type";
        CPU_UTILIZATION = "cpu_utilization": Float, "", CpuCluster, "CPU time held, restores included / (CPUs × makespan) (DESIGN §14.6)";
    }
}

/// `users.csv`.
pub mod users {
    super::super::file_schema::result_file! {
        fixed Jobs, "users.csv", rows "(policy, repetition, user with a job in the run)", written "always";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        USER = "user": Text, "", Always, "user id";
        JOBS = "jobs": Int, "", Always, "the user's jobs";
        MEAN_JCT_S = "mean_jct_s": Seconds, "s", Always, "their mean JCT";
        MEAN_SLOWDOWN = "mean_slowdown": Float, "", Always, "mean of JCT / duration";
        FTF_RHO = "ftf_rho": Float, "", Always, "finish-time fairness ρ = Σ JCT / Σ duration";
    }
}

/// `utilization.csv`.
pub mod utilization {
    super::super::file_schema::result_file! {
        fixed Jobs, "utilization.csv", rows "(policy, repetition, time bucket), at most 1000 buckets a run", written "always";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        TIME_S = "time_s": Seconds, "s", Always, "bucket start";
        DURATION_S = "duration_s": Seconds, "s", Always, "bucket length";
        BUSY_GPUS = "busy_gpus": Float, "GPUs", Always, "GPUs held, time-averaged over the bucket";
        UTILIZATION = "utilization": Float, "", Always, "busy_gpus over the cluster's GPUs";
    }
}

/// `utilization_by_type.csv`.
pub mod utilization_by_type {
    super::super::file_schema::result_file! {
        fixed Jobs, "utilization_by_type.csv", rows "(policy, repetition, GPU type, time bucket)", written "on a typed cluster";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        GPU_TYPE = "gpu_type": Text, "", Always, "GPU type";
        TIME_S = "time_s": Seconds, "s", Always, "bucket start (the buckets of utilization.csv)";
        DURATION_S = "duration_s": Seconds, "s", Always, "bucket length";
        BUSY_GPUS = "busy_gpus": Float, "GPUs", Always, "GPUs of the type held, time-averaged over the bucket";
        UTILIZATION = "utilization": Float, "", Always, "busy_gpus over the type's GPUs";
    }
}

/// Job-mode `jobs.csv`.
pub mod jobs {
    super::super::file_schema::result_file! {
        Jobs, "jobs.csv", rows "job of a run, in trace order", written "with --jobs";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        JOB_ID = "job_id": Text, "", Always, "the job's id in the trace";
        USER = "user": Text, "", Always, "its user";
        SUBMIT_S = "submit_s": Seconds, "s", Always, "submit time";
        START_S = "start_s": Seconds, "s", Always, "first start (a preempted job may run several times)";
        END_S = "end_s": Seconds, "s", Always, "completion";
        GPUS = "gpus": Int, "", Always, "GPUs it asked for";
        GPU_TYPE = "gpu_type": Text, "", TypedCluster, "the type of its last run";
    }
}

/// Job-mode `sweep.csv`.
pub mod sweep {
    super::super::file_schema::result_file! {
        Jobs, "sweep.csv", rows "(grid point, policy)", written "by a sweep, in its folder";
        POINT = "point": Int, "", Always, "grid point index";
        FOLDER = "folder": Text, "", Always, "the point's results folder";
        KEY = "<key>": Value, "", Always, "the point's value of each swept key";
        POLICY = "policy": Text, "", Always, "policy name";
        BASELINE = "baseline": Text, "", Always, "the point's baseline policy";
        REPS = "reps": Int, "", Always, "repetitions";
        MEAN_JCT_S = "mean_jct_s": Float, "s", Always, "mean over repetitions of the mean JCT";
        MEAN_JCT_CI_LOW_S = "mean_jct_ci_low_s": Float, "s", Always, "lower end of its Student-t band";
        MEAN_JCT_CI_HIGH_S = "mean_jct_ci_high_s": Float, "s", Always, "upper end of the band";
        MEDIAN_JCT_S = "median_jct_s": Float, "s", Always, "mean median JCT";
        P95_JCT_S = "p95_jct_s": Float, "s", Always, "mean 95th percentile JCT";
        P99_JCT_S = "p99_jct_s": Float, "s", Always, "mean 99th percentile JCT";
        MEAN_QUEUEING_DELAY_S = "mean_queueing_delay_s": Float, "s", Always, "mean queueing delay";
        MAKESPAN_S = "makespan_s": Float, "s", Always, "mean makespan";
        GPU_UTILIZATION = "gpu_utilization": Float, "", Always, "mean GPU utilisation";
        JAIN_INDEX = "jain_index": Float, "", Always, "mean Jain index";
        PREEMPTIONS = "preemptions": Float, "", Always, "mean preemptions";
        SPEEDUP = "speedup": Ratio, "", Always, "the baseline's mean JCT over the policy's (empty when undefined)";
    }
}
