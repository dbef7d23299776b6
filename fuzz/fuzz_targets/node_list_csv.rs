//! The job-mode node list parser (`[cluster] node_list`) must reject bad
//! bytes with an error, never panic; an accepted list obeys the limits.
#![no_main]
use libfuzzer_sys::fuzz_target;
use tenantsim::core::limits::{MAX_GPUS_PER_NODE, MAX_NODES};

fuzz_target!(|data: &[u8]| {
    if let Ok(spec) = tenantsim::core::io::cluster::parse_node_list("fuzz.csv", data) {
        let nodes = spec.nodes();
        assert!(!nodes.is_empty());
        assert!(nodes.len() as u64 <= MAX_NODES);
        assert!(
            nodes
                .iter()
                .all(|n| n.gpus >= 1 && u64::from(n.gpus) <= MAX_GPUS_PER_NODE)
        );
        assert!(
            nodes
                .iter()
                .all(|n| usize::from(n.gpu_type) < spec.types().len())
        );
    }
});
