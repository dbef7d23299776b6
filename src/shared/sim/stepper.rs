//! A steppable shared run (DESIGN §15.6): the cluster scheduler's decisions
//! of one shared simulation offered one at a time, as job mode's
//! ([`JobStepper`], DESIGN §15.5), the service and the workflows acting by
//! their own rules as in the batch run. It is set up by the batch run's
//! own set-up ([`super::simulate::setup`]) and finished by its own
//! outcome ([`super::simulate::outcome`]), so a run whose every choice is
//! the scheduler's is [`super::simulate_shared`]'s byte for byte.

use super::input::SharedInput;
use super::outcome::{SharedOutcome, WorkloadKind};
use super::simulate::{PolicyPair, Setup, outcome, setup, sim_input};
use super::tracked::Tracked;
use crate::core::error::Result;
use crate::core::sim::time::Micros;
use crate::jobs::sim::simulation::State;
use crate::jobs::sim::{JobChoice, JobDecision, JobSchedulerFactory, JobStepper};

/// One shared run that stops at each decision of the cluster scheduler
/// (DESIGN §15.6).
///
/// ```text
/// while let Some(point) = run.next_decision()? {
///     run.decide(point.policy_choice.unwrap_or(JobChoice::EndPass))?;
/// }
/// let outcome = run.into_outcome()?;
/// ```
pub struct SharedStepper<'a> {
    run: JobStepper<'a, Tracked<'a>>,
    input: SharedInput<'a>,
    n_trace: usize,
    second: usize,
}

impl std::fmt::Debug for SharedStepper<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedStepper")
            .field("run", &self.run)
            .finish_non_exhaustive()
    }
}

impl<'a> SharedStepper<'a> {
    /// The run [`super::simulate_shared`] makes of the same arguments
    /// (`service`: the service's scheduler and selector, borrowed or
    /// owned), nothing happened yet but the workloads' first events. The
    /// cluster scheduler must be forkable (`JobScheduler::fork`).
    pub fn new(
        input: &SharedInput<'a>,
        cluster: &JobSchedulerFactory,
        seed: u64,
        repetition: u64,
        service: Option<PolicyPair<'a>>,
    ) -> Result<Self> {
        let Setup {
            table,
            scheduler,
            tracked,
            empty_types,
            n_trace,
            second,
        } = setup(input, cluster, seed, repetition, service)?;
        let sim = sim_input(input, &empty_types)?;
        let run = JobStepper::with_workload(&sim, table, input.cluster.round, scheduler, tracked)?;
        Ok(Self {
            run,
            input: input.clone(),
            n_trace,
            second,
        })
    }

    /// Advance to the next decision of the cluster scheduler (the same one
    /// again while it is not decided), or `None` once the run has ended
    /// ([`JobStepper::next_decision`]).
    pub fn next_decision(&mut self) -> Result<Option<&JobDecision>> {
        self.run.next_decision()
    }

    /// Take `choice` at the pending decision; a choice that breaks the
    /// rules is an error that changes nothing ([`JobStepper::decide`]).
    pub fn decide(&mut self, choice: JobChoice) -> Result<()> {
        self.run.decide(choice)
    }

    /// An independent copy of the run at this point: the cluster's state,
    /// the cluster scheduler and its plan, the service (tenants, its
    /// scheduler and selector forked) and the workflows (their cache
    /// included). Continued with the same choices it gives the same
    /// outcome as the original (DESIGN §15.6).
    pub fn fork(&self) -> Result<SharedStepper<'a>> {
        Ok(Self {
            run: self.run.fork()?,
            input: self.input.clone(),
            n_trace: self.n_trace,
            second: self.second,
        })
    }

    /// Which workload job `j` (an index of the decision points) belongs
    /// to: the background's trace jobs first, then the service's, then
    /// the workflows' (DESIGN §13.1).
    pub fn owner(&self, j: u32) -> WorkloadKind {
        let j = j as usize;
        if j < self.n_trace {
            WorkloadKind::Background
        } else if j < self.second {
            WorkloadKind::Service
        } else {
            WorkloadKind::Workflows
        }
    }

    /// The state of every job and of the cluster.
    pub fn state(&self) -> &State<'a> {
        self.run.state()
    }

    /// The decision the run waits for, if one was offered.
    pub fn pending(&self) -> Option<&JobDecision> {
        self.run.pending()
    }

    /// Whether a choice off the scheduler's plan was taken.
    pub fn is_detached(&self) -> bool {
        self.run.is_detached()
    }

    /// Whether the run has ended.
    pub fn is_done(&self) -> bool {
        self.run.is_done()
    }

    /// The service's cumulative regret R(τ) = ∫ Σ_i ℓ_i dτ (DESIGN §2.6)
    /// up to its latest event so far, accuracy·s; `None` without a
    /// service. Non-decreasing over the run; at the end it equals the
    /// reported `cumulative_regret` up to rounding, the horizon's cut and
    /// the stall rule (DESIGN §15.7: the environment pays the last step
    /// the remainder).
    pub fn service_regret(&self) -> Option<f64> {
        self.run
            .workload()
            .service
            .as_ref()
            .map(|s| s.regret_area())
    }

    /// Simulated time so far: the last instant handled, µs.
    pub fn now(&self) -> Micros {
        self.run.now()
    }

    /// The run's outcome once it has ended: what
    /// [`super::simulate_shared`] returns.
    pub fn into_outcome(self) -> Result<SharedOutcome> {
        let raw = self.run.into_raw()?;
        outcome(&self.input, raw, self.n_trace, self.second)
    }
}
