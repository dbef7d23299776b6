//! The simulation kernel: simulated time, the event queue and loop, the indexed heap, RNG streams, the policy clock and cache prefetch hints; it may import only core's basics (error, limits, …), no other room.

pub mod active;
pub mod bits;
mod event_loop;
mod event_queue;
pub mod heap;
pub mod held;
pub mod policy_clock;
pub mod prefetch;
pub mod rng;
pub mod slot_index;
pub mod time;
pub mod undrawn;

pub use active::ActiveTable;
pub use bits::Bits;
pub use event_loop::{
    Component, EVENTS_HANDLED, EventLoop, FURTHEST_SIMULATED, LoopEnd, PROGRESS_STEP, run_events,
};
pub use event_queue::{EventQueue, NEXT_FROM_HEAP, QueuedEvent};
pub use slot_index::SlotIndex;
pub use undrawn::Undrawn;
