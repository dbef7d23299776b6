//! A priority queue of events keyed by `(time, kind, sequence)`.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

use crate::core::sim::time::Micros;

/// How many events [`EventQueue::next_from_heap`] names.
pub const NEXT_FROM_HEAP: usize = 3;

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
    /// The batched events, if any.
    run: Option<Batch<P>>,
    next_seq: u64,
}

/// Events of one kind given at once, held as their times (shared with
/// the caller: an `Arc`) and, only when the times are not already in
/// order, a permutation (4 bytes an event), rather than as 32-byte
/// [`QueuedEvent`]s: batch event `j` has the key `(times[j], kind,
/// first_seq + j)` and the payload `payload(j)`, made when it is popped.
/// 10^7 arrivals in time order hold no byte beyond their times, which the
/// run's tenants share (issue 34: a year of tenants; 320 MB as events).
#[derive(Debug, Clone)]
struct Batch<P> {
    times: Arc<[Micros]>,
    /// Batch indices not popped yet, in key order.
    pending: Pending,
    kind: u8,
    first_seq: u64,
    payload: fn(u32) -> P,
}

/// The batch indices not popped yet.
#[derive(Debug, Clone)]
enum Pending {
    /// `next..end`, ascending: the times are in order.
    InOrder { next: u32, end: u32 },
    /// Sorted by key, the *largest* first (the next one is popped from the
    /// end).
    Sorted(Vec<u32>),
}

impl Pending {
    fn peek(&self) -> Option<u32> {
        match self {
            Self::InOrder { next, end } => (next < end).then_some(*next),
            Self::Sorted(order) => order.last().copied(),
        }
    }

    fn pop(&mut self) -> Option<u32> {
        match self {
            Self::InOrder { next, end } => {
                let j = (*next < *end).then_some(*next)?;
                *next += 1;
                Some(j)
            }
            Self::Sorted(order) => order.pop(),
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::InOrder { next, end } => (end - next) as usize,
            Self::Sorted(order) => order.len(),
        }
    }
}

impl<P> Batch<P> {
    /// The next batch event's key, if any.
    fn next_key(&self) -> Option<(Micros, u8, u64)> {
        self.pending.peek().map(|j| self.key(j))
    }

    fn key(&self, j: u32) -> (Micros, u8, u64) {
        (
            self.times[j as usize],
            self.kind,
            self.first_seq + u64::from(j),
        )
    }
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
            run: None,
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

    /// Schedule one event of `kind` at each of `times`, the `j`-th
    /// carrying `payload(j)`, in order: the same sequence numbers, hence
    /// the same pop order, as one [`Self::push`] each. Into an empty queue
    /// they go to the sorted run (one sort by key; keys are unique, so the
    /// sort is exact; 12 bytes an event); otherwise into the heap. At most
    /// 2³² events.
    pub fn push_batch(&mut self, times: impl Into<Arc<[Micros]>>, kind: u8, payload: fn(u32) -> P) {
        let times: Arc<[Micros]> = times.into();
        let n = u32::try_from(times.len()).unwrap_or(u32::MAX);
        if !self.is_empty() {
            for (j, &time) in (0..n).zip(times.iter()) {
                self.push(time, kind, payload(j));
            }
            return;
        }
        let first_seq = self.next_seq;
        self.next_seq += u64::from(n);
        // Keys of one batch share the kind and rise with j, so they
        // compare as (time, j). Already in key order (arrivals at equal or
        // rising times): the indices in order, no permutation held.
        let pending = if times.windows(2).all(|w| w[0] <= w[1]) {
            Pending::InOrder { next: 0, end: n }
        } else {
            // The largest key first.
            let mut order: Vec<u32> = (0..n).rev().collect();
            order.sort_unstable_by_key(|&j| std::cmp::Reverse((times[j as usize], j)));
            Pending::Sorted(order)
        };
        self.run = Some(Batch {
            times,
            pending,
            kind,
            first_seq,
            payload,
        });
    }

    /// Whether the next event is the run's (its key is below the heap's
    /// top), not the heap's.
    fn next_is_run(&self) -> bool {
        match (
            self.run.as_ref().and_then(Batch::next_key),
            self.heap.peek(),
        ) {
            (Some(r), Some(h)) => r < h.key(),
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// Remove and return the next event.
    pub fn pop(&mut self) -> Option<QueuedEvent<P>> {
        if self.next_is_run() {
            let run = self.run.as_mut()?;
            let j = run.pending.pop()?;
            let (time, kind, seq) = run.key(j);
            Some(QueuedEvent {
                time,
                kind,
                seq,
                payload: (run.payload)(j),
            })
        } else {
            self.heap.pop()
        }
    }

    /// The payloads of the first [`NEXT_FROM_HEAP`] events held in the
    /// heap, in the order they pop (`None` past the last). Events of a
    /// batch ([`Self::push_batch`]) are left out: one due before them is
    /// not named. No allocation; for hints ahead of time (the engine's
    /// prefetch hints, DESIGN §10.4).
    pub fn next_from_heap(&self) -> [Option<&P>; NEXT_FROM_HEAP] {
        // The k-th event of a binary heap is at depth k − 1 at most: the
        // first three are among its first 1 + 2 + 4 slots.
        let mut first: [Option<&QueuedEvent<P>>; NEXT_FROM_HEAP] = [None; NEXT_FROM_HEAP];
        for e in self.heap.as_slice().iter().take(7) {
            // Insert e in order (the heap's greatest pops first).
            let mut carry = e;
            for place in &mut first {
                match place {
                    None => {
                        *place = Some(carry);
                        break;
                    }
                    Some(held) if carry > *held => carry = std::mem::replace(held, carry),
                    Some(_) => {}
                }
            }
        }
        first.map(|e| e.map(|e| &e.payload))
    }

    /// The time of the next event, if any.
    pub fn peek_time(&self) -> Option<Micros> {
        if self.next_is_run() {
            self.run.as_ref().and_then(Batch::next_key).map(|k| k.0)
        } else {
            self.heap.peek().map(|e| e.time)
        }
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len() + self.run.as_ref().map_or(0, |r| r.pending.len())
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    #[test]
    fn next_from_heap_leaves_a_batch_out() {
        let mut q = EventQueue::with_capacity(4);
        q.push_batch(vec![1, 2, 3], 1, |j| 100 + j as usize);
        q.push(5, 0, 1);
        q.push(4, 0, 2);
        assert_eq!(q.next_from_heap(), [Some(&2), Some(&1), None]);
        // The batch's events pop first, unnamed.
        assert_eq!(q.pop().map(|e| e.payload), Some(100));
        assert_eq!(
            EventQueue::<u8>::default().next_from_heap(),
            [None; NEXT_FROM_HEAP]
        );
    }

    proptest! {
        /// The events named ahead are the next ones popped, whatever the
        /// heap's shape (pushes and pops interleaved, ties included).
        #[test]
        fn next_from_heap_names_what_pops_next(
            steps in proptest::collection::vec(prop_oneof![(0u64..30, 0u8..2).prop_map(Some), Just(None)], 0..150)
        ) {
            let mut q = EventQueue::with_capacity(steps.len());
            for (i, step) in steps.iter().enumerate() {
                match step {
                    Some((t, k)) => q.push(*t, *k, i),
                    None => {
                        q.pop();
                    }
                }
                let named: Vec<Option<usize>> = q.next_from_heap().iter().map(|p| p.copied()).collect();
                let mut copy = q.clone();
                let popped: Vec<Option<usize>> = (0..NEXT_FROM_HEAP).map(|_| copy.pop().map(|e| e.payload)).collect();
                prop_assert_eq!(named, popped);
            }
        }

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
            batch in proptest::collection::vec(0u64..20, 0..100),
            kind in 0u8..3,
            later in proptest::collection::vec((0u64..30, 0u8..3, 0usize..3), 0..100),
            sorted in any::<bool>(),
            early in proptest::collection::vec((0u64..30, 0u8..3), 0..3),
        ) {
            let mut batch = batch;
            if sorted {
                batch.sort_unstable();
            }
            let (mut a, mut b) = (EventQueue::default(), EventQueue::default());
            // Events pushed before the batch send it to the heap.
            for (j, &(t, k)) in early.iter().enumerate() {
                a.push(t, k, 2000 + j);
                b.push(t, k, 2000 + j);
            }
            a.push_batch(batch.clone(), kind, |j| j as usize);
            for (i, &t) in batch.iter().enumerate() {
                b.push(t, kind, i);
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
