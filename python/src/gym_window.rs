//! What a window environment is (DESIGN §15.5, §15.7): the job-mode
//! environment's core ([`JobCore`]) and the shared one's ([`SharedCore`])
//! behind one trait, so that their Python classes (`gym_window_py.rs`'s
//! macros) and their vector core ([`crate::gym_jobs_vec::VecCore`]) are
//! written once.

use std::path::Path;

use tenantsim::Result;
use tenantsim::jobs::episode::{job_episode_run, write_job_episode};
use tenantsim::jobs::sim::{JobChoice, JobStepper};

use crate::gym_jobs_core::{JobCore, Window};
use crate::gym_shared_core::SharedCore;

/// One window environment: an episode stepped one cluster-scheduler
/// decision at a time through the job-mode window's rules.
pub trait WindowEnv: Sized {
    /// Start repetition `rep` afresh.
    fn reset(&mut self, rep: u64) -> Result<()>;
    /// Its window rules (action and observation sizes).
    fn rules(&self) -> Window;
    /// The choice action `a` takes now, or why not.
    fn check(&self, a: i64) -> std::result::Result<JobChoice, String>;
    /// Take a checked choice: (reward, terminated).
    fn take(&mut self, c: JobChoice) -> Result<(f64, bool)>;
    /// The observation into `obs`.
    fn encode(&self, obs: &mut [f32]);
    /// The action mask into `mask`.
    fn mask(&self, mask: &mut [u8]);
    /// The scheduler's next action as a window action, or −1.
    fn policy_action(&self) -> i64;
    /// The scheduler's next action raw, if a decision is pending and the
    /// scheduler still has a plan.
    fn policy_choice(&self) -> Option<JobChoice>;
    /// The jobs waiting at the pending decision, in job order (empty once
    /// ended).
    fn waiting(&self) -> Vec<u32>;
    /// Whether the episode has ended.
    fn ended(&self) -> bool;
    /// The repetition.
    fn rep(&self) -> u64;
    /// Steps taken in the episode.
    fn steps(&self) -> u64;
    /// The simulated time of the pending decision (the end once ended), µs.
    fn now(&self) -> u64;
    /// Job-hours in the system so far.
    fn job_hours(&self) -> f64;
    /// An independent copy at this point.
    fn fork(&self) -> Result<Self>;
    /// Write the ended episode's results folder into `dir` (must not
    /// exist): `tenantsim run`'s files for the policy alone and one
    /// repetition.
    fn write_results(&self, dir: &Path) -> Result<()>;
    /// The policy's name.
    fn policy_name(&self) -> String;
    /// The scenario's name.
    fn scenario_name(&self) -> String;
}

impl WindowEnv for JobCore {
    fn reset(&mut self, rep: u64) -> Result<()> {
        JobCore::reset(self, rep)
    }
    fn rules(&self) -> Window {
        Window::new(self.window(), self.kind(), false)
    }
    fn check(&self, a: i64) -> std::result::Result<JobChoice, String> {
        JobCore::check(self, a)
    }
    fn take(&mut self, c: JobChoice) -> Result<(f64, bool)> {
        JobCore::take(self, c).map(|s| (s.reward, s.terminated))
    }
    fn encode(&self, obs: &mut [f32]) {
        JobCore::encode(self, obs);
    }
    fn mask(&self, mask: &mut [u8]) {
        JobCore::mask(self, mask);
    }
    fn policy_action(&self) -> i64 {
        JobCore::policy_action(self)
    }
    fn policy_choice(&self) -> Option<JobChoice> {
        self.point()?.policy_choice
    }
    fn waiting(&self) -> Vec<u32> {
        self.point().map(|p| p.waiting.clone()).unwrap_or_default()
    }
    fn ended(&self) -> bool {
        self.point().is_none()
    }
    fn rep(&self) -> u64 {
        JobCore::rep(self)
    }
    fn steps(&self) -> u64 {
        JobCore::steps(self)
    }
    fn now(&self) -> u64 {
        JobCore::now(self)
    }
    fn job_hours(&self) -> f64 {
        JobCore::job_hours(self)
    }
    fn fork(&self) -> Result<Self> {
        JobCore::fork(self)
    }
    fn write_results(&self, dir: &Path) -> Result<()> {
        if self.point().is_some() {
            return Err(tenantsim::Error::usage(
                "results(): the episode has not ended: step it until terminated",
            ));
        }
        let sc = self.scenario();
        let outcome = self.run().fork().and_then(JobStepper::into_outcome)?;
        let run = job_episode_run(sc, self.rep(), self.policy(), outcome)?;
        write_job_episode(dir, sc, &run, true)
    }
    fn policy_name(&self) -> String {
        self.scenario().policies[self.policy()].name.clone()
    }
    fn scenario_name(&self) -> String {
        self.scenario().name().to_string()
    }
}

impl WindowEnv for SharedCore {
    fn reset(&mut self, rep: u64) -> Result<()> {
        SharedCore::reset(self, rep)
    }
    fn rules(&self) -> Window {
        SharedCore::rules(self)
    }
    fn check(&self, a: i64) -> std::result::Result<JobChoice, String> {
        SharedCore::check(self, a)
    }
    fn take(&mut self, c: JobChoice) -> Result<(f64, bool)> {
        SharedCore::take(self, c).map(|s| (s.reward, s.terminated))
    }
    fn encode(&self, obs: &mut [f32]) {
        SharedCore::encode(self, obs);
    }
    fn mask(&self, mask: &mut [u8]) {
        SharedCore::mask(self, mask);
    }
    fn policy_action(&self) -> i64 {
        SharedCore::policy_action(self)
    }
    fn policy_choice(&self) -> Option<JobChoice> {
        self.point()?.policy_choice
    }
    fn waiting(&self) -> Vec<u32> {
        self.point().map(|p| p.waiting).unwrap_or_default()
    }
    fn ended(&self) -> bool {
        SharedCore::ended(self)
    }
    fn rep(&self) -> u64 {
        SharedCore::rep(self)
    }
    fn steps(&self) -> u64 {
        SharedCore::steps(self)
    }
    fn now(&self) -> u64 {
        SharedCore::now(self)
    }
    fn job_hours(&self) -> f64 {
        SharedCore::job_hours(self)
    }
    fn fork(&self) -> Result<Self> {
        SharedCore::fork(self)
    }
    fn write_results(&self, dir: &Path) -> Result<()> {
        SharedCore::write_results(self, dir)
    }
    fn policy_name(&self) -> String {
        SharedCore::policy_name(self).to_string()
    }
    fn scenario_name(&self) -> String {
        self.scenario().name().to_string()
    }
}
