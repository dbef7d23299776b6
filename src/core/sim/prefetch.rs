//! Cache prefetch hints: ask the CPU to start loading what a later event
//! will read (docs/DESIGN.md §10.4 "Prefetch hints").
//!
//! At 10^6 tenants each piece of a tenant's state (its engine record, its
//! GP posterior, its score-heap entry, its trace row) is a cache miss
//! when its event comes, and the misses of one event depend on each other
//! (a slot number, then the record it names, then what the record points
//! to), so the engine waited for them one after another. Knowing the next
//! events' tenants (the next completions' from the event queue, the next
//! picks' from the scheduler), it now names what they will read a few
//! events ahead (its own state and, through the policies' `prefetch`
//! methods, theirs),
//! and the loads overlap the work in between (scale-1m:
//! docs/PERFORMANCE.md "Internet scale", "Reading the next completions'
//! tenants ahead").
//!
//! A hint changes no result: it reads nothing the program sees, and a
//! wrong or stale hint costs only the load. On targets other than x86-64
//! it does nothing.

/// How far ahead a prefetch hint comes (model mode's
/// `Selector::prefetch` and `Scheduler::prefetch`). The engine names the
/// tenant of each of the next three job completions, and of the
/// scheduler's next picks (`Scheduler::next_picks`), one step an event,
/// so that each step can follow what the step before brought into the
/// cache (a slot number, then the slot it names, then what the slot
/// points to; DESIGN §10.4 "Prefetch hints").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrefetchStep {
    /// Three completions (or picks) ahead: what is indexed by tenant
    /// (slot numbers).
    Index,
    /// Two completions (or the pick after next): the records those name
    /// (a tenant's slot).
    Record,
    /// The next completion: what those records point to (a posterior's
    /// numbers). A pick reads no posterior, and gets no such step.
    Data,
}

/// The engine hints a run once this many tenants have been live at once
/// (DESIGN §10.4). Below it their state fits in the caches, and the hints
/// are only work: with them on, `scenarios/bench-repetitions.toml` (40
/// tenants) took 6 % longer (9.28–9.68 s against 8.57–9.05 s,
/// docs/PERFORMANCE.md "Reading the next completions' tenants ahead"),
/// while scale-1m (10^6 live) took a quarter less. At 20 models a GP-UCB
/// tenant's state is about 2.1 KB (a 1,840-byte posterior, a 136-byte
/// selector slot, the engine's 56-byte state and 20 flags, the score
/// heap's entries), so 16,384 of them hold about 34 MB, more than a
/// server's last-level cache share.
pub const HINT_FROM_LIVE: usize = 16_384;

/// Bytes in a cache line (x86-64; on a CPU with larger lines a hint per
/// 64 bytes only repeats itself).
pub const LINE: usize = 64;

/// Hint that the cache line holding `value`'s first byte will be read
/// soon.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    prefetch_byte(std::ptr::from_ref(value).cast::<u8>());
}

/// Hint that every cache line of `value` (all `size_of::<T>()` bytes)
/// will be read soon: a record wider than a line, or one that straddles
/// two.
#[inline(always)]
pub fn prefetch_all<T>(value: &T) {
    prefetch_bytes(std::ptr::from_ref(value).cast::<u8>(), size_of::<T>());
}

/// Hint that every cache line of `values` will be read soon.
#[inline(always)]
pub fn prefetch_slice<T>(values: &[T]) {
    prefetch_bytes(values.as_ptr().cast::<u8>(), size_of_val(values));
}

/// One hint per line over `len` bytes from `start`.
#[inline(always)]
fn prefetch_bytes(start: *const u8, len: usize) {
    line_offsets(start as usize, len, |offset| {
        prefetch_byte(start.wrapping_add(offset));
    });
}

/// `hint(offset)` for one byte in each cache line that `[first, first +
/// len)` touches, in order: the first byte, then each line boundary after
/// it (a range that straddles lines is covered).
#[inline(always)]
fn line_offsets(first: usize, len: usize, mut hint: impl FnMut(usize)) {
    if len == 0 {
        return;
    }
    let last = first + (len - 1);
    hint(0);
    let mut line = (first / LINE + 1) * LINE;
    while line <= last {
        hint(line - first);
        line += LINE;
    }
}

/// The hint itself: `prefetcht0` (into every cache level).
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch_byte(at: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is `unsafe` only for its `#[target_feature]`
    // ("sse", which every x86-64 CPU has). It is a hint: it changes no
    // architectural state, reads nothing the program sees and never
    // faults, whatever the address; callers pass addresses inside live
    // references anyway.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines `line_offsets` names for `[first, first + len)`.
    fn lines_hinted(first: usize, len: usize) -> Vec<usize> {
        let mut out = Vec::new();
        line_offsets(first, len, |offset| {
            assert!(offset < len.max(1), "offset {offset} past the range");
            out.push((first + offset) / LINE);
        });
        out
    }

    #[test]
    fn every_line_of_a_range_is_hinted_once() {
        // Brute force: the set of lines the bytes of [first, first + len)
        // fall in, each once, in order.
        for first in 0..3 * LINE {
            for len in 0..5 * LINE {
                let mut expected: Vec<usize> = (first..first + len).map(|b| b / LINE).collect();
                expected.dedup();
                assert_eq!(
                    lines_hinted(first, len),
                    expected,
                    "first {first}, len {len}"
                );
            }
        }
    }

    #[test]
    fn hints_take_any_reference_and_change_nothing() {
        let values: Vec<u64> = (0..1000).collect();
        prefetch(&values[3]);
        prefetch_all(&values);
        prefetch_slice(&values);
        prefetch_slice(&values[..0]);
        prefetch_all(&());
        let wide = [[7u8; 200]; 3];
        prefetch_all(&wide);
        assert_eq!(values.iter().sum::<u64>(), 999 * 1000 / 2);
        assert!(wide.iter().flatten().all(|&b| b == 7));
    }
}
