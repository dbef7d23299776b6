//! A priority queue of events keyed by `(time, kind, sequence)`.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::core::sim::time::Micros;

/// One queued event: its key and a payload the caller defines.
#[derive(Debug, Clone, Copy)]
pub struct QueuedEvent<P> {
    /// Simulated time in µs.
    pub time: Micros,
    /// Event kind rank: at one instant lower kinds are processed first.
    pub kind: u8,
    /// Insertion number: breaks remaining ties first-in first-out.
    pub seq: u64,
    /// What happens.
    pub payload: P,
}

impl<P> QueuedEvent<P> {
    fn key(&self) -> (Micros, u8, u64) {
        (self.time, self.kind, self.seq)
    }
}

impl<P> PartialEq for QueuedEvent<P> {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}
impl<P> Eq for QueuedEvent<P> {}
impl<P> PartialOrd for QueuedEvent<P> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<P> Ord for QueuedEvent<P> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the smallest key.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}

/// Events ordered by `(time, kind, sequence)`: earliest time first; at equal
/// times the lower kind first; then insertion order. Keys are unique (the
/// sequence number is), so the order is total and exact. After
/// [`EventQueue::with_capacity`] nothing allocates while the number of
/// pending events stays within the capacity.
#[derive(Debug, Clone)]
pub struct EventQueue<P> {
    heap: BinaryHeap<QueuedEvent<P>>,
    next_seq: u64,
}

impl<P> Default for EventQueue<P> {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl<P> EventQueue<P> {
    /// An empty queue with room for `capacity` pending events.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            heap: BinaryHeap::with_capacity(capacity),
            next_seq: 0,
        }
    }

    /// Schedule `payload` at `time` with the given kind rank.
    pub fn push(&mut self, time: Micros, kind: u8, payload: P) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(QueuedEvent {
            time,
            kind,
            seq,
            payload,
        });
    }

    /// Remove and return the next event.
    pub fn pop(&mut self) -> Option<QueuedEvent<P>> {
        self.heap.pop()
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Micros> {
        self.heap.peek().map(|e| e.time)
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn orders_by_time_then_kind_then_insertion() {
        let mut q = EventQueue::with_capacity(8);
        q.push(5, 1, "arrival@5");
        q.push(5, 0, "completion@5 first");
        q.push(3, 1, "arrival@3");
        q.push(5, 0, "completion@5 second");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|e| e.payload)).collect();
        assert_eq!(
            order,
            [
                "arrival@3",
                "completion@5 first",
                "completion@5 second",
                "arrival@5"
            ]
        );
    }

    proptest! {
        /// Popping yields exactly the stable sort of the pushed keys.
        #[test]
        fn pops_in_sorted_key_order(events in proptest::collection::vec((0u64..20, 0u8..3), 0..200)) {
            let mut q = EventQueue::with_capacity(events.len());
            for (i, &(t, k)) in events.iter().enumerate() {
                q.push(t, k, i);
            }
            let mut expected: Vec<usize> = (0..events.len()).collect();
            expected.sort_by_key(|&i| (events[i].0, events[i].1, i));
            let got: Vec<usize> = std::iter::from_fn(|| q.pop().map(|e| e.payload)).collect();
            prop_assert_eq!(got, expected);
        }
    }
}
