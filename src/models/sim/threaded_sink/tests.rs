use std::any::Any;
use std::sync::Arc;

use super::*;
use crate::models::sim::{LeftAt, TenantLimits};

/// A sink that writes down every call, in order.
#[derive(Debug, Clone, Default)]
struct Log(Vec<String>);

impl JobSink for Log {
    fn arrived(&mut self, now: Micros, i: usize, best_possible: f64) {
        self.0.push(format!("a {now} {i} {best_possible:?}"));
    }
    fn started(&mut self, i: usize, start: Micros, end: Micros) {
        self.0.push(format!("s {i} {start} {end}"));
    }
    fn completed(&mut self, i: usize, start: Micros, at: Micros, acc: f64) {
        self.0.push(format!("c {i} {start} {at} {acc:?}"));
    }
    fn cancelled(&mut self, i: usize, start: Micros, at: Micros) {
        self.0.push(format!("x {i} {start} {at}"));
    }
    fn done(&mut self, i: usize) {
        self.0.push(format!("d {i}"));
    }
    fn fork(&self) -> Box<dyn JobSink> {
        Box::new(self.clone())
    }
    fn finish(
        self: Box<Self>,
        state: &RunEndState<'_>,
        _models: &dyn Fn(usize) -> usize,
        _best_possible: &dyn Fn(usize) -> f64,
        cut: &mut dyn Iterator<Item = (usize, Micros, Micros)>,
    ) -> Arc<dyn Any + Send + Sync> {
        let mut log = self.0;
        log.push(format!("end {}", state.end));
        log.extend(cut.map(|(i, s, e)| format!("cut {i} {s} {e}")));
        Arc::new(log)
    }
}

/// Call `n` of a made-up run (every kind, times growing).
fn call(sink: &mut dyn JobSink, n: usize) {
    let t = n as Micros * 7;
    match n % 5 {
        0 => sink.arrived(t, n % 13, n as f64 / 7.0),
        1 => sink.started(n % 13, t, t + 5),
        2 => sink.completed(n % 13, t - 3, t, n as f64 / 3.0),
        3 => sink.cancelled(n % 13, t - 1, t),
        _ => sink.done(n % 13),
    }
}

fn finish(sink: Box<dyn JobSink>) -> Vec<String> {
    let none = crate::models::sim::Arrivals::from(Vec::new());
    let state = RunEndState {
        end: 99,
        left_at: &LeftAt::default(),
        end_states: &crate::models::sim::EndStates::default(),
        limits: TenantLimits::default(),
        arrivals: &none,
    };
    let mut cut = [(1, 2, 3), (4, 5, 6)].into_iter();
    let out = sink.finish(&state, &|_| 1, &|_| 0.5, &mut cut);
    out.downcast_ref::<Vec<String>>()
        .expect("a Log finishes with its lines")
        .clone()
}

#[test]
fn the_wrapped_sink_sees_every_call_in_order_across_batches() {
    // Three full batches and part of a fourth.
    let n = 3 * BATCH + 17;
    let mut direct: Box<dyn JobSink> = Box::new(Log::default());
    let mut threaded = ThreadedSink::wrap(Box::new(Log::default()));
    for k in 0..n {
        call(direct.as_mut(), k);
        call(threaded.as_mut(), k);
    }
    let (a, b) = (finish(direct), finish(threaded));
    assert_eq!(a.len(), n + 3);
    assert_eq!(a, b);
}

#[test]
fn a_fork_holds_the_calls_sent_and_those_still_pending() {
    let mut direct: Box<dyn JobSink> = Box::new(Log::default());
    let mut threaded = ThreadedSink::wrap(Box::new(Log::default()));
    // One batch sent, some calls pending.
    for k in 0..BATCH + 5 {
        call(direct.as_mut(), k);
        call(threaded.as_mut(), k);
    }
    let mut fork_direct = direct.fork();
    let mut fork_threaded = threaded.fork();
    // The original and its fork go on independently.
    for k in BATCH + 5..BATCH + 40 {
        call(direct.as_mut(), k);
        call(threaded.as_mut(), k);
        call(fork_direct.as_mut(), k + 1000);
        call(fork_threaded.as_mut(), k + 1000);
    }
    assert_eq!(finish(fork_direct), finish(fork_threaded));
    assert_eq!(finish(direct), finish(threaded));
}

#[test]
fn a_sink_dropped_before_its_finish_stops_its_worker() {
    let mut threaded = ThreadedSink::wrap(Box::new(Log::default()));
    for k in 0..BATCH + 1 {
        call(threaded.as_mut(), k);
    }
    // Dropping joins the worker; a hang here would stop the test.
    drop(threaded);
}
