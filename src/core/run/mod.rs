//! Orchestration: the runner both modes share, sweeps, the result cache, shards, Slurm scripts and task identity; it may import every other room of core.

pub mod cache;
pub mod execution;
pub mod identity;
pub mod manifest;
pub mod mode;
pub mod runner;
pub mod shard;
pub mod slurm;
pub mod sweep;
