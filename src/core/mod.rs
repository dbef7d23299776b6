//! The mode-agnostic core: what model-selection mode ([`crate::models`])
//! and job-trace mode ([`crate::jobs`]) share. Nothing here knows either
//! mode (DESIGN §10, the dependency rule).
//!
//! Four rooms and a few shared basics; each room's `mod.rs` says what it
//! holds and what it may import, and `tests/it/architecture.rs` checks it:
//!
//! | room | holds | may import (inside core) |
//! |---|---|---|
//! | [`sim`] | the simulation kernel: time, the event queue and loop, the indexed heap, RNG streams, the policy clock | the basics |
//! | [`io`] | input and output: atomic writes, results folders, CSV reading and writing, scenario files, node lists, the binary codec, text tables | the basics, [`sim`] |
//! | [`analysis`] | statistics, `check` against goldens, `compare` | the basics, [`sim`], [`io`] |
//! | [`run`] | orchestration: the runner, sweeps, the result cache, shards, Slurm scripts, task identity | everything in core |
//! | basics ([`error`], [`interrupt`], [`named`], [`params`], [`choice`], [`limits`], [`memory`], [`resources`], [`testing`]) | what every room uses | each other only |

pub mod analysis;
pub mod choice;
pub mod error;
pub mod interrupt;
pub mod io;
pub mod limits;
pub mod memory;
pub mod named;
pub mod params;
pub mod resources;
pub mod run;
pub mod sim;
pub mod spelling;
#[doc(hidden)]
pub mod testing;
