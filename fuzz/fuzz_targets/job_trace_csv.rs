//! The job trace parser (`[jobs] path`, `duration_s.<type>`, `gpu_type`,
//! `group`, `cpus`) and the speed table parser (`[jobs] speeds`) must
//! never panic. The first byte picks the parser.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        let _ = tenantsim::jobs::trace::parse_job_trace("fuzz.csv", rest);
    } else {
        let _ = tenantsim::jobs::typing::parse_speed_table("fuzz.csv", rest);
    }
});
