//! Importers: Alibaba v2023 on the real pod list (counts asserted; skipped
//! when `../shared/data` is absent), Philly and Helios on small fixtures
//! written for these tests (`tests/fixtures/`).

use tenantsim::core::testing::shared_data;

use std::path::{Path, PathBuf};

use tenantsim::jobs::JobTrace;
use tenantsim::jobs::import::{Fractional, ImportFormat, ImportOptions, import_jobs};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Counts from the pod list (SOURCE.md and a direct count of the CSV):
/// 8,152 pods; 1,088 ask for no GPU; of the 7,064 GPU pods 861 never got a
/// `scheduled_time` (Pending); every scheduled pod has deletion > scheduled,
/// so 6,203 are kept. 2,573 of them share a GPU (`num_gpu` 1, `gpu_milli`
/// < 1000). GPUs: 6,571 with fractions rounded up to one, 3,998 without
/// them. Kept multi-GPU pods: 15 × 2, 15 × 4, 44 × 8 GPUs.
#[test]
fn alibaba_v2023_default_pod_list() {
    let Some(path) = shared_data("alibaba-gpu-v2023/openb_pod_list_default.csv") else {
        return;
    };
    let (rows, report) =
        import_jobs(ImportFormat::Alibaba, &path, ImportOptions::default()).expect("imports");
    assert_eq!(report.rows, 8152);
    assert_eq!(report.cpu_only, 1088);
    assert_eq!(report.never_ran, 861);
    assert_eq!(report.no_duration, 0);
    assert_eq!(report.kept, 6203);
    assert_eq!(report.fractional_rounded, 2573);
    assert_eq!(report.gpus, 6571);
    assert_eq!(rows.len(), 6203);
    let count = |g: u32| rows.iter().filter(|r| r.gpus == g).count();
    assert_eq!((count(2), count(4), count(8)), (15, 15, 44));
    // QoS classes are the users.
    let mut users: Vec<&str> = rows.iter().map(|r| r.user.as_str()).collect();
    users.sort_unstable();
    users.dedup();
    assert_eq!(users, ["BE", "Burstable", "Guaranteed", "LS"]);
    // First pod: created at 0, scheduled at 0, deleted at 12,537,496.
    assert_eq!(rows[0].job_id, "openb-pod-0000");
    assert_eq!((rows[0].submit_s, rows[0].duration_s), (0.0, 12_537_496.0));
    let trace = JobTrace::from_rows("alibaba", &rows).expect("valid job trace");
    assert_eq!(trace.len(), 6203);

    let (dropped, report) = import_jobs(
        ImportFormat::Alibaba,
        &path,
        ImportOptions {
            fractional: Fractional::Drop,
            ..ImportOptions::default()
        },
    )
    .expect("imports");
    assert_eq!(report.fractional_dropped, 2573);
    assert_eq!(dropped.len(), 6203 - 2573);
    assert_eq!(report.gpus, 3998);
}

/// The fixture has 6 jobs: application_3 asks for 0 GPUs (skipped),
/// application_4 never started (`None`), application_5 ran 0 s (skipped).
/// application_2 has no `duration`: end − start = 90 s. Submits are
/// relative to the first kept submit (05:05:53).
#[test]
fn philly_fixture() {
    let (rows, report) = import_jobs(
        ImportFormat::Philly,
        &fixture("philly_trace.csv"),
        ImportOptions::default(),
    )
    .expect("imports");
    assert_eq!(
        (
            report.rows,
            report.kept,
            report.cpu_only,
            report.never_ran,
            report.no_duration
        ),
        (6, 3, 1, 1, 1)
    );
    type Row<'a> = (&'a str, &'a str, f64, f64, u32, Option<&'a str>);
    let got: Vec<Row<'_>> = rows
        .iter()
        .map(|r| {
            (
                r.job_id.as_str(),
                r.user.as_str(),
                r.submit_s,
                r.duration_s,
                r.gpus,
                r.group.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("application_1", "6214e9", 0.0, 7200.0, 8, Some("ee9e8c")),
            ("application_2", "b7cbd2", 247.0, 90.0, 1, Some("ee9e8c")),
            (
                "application_6",
                "b7cbd2",
                3247.0,
                86400.0,
                16,
                Some("ee9e8c")
            ),
        ]
    );
}

/// The fixture has 6 jobs: 5235 is a CPU job, 5236 never started (empty
/// `start_time`), 5239 ran 0 s. Submits are relative to 2020-04-01
/// 00:00:03; 5238 was submitted a day later (86,400 s).
#[test]
fn helios_fixture() {
    let (rows, report) = import_jobs(
        ImportFormat::Helios,
        &fixture("helios_cluster_log.csv"),
        ImportOptions::default(),
    )
    .expect("imports");
    assert_eq!(
        (
            report.rows,
            report.kept,
            report.cpu_only,
            report.never_ran,
            report.no_duration
        ),
        (6, 3, 1, 1, 1)
    );
    assert_eq!(report.gpus, 8 + 2 + 16);
    let got: Vec<(&str, f64, f64, u32)> = rows
        .iter()
        .map(|r| (r.job_id.as_str(), r.submit_s, r.duration_s, r.gpus))
        .collect();
    assert_eq!(
        got,
        [
            ("5234", 0.0, 4054.0, 8),
            ("5237", 147.0, 45.0, 2),
            ("5238", 86_400.0, 86_400.0, 16),
        ]
    );
    assert!(rows.iter().all(|r| r.group.is_some()));
}
