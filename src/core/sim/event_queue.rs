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
///
/// Events known before a run starts (a model run's arrivals, DESIGN §2.3)
/// can be given at once ([`EventQueue::push_batch`]): they are sorted once
/// by key and kept in a run of their own beside the heap, and [`Self::pop`]
/// takes the smaller key of the two. Keys are unique, so the merge pops
/// exactly the sequence the heap alone would (unit test and proptest
/// below), while a million arrivals at t = 0 cost one sort instead of a
/// million sifts through a heap of a million entries (issue 34,
/// docs/PERFORMANCE.md "Internet scale").
#[derive(Debug, Clone)]
pub struct EventQueue<P> {
    heap: BinaryHeap<QueuedEvent<P>>,
    /// Batched events, sorted by key, the *largest* first (the next one
    /// is popped from the end).
    run: Vec<QueuedEvent<P>>,
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
            run: Vec::new(),
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

    /// Schedule every `(time, kind, payload)` of `events`, in order: the
    /// same sequence numbers, hence the same pop order, as one
    /// [`Self::push`] each. Into an empty queue they go to the sorted run
    /// (one sort by key; keys are unique, so the sort is exact); otherwise
    /// into the heap.
    pub fn push_batch(&mut self, events: impl IntoIterator<Item = (Micros, u8, P)>) {
        if !self.is_empty() {
            for (time, kind, payload) in events {
                self.push(time, kind, payload);
            }
            return;
        }
        self.run.clear();
        for (time, kind, payload) in events {
            let seq = self.next_seq;
            self.next_seq += 1;
            self.run.push(QueuedEvent {
                time,
                kind,
                seq,
                payload,
            });
        }
        // The largest key first: `Ord` is reversed (see `QueuedEvent::cmp`),
        // so an ascending sort by `Ord` puts the largest key at the front.
        // Already in key order (arrivals at equal or rising times): reverse.
        if self.run.windows(2).all(|w| w[0].key() < w[1].key()) {
            self.run.reverse();
        } else {
            self.run.sort_unstable();
        }
    }

    /// Whether the next event is the run's (its key is below the heap's
    /// top), not the heap's.
    fn next_is_run(&self) -> bool {
        match (self.run.last(), self.heap.peek()) {
            (Some(r), Some(h)) => r.key() < h.key(),
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// Remove and return the next event.
    pub fn pop(&mut self) -> Option<QueuedEvent<P>> {
        if self.next_is_run() {
            self.run.pop()
        } else {
            self.heap.pop()
        }
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Micros> {
        if self.next_is_run() {
            self.run.last().map(|e| e.time)
        } else {
            self.heap.peek().map(|e| e.time)
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len() + self.run.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.run.is_empty()
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

        /// A batch pushed first, then events pushed one at a time between
        /// pops, pop in exactly the order of a queue given every event by
        /// `push` (the heap alone), sorted or unsorted batch alike.
        #[test]
        fn a_batch_pops_as_the_same_events_pushed_one_by_one(
            batch in proptest::collection::vec((0u64..20, 0u8..3), 0..100),
            later in proptest::collection::vec((0u64..30, 0u8..3, 0usize..3), 0..100),
            sorted in any::<bool>(),
        ) {
            let mut batch = batch;
            if sorted {
                batch.sort_unstable();
            }
            let (mut a, mut b) = (EventQueue::default(), EventQueue::default());
            a.push_batch(batch.iter().enumerate().map(|(i, &(t, k))| (t, k, i)));
            for (i, &(t, k)) in batch.iter().enumerate() {
                b.push(t, k, i);
            }
            let (mut got, mut expected) = (Vec::new(), Vec::new());
            for (j, &(t, k, pops)) in later.iter().enumerate() {
                a.push(t, k, 1000 + j);
                b.push(t, k, 1000 + j);
                for _ in 0..pops {
                    prop_assert_eq!(a.peek_time(), b.peek_time());
                    prop_assert_eq!(a.len(), b.len());
                    got.extend(a.pop().map(|e| (e.time, e.kind, e.seq, e.payload)));
                    expected.extend(b.pop().map(|e| (e.time, e.kind, e.seq, e.payload)));
                }
            }
            got.extend(std::iter::from_fn(|| a.pop().map(|e| (e.time, e.kind, e.seq, e.payload))));
            expected.extend(std::iter::from_fn(|| b.pop().map(|e| (e.time, e.kind, e.seq, e.payload))));
            prop_assert!(a.is_empty());
            prop_assert_eq!(got, expected);
        }
    }
}
