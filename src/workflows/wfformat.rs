//! `tenantsim import-workflows wfformat` (DESIGN §14.1): WfFormat
//! (WfCommons) instances to the workflow CSV. (Issue 30: being built.)
