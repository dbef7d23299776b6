//! The workflow trace parser (`[workflows] path`) and the WfFormat reader
//! (`tenantsim import-workflows`) must never panic. The first byte picks
//! the parser.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    if which % 2 == 0 {
        let _ = tenantsim::workflows::trace::WorkflowTrace::parse("fuzz.csv", rest);
    } else if let Ok(text) = std::str::from_utf8(rest) {
        let _ = tenantsim::workflows::wfformat::parse_instance("fuzz.json", "x", text);
    }
});
