//! `tenantsim gen workflows` (DESIGN §14.1): ML pipelines submitted by
//! tenants over time. (Issue 30: being built.)
