//! Selectors that follow one fixed order of models: `in-order`,
//! `most-recent` and `most-cited` (DESIGN §4.6).

use std::sync::Arc;

use crate::core::error::{Error, Result};
use crate::core::params::Params;
use crate::models::policy::entry::SelectorEntry;
use crate::models::sim::Tenants;
use crate::models::sim::{Proposal, RepContext, Selector, SelectorFactory};
use crate::models::trace::Trace;

/// `in-order`: trace order (model index ascending).
pub fn in_order() -> SelectorEntry {
    SelectorEntry::from_parse(
        "in-order",
        "the first untried model in trace order",
        parse_in_order,
    )
}

/// `most-recent`: model_year descending, then model_citations descending.
pub fn most_recent() -> SelectorEntry {
    SelectorEntry::from_parse(
        "most-recent",
        "the first untried model by model_year desc, then model_citations desc (needs model_year)",
        parse_most_recent,
    )
}

/// `most-cited`: model_citations descending.
pub fn most_cited() -> SelectorEntry {
    SelectorEntry::from_parse(
        "most-cited",
        "the first untried model by model_citations desc (needs model_citations)",
        parse_most_cited,
    )
}

fn factory(order: Vec<usize>) -> SelectorFactory {
    let order: Arc<[usize]> = order.into();
    Arc::new(move |ctx: &RepContext<'_>| {
        Ok(Box::new(FixedOrder {
            trace: Arc::clone(ctx.trace),
            order: Arc::clone(&order),
            cursor: vec![0; ctx.tenants.len()],
        }) as Box<dyn Selector>)
    })
}

fn parse_in_order(_params: &mut Params, trace: &Trace) -> Result<SelectorFactory> {
    Ok(factory((0..trace.n_models()).collect()))
}

fn missing(params: &Params, selector: &str, column: &str, trace: &Trace) -> Error {
    Error::input(format!(
        "{}: selector `{selector}` needs the trace column `{column}`, which {} does not have",
        params.context(),
        trace.source()
    ))
}

fn parse_most_recent(params: &mut Params, trace: &Trace) -> Result<SelectorFactory> {
    let year = trace
        .model_year()
        .ok_or_else(|| missing(params, "most-recent", "model_year", trace))?;
    let cites = trace.model_citations();
    let key = |k: usize| (year[k], cites.map_or(0, |c| c[k]));
    Ok(factory(descending_order(trace.n_models(), key)))
}

fn parse_most_cited(params: &mut Params, trace: &Trace) -> Result<SelectorFactory> {
    let cites = trace
        .model_citations()
        .ok_or_else(|| missing(params, "most-cited", "model_citations", trace))?;
    Ok(factory(descending_order(trace.n_models(), |k| cites[k])))
}

/// Model indices sorted by `key` descending; ties by lowest index (the sort
/// is stable over ascending indices).
pub fn descending_order<K: Ord>(n: usize, key: impl Fn(usize) -> K) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(key(k)));
    order
}

/// Each tenant takes the first model of `order` that is available to it and
/// untried. A per-tenant cursor skips the prefix already used up, so a
/// proposal costs amortised O(1).
#[derive(Debug, Clone)]
struct FixedOrder {
    trace: Arc<Trace>,
    order: Arc<[usize]>,
    cursor: Vec<usize>,
}

impl FixedOrder {
    /// [`Selector::propose`] of this selector, which cannot fail.
    fn next_proposal(&mut self, tenants: &Tenants, tenant: usize) -> Option<Proposal> {
        let u = tenants.user(tenant);
        let mut c = self.cursor[tenant];
        while let Some(&k) = self.order.get(c) {
            if self.trace.is_available(u, k) && !tenants.is_tried(tenant, k) {
                self.cursor[tenant] = c;
                return Some(Proposal::plain(k));
            }
            c += 1;
        }
        self.cursor[tenant] = c;
        None
    }
}

impl Selector for FixedOrder {
    fn fork(&self) -> Result<Box<dyn Selector>> {
        Ok(Box::new(self.clone()))
    }

    fn propose(&mut self, tenants: &Tenants, tenant: usize) -> Result<Option<Proposal>> {
        Ok(self.next_proposal(tenants, tenant))
    }
}
