//! The result files of model mode (DESIGN §6; docs/REFERENCE.md "Results
//! folder"), in the order `tenantsim schema` lists them.

use super::FileSchema;

/// Every model-mode file (in the Python package's order of its tables).
pub const ALL: &[&FileSchema] = &[
    &summary::FILE,
    &curves::FILE,
    &curves_by_job::FILE,
    &speedups::FILE,
    &speedups_up_to::FILE,
    &regret::FILE,
    &tenants::FILE,
    &jobs::FILE,
    &sweep::FILE,
];

/// `summary.csv`.
pub mod summary {
    super::super::file_schema::result_file! {
        Models, "summary.csv", rows "(policy, repetition)", written "always";
        POLICY = "policy": Text, "", Always, "policy name (scenario order)";
        REP = "rep": Int, "", Always, "repetition";
        TENANTS = "tenants": Int, "", Always, "tenants in the run";
        FINAL_LOSS = "final_loss": Float, "accuracy", Always, "L at the run's end: mean over arrived tenants of best possible minus best seen accuracy (DESIGN §2.6)";
        CUMULATIVE_REGRET = "cumulative_regret": Float, "accuracy·s", Always, "R(end): the integral of S (the summed tenant losses) over the run (DESIGN §2.6)";
        TIME_TO = "time_to_<θ>_s": SecondsOrInf, "s", Always, "T(θ): the first τ after the last arrival with L(τ) ≤ θ, per θ of the scenario (DESIGN §2.6)";
        JOBS = "jobs": Int, "", Always, "jobs completed";
        GPU_BUSY_FRACTION = "gpu_busy_fraction": Float, "", Always, "busy GPU time / (GPUs × end)";
        END_S = "end_s": Seconds, "s", Always, "the run's end";
        EVENTS = "events": Int, "", Always, "events simulated";
        REGRET_AREA_MEAN = "regret_area_mean": Float, "accuracy·s", Always, "mean over tenants of the regret area from each one's arrival";
        REGRET_AREA_P50 = "regret_area_p50": Float, "accuracy·s", Always, "median tenant regret area (type-7 quantile)";
        REGRET_AREA_P90 = "regret_area_p90": Float, "accuracy·s", Always, "90th percentile of tenant regret areas (type 7)";
        REGRET_AREA_MAX = "regret_area_max": Float, "accuracy·s", Always, "largest tenant regret area";
        JAIN_INDEX = "jain_index": FloatOrNa, "", Always, "Jain's index of regret areas over isolated areas (`n/a` with fairness = false)";
        ABANDONED = "abandoned": Int, "", Always, "tenants that left";
        GPU_BUSY_FRACTION_BY_TYPE = "gpu_busy_fraction.<type>": Float, "", TypedCluster, "busy GPU time on the type / (its GPUs × end), per GPU type";
        LOW_FIDELITY_GPU_S = "low_fidelity_gpu_s": Seconds, "GPU·s", CurveTrace, "GPU time of jobs below their pair's top fidelity";
    }
}

/// `tenants.csv`.
pub mod tenants {
    super::super::file_schema::result_file! {
        Models, "tenants.csv", rows "(policy, repetition, tenant)", written "always";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        USER = "user": Text, "", Always, "the tenant's user id";
        ARRIVAL_S = "arrival_s": Seconds, "s", Always, "arrival";
        REGRET_AREA = "regret_area": Float, "accuracy·s", Always, "the tenant's regret area from its arrival";
        TIME_TO = "time_to_<θ>_s": SecondsOrInf, "s", Always, "from arrival until the tenant's own loss ≤ θ, per θ";
        WAIT_FIRST_JOB_S = "wait_first_job_s": SecondsOrInf, "s", Always, "from arrival to its first job's start (`inf` if never served)";
        LONGEST_GAP_S = "longest_gap_s": Seconds, "s", Always, "longest stretch without a running job between its arrival and the end of its demand";
        JOBS = "jobs": Int, "", Always, "jobs completed";
        GPU_S = "gpu_s": Seconds, "GPU·s", Always, "GPU time used";
        ISOLATED_REGRET_AREA = "isolated_regret_area": FloatOrNa, "accuracy·s", Always, "its regret area alone on the cluster (`n/a` with fairness = false)";
        ABANDONED = "abandoned": Bool, "", Always, "whether it left";
        BUDGET_EXHAUSTED = "budget_exhausted": Bool, "", Always, "whether it spent its budget";
        ENDED = "ended": Text, "", EndReasons, "why the tenant ended";
    }
}

/// `curves.csv`.
pub mod curves {
    super::super::file_schema::result_file! {
        fixed Models, "curves.csv", rows "(policy, grid instant)", written "always";
        POLICY = "policy": Text, "", Always, "policy name";
        TIME_S = "time_s": Seconds, "s", Always, "grid instant τ (ascending per policy)";
        MEAN_LOSS = "mean_loss": Float, "accuracy", Always, "mean of L(τ) over the repetitions defined at τ";
        CI_LOW = "ci_low": Float, "accuracy", Always, "lower end of the mean's Student-t band";
        CI_HIGH = "ci_high": Float, "accuracy", Always, "upper end of the band";
        REPS = "reps": Int, "", Always, "repetitions defined at τ";
        MEDIAN_LOSS = "median_loss": Float, "accuracy", Always, "median of L(τ)";
        Q_LOW = "q_low": Float, "accuracy", Always, "lower inter-quantile bound";
        Q_HIGH = "q_high": Float, "accuracy", Always, "upper inter-quantile bound";
    }
}

/// `curves_by_job.csv`.
pub mod curves_by_job {
    super::super::file_schema::result_file! {
        fixed Models, "curves_by_job.csv", rows "(policy, number of completed jobs)", written "always (the header alone without a job-axis aggregate)";
        POLICY = "policy": Text, "", Always, "policy name";
        JOBS = "jobs": Int, "", Always, "completed jobs j (ascending per policy, from 0)";
        MEAN_LOSS = "mean_loss": Float, "accuracy", Always, "mean over repetitions of L right after the j-th completion";
        CI_LOW = "ci_low": Float, "accuracy", Always, "lower end of the mean's Student-t band";
        CI_HIGH = "ci_high": Float, "accuracy", Always, "upper end of the band";
        REPS = "reps": Int, "", Always, "repetitions";
        MEDIAN_LOSS = "median_loss": Float, "accuracy", Always, "median of L";
        Q_LOW = "q_low": Float, "accuracy", Always, "lower inter-quantile bound";
        Q_HIGH = "q_high": Float, "accuracy", Always, "upper inter-quantile bound";
    }
}

/// `speedups.csv`.
pub mod speedups {
    super::super::file_schema::result_file! {
        fixed Models, "speedups.csv", rows "(policy, θ), the baseline included", written "always";
        POLICY = "policy": Text, "", Always, "policy name";
        BASELINE = "baseline": Text, "", Always, "the baseline policy's name";
        THETA = "theta": Float, "accuracy", Always, "the threshold θ";
        T_BASELINE_S = "t_baseline_s": SecondsOrInf, "s", Always, "T_B(θ): when the baseline's mean curve reaches θ";
        T_POLICY_S = "t_policy_s": SecondsOrInf, "s", Always, "T_X(θ): when the policy's mean curve reaches θ";
        SPEEDUP = "speedup": Ratio, "", Always, "T_B / T_X (`inf` only the baseline never, `0` only the policy never, `n/a` neither)";
        MEDIAN_REP_SPEEDUP = "median_rep_speedup": Ratio, "", Always, "median over repetitions of the per-repetition ratio";
    }
}

/// `speedups_up_to.csv`.
pub mod speedups_up_to {
    super::super::file_schema::result_file! {
        fixed Models, "speedups_up_to.csv", rows "policy, the baseline included", written "always";
        POLICY = "policy": Text, "", Always, "policy name";
        BASELINE = "baseline": Text, "", Always, "the baseline policy's name";
        UP_TO_SPEEDUP = "up_to_speedup": FloatOrNa, "", Always, "largest finite T_B(θ)/T_X(θ) over the θ grid";
        AT_THETA = "at_theta": FloatOrNa, "accuracy", Always, "the θ where it occurs";
        THETA_LOW = "theta_low": Float, "accuracy", Always, "lowest θ of the grid";
        THETA_HIGH = "theta_high": Float, "accuracy", Always, "highest θ of the grid";
        POINTS = "points": Int, "", Always, "log-spaced θ values in the grid";
    }
}

/// `regret.csv`.
pub mod regret {
    super::super::file_schema::result_file! {
        fixed Models, "regret.csv", rows "policy", written "always";
        POLICY = "policy": Text, "", Always, "policy name";
        BASELINE = "baseline": Text, "", Always, "the baseline policy's name";
        REPS = "reps": Int, "", Always, "repetitions";
        MEAN_REGRET = "mean_regret": Float, "accuracy·s", Always, "mean cumulative regret R(end)";
        CI_LOW = "ci_low": Float, "accuracy·s", Always, "lower end of the mean's Student-t band";
        CI_HIGH = "ci_high": Float, "accuracy·s", Always, "upper end of the band";
        MEDIAN_REGRET = "median_regret": Float, "accuracy·s", Always, "median cumulative regret";
        RATIO_TO_BASELINE = "ratio_to_baseline": Ratio, "", Always, "R_X / R_B of the means (`inf` when R_B = 0 < R_X)";
        MEDIAN_REP_RATIO = "median_rep_ratio": Ratio, "", Always, "median over repetitions of R_X,r / R_B,r";
    }
}

/// Model-mode `jobs.csv`.
pub mod jobs {
    super::super::file_schema::result_file! {
        Models, "jobs.csv", rows "completed job of a run", written "with --jobs";
        POLICY = "policy": Text, "", Always, "policy name";
        REP = "rep": Int, "", Always, "repetition";
        JOB = "job": Int, "", Always, "the job's number in start order within the run, from 0";
        GPU = "gpu": Int, "", Always, "the GPU it ran on";
        USER = "user": Text, "", Always, "its tenant's user id";
        MODEL = "model": Text, "", Always, "the model trained";
        START_S = "start_s": Seconds, "s", Always, "start";
        END_S = "end_s": Seconds, "s", Always, "completion";
        ACCURACY = "accuracy": Float, "accuracy", Always, "the accuracy seen at completion";
        FIDELITY = "fidelity": Float, "", CurveTrace, "the fidelity it trained at (> 0)";
        GPU_TYPE = "gpu_type": Text, "", TypedCluster, "the type of its GPU";
    }
}

/// Model-mode `sweep.csv`.
pub mod sweep {
    super::super::file_schema::result_file! {
        Models, "sweep.csv", rows "(grid point, policy)", written "by a sweep, in its folder";
        POINT = "point": Int, "", Always, "grid point index";
        FOLDER = "folder": Text, "", Always, "the point's results folder";
        KEY = "<key>": Value, "", Always, "the point's value of each swept key";
        POLICY = "policy": Text, "", Always, "policy name";
        BASELINE = "baseline": Text, "", Always, "the point's baseline policy";
        REPS = "reps": Int, "", Always, "repetitions";
        FINAL_LOSS_MEAN = "final_loss_mean": Float, "accuracy", Always, "mean final loss";
        REGRET_MEAN = "regret_mean": Float, "accuracy·s", Always, "mean cumulative regret";
        REGRET_CI_LOW = "regret_ci_low": Float, "accuracy·s", Always, "lower end of its Student-t band";
        REGRET_CI_HIGH = "regret_ci_high": Float, "accuracy·s", Always, "upper end of the band";
        REGRET_RATIO = "regret_ratio": Ratio, "", Always, "mean regret over the baseline's";
        TIME_TO = "time_to_<θ>_s": SecondsOrInfOrEmpty, "s", Always, "when the mean curve reaches θ, per θ of any point (empty where the point has no such θ)";
        SPEEDUP = "speedup_<θ>": Ratio, "", Always, "speedup over the point's baseline at θ, per θ of any point (empty where undefined)";
    }
}
