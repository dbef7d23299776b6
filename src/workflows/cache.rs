//! The memo cache of step outputs (DESIGN §14.3): entries keyed by
//! (scope, cache key), expiry, capacity and the `lru` and `cost`
//! eviction rules. (Issue 30: being built.)
