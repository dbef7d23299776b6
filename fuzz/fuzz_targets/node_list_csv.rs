//! The job-mode node list parser (`[cluster] node_list`) must reject bad
//! bytes with an error, never panic; an accepted list obeys the limits.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(nodes) = tenantsim::jobs::sim::cluster::parse_node_list("fuzz.csv", data) {
        assert!(!nodes.is_empty());
        assert!(nodes.len() as u64 <= tenantsim::core::limits::MAX_NODES);
        assert!(
            nodes
                .iter()
                .all(|(_, g)| *g >= 1 && u64::from(*g) <= tenantsim::core::limits::MAX_GPUS_PER_NODE)
        );
    }
});
