//! The cluster's resources, one model for both modes (DESIGN §11): nodes,
//! each with one GPU type and a number of GPUs.
//!
//! A scenario names its cluster in one of three forms:
//!
//! - untyped, as before: a GPU count (model mode `gpus = 8`) or identical
//!   nodes (job mode `nodes = 4`, `gpus_per_node = 8`). Every GPU has the
//!   one anonymous type, whose name is the empty string;
//! - typed node groups, `nodes = [{type = "v100", count = 4,
//!   gpus_per_node = 8}, …]` ([`NodeGroup`]);
//! - a node list CSV ([`load_node_list`]): a GPU count per node, with an
//!   optional type column (the Alibaba node list's `model` column as it
//!   is).
//!
//! Types are numbered in order of first appearance ([`GpuType`]); nodes
//! keep the order they are given in, which is the order placement rules
//! break ties by.
//!
//! Each node also has a number of CPUs (DESIGN §14.6): `[cluster]
//! cpus_per_node` for every node, a group's own `cpus_per_node`, or a node
//! list's `cpus` column. 0 everywhere (the default) means CPUs are not
//! counted.
//!
//! ```
//! use tenantsim::core::io::cluster::{ClusterSpec, NodeGroup, groups_to_spec};
//!
//! let groups = [
//!     NodeGroup { gpu_type: "v100".into(), count: 2, gpus_per_node: 4, cpus_per_node: None },
//!     NodeGroup { gpu_type: "k80".into(), count: 1, gpus_per_node: 8, cpus_per_node: None },
//! ];
//! let spec = groups_to_spec("s.toml", "[cluster].nodes", &groups)?;
//! assert!(spec.is_typed());
//! assert_eq!(spec.types(), ["v100", "k80"]);
//! assert_eq!(spec.capacities(), [4, 4, 8]);
//! assert_eq!(spec.gpus_of_type(spec.type_index("k80").unwrap()), 8);
//! assert_eq!(ClusterSpec::untyped(&[2, 2]).gpus(), 4);
//! # Ok::<(), tenantsim::Error>(())
//! ```

use std::fmt;
use std::path::Path;

use serde::de::value::SeqAccessDeserializer;
use serde::de::{self, SeqAccess, Unexpected, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::core::error::{Error, Result};
use crate::core::io::csv_columns::{csv_with_header, find_column};
use crate::core::io::echo::shown;
use crate::core::io::open_input;
/// The most CPUs one node may have (kept here for code that named it here).
pub use crate::core::limits::MAX_CPUS_PER_NODE;
use crate::core::limits::{MAX_GPUS_PER_NODE, MAX_NODES, grouped};

/// Index of a GPU type in [`ClusterSpec::types`].
pub type GpuType = u16;

/// The most GPU types one cluster may have.
pub const MAX_GPU_TYPES: usize = 64;

/// One node: a name, its GPU type and its GPU count (at least 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Name (the node list's `node`/`sn` column, else `node<i>`).
    pub name: String,
    /// Its GPUs' type.
    pub gpu_type: GpuType,
    /// GPUs on the node.
    pub gpus: u32,
    /// CPUs on the node (0: none counted, DESIGN §14.6).
    pub cpus: u32,
}

/// The nodes of a cluster and the names of their GPU types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterSpec {
    types: Vec<String>,
    nodes: Vec<Node>,
}

impl ClusterSpec {
    /// Nodes with `capacities[i]` GPUs of the one anonymous type, named
    /// `node<i>`.
    pub fn untyped(capacities: &[u32]) -> Self {
        Self {
            types: vec![String::new()],
            nodes: capacities
                .iter()
                .enumerate()
                .map(|(i, &gpus)| Node {
                    name: format!("node{i}"),
                    gpu_type: 0,
                    gpus,
                    cpus: 0,
                })
                .collect(),
        }
    }

    /// Type names, indexed by [`GpuType`]; `[""]` when untyped.
    pub fn types(&self) -> &[String] {
        &self.types
    }

    /// Whether the scenario named GPU types (else every GPU has the one
    /// anonymous type).
    pub fn is_typed(&self) -> bool {
        !(self.types.len() == 1 && self.types[0].is_empty())
    }

    /// The index of the type called `name`.
    pub fn type_index(&self, name: &str) -> Option<GpuType> {
        self.types
            .iter()
            .position(|t| t == name)
            .map(|i| i as GpuType)
    }

    /// The nodes, in the order given.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// GPUs per node, in node order.
    pub fn capacities(&self) -> Vec<u32> {
        self.nodes.iter().map(|n| n.gpus).collect()
    }

    /// CPUs per node, in node order (all 0 when CPUs are not counted).
    pub fn cpu_capacities(&self) -> Vec<u32> {
        self.nodes.iter().map(|n| n.cpus).collect()
    }

    /// Whether CPUs are counted: some node has at least one (DESIGN §14.6).
    pub fn counts_cpus(&self) -> bool {
        self.nodes.iter().any(|n| n.cpus > 0)
    }

    /// CPUs in the cluster.
    pub fn cpus(&self) -> u64 {
        self.nodes.iter().map(|n| u64::from(n.cpus)).sum()
    }

    /// Give every node without CPUs of its own `cpus` CPUs (`[cluster]
    /// cpus_per_node`; a group's or a node list's own count wins).
    pub fn set_default_cpus(&mut self, cpus: u32) {
        for n in &mut self.nodes {
            if n.cpus == 0 {
                n.cpus = cpus;
            }
        }
    }

    /// Each node's type, in node order.
    pub fn node_types(&self) -> Vec<GpuType> {
        self.nodes.iter().map(|n| n.gpu_type).collect()
    }

    /// GPUs in the cluster.
    pub fn gpus(&self) -> u64 {
        self.nodes.iter().map(|n| u64::from(n.gpus)).sum()
    }

    /// GPUs of type `t`.
    pub fn gpus_of_type(&self, t: GpuType) -> u64 {
        self.nodes
            .iter()
            .filter(|n| n.gpu_type == t)
            .map(|n| u64::from(n.gpus))
            .sum()
    }

    /// The most GPUs one node of type `t` has (0 if none).
    pub fn largest_node_of_type(&self, t: GpuType) -> u32 {
        self.nodes
            .iter()
            .filter(|n| n.gpu_type == t)
            .map(|n| n.gpus)
            .max()
            .unwrap_or(0)
    }
}

/// One entry of `[cluster] nodes = [{type = "v100", count = 4,
/// gpus_per_node = 8}, …]`: `count` nodes of `gpus_per_node` GPUs of one
/// type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeGroup {
    /// GPU type name (letters, digits, `_` and `-`).
    #[serde(rename = "type")]
    pub gpu_type: String,
    /// Nodes in the group (at least 1).
    #[serde(deserialize_with = "crate::core::io::whole::nodes")]
    pub count: u64,
    /// GPUs per node (default 1).
    #[serde(
        default = "one",
        deserialize_with = "crate::core::io::whole::gpus_per_node"
    )]
    pub gpus_per_node: u64,
    /// CPUs per node (DESIGN §14.6); absent: `[cluster].cpus_per_node`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::core::io::whole::cpus_per_node"
    )]
    pub cpus_per_node: Option<u64>,
}

fn one() -> u64 {
    1
}

/// `[cluster] nodes`: a count of identical untyped nodes, or typed node
/// groups.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum NodesField {
    /// `nodes = 4` (with a GPU count per node elsewhere).
    Count(u64),
    /// `nodes = [{type = …, count = …, gpus_per_node = …}, …]`.
    Groups(Vec<NodeGroup>),
}

/// Read by the shape of the value, not by trying each variant (serde's
/// `untagged`), so that a mistake inside a group keeps its own message and
/// place ("unknown field `cont`") and a bad count states its range,
/// instead of "data did not match any variant of untagged enum".
impl<'de> Deserialize<'de> for NodesField {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(NodesVisitor)
    }
}

struct NodesVisitor;

impl<'de> Visitor<'de> for NodesVisitor {
    type Value = NodesField;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a whole number of nodes from 1 to {}, or a list of node groups \
             ([{{type = \"v100\", count = 2, gpus_per_node = 8}}, …])",
            grouped(MAX_NODES)
        )
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<NodesField, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::invalid_value(Unexpected::Signed(v), &self)),
        }
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<NodesField, E> {
        Ok(NodesField::Count(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<NodesField, A::Error> {
        Vec::deserialize(SeqAccessDeserializer::new(seq)).map(NodesField::Groups)
    }
}

/// Check a GPU type name: 1 to 32 ASCII letters, digits, `_` or `-`.
/// `at` names where it was read (file and field, or file and line).
pub fn check_type_name(at: &str, name: &str) -> Result<()> {
    let ok = (1..=32).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(Error::input(format!(
            "{at}: expected a GPU type name of 1 to 32 letters, digits, `_` or `-`, got {}",
            shown(name)
        )))
    }
}

/// The cluster of typed node groups; `source` and `field` name the
/// scenario field in errors.
pub fn groups_to_spec(source: &str, field: &str, groups: &[NodeGroup]) -> Result<ClusterSpec> {
    if groups.is_empty() {
        return Err(Error::input(format!(
            "{source}: {field}: expected at least one node group, got none"
        )));
    }
    let mut types: Vec<String> = Vec::new();
    let mut nodes = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        let at = format!("{source}: {field}[{i}]");
        check_type_name(&format!("{at}.type"), &g.gpu_type)?;
        if g.count == 0 {
            return Err(Error::input(format!(
                "{at}.count: expected at least 1 node, got 0"
            )));
        }
        if g.gpus_per_node == 0 {
            return Err(Error::input(format!(
                "{at}.gpus_per_node: expected at least 1 GPU, got 0"
            )));
        }
        if g.gpus_per_node > MAX_GPUS_PER_NODE {
            return Err(Error::input(format!(
                "{at}.gpus_per_node: {} GPUs per node exceed the limit of {} GPUs per node",
                grouped(g.gpus_per_node),
                grouped(MAX_GPUS_PER_NODE)
            )));
        }
        if nodes.len() as u64 + g.count > MAX_NODES {
            return Err(Error::input(format!(
                "{at}.count: {} nodes in all exceed the limit of {} nodes",
                grouped(nodes.len() as u64 + g.count),
                grouped(MAX_NODES)
            )));
        }
        let cpus = match g.cpus_per_node {
            None => 0,
            Some(c) => check_cpus_per_node(&format!("{at}.cpus_per_node"), c)?,
        };
        let t = intern(&mut types, &g.gpu_type, &at)?;
        for _ in 0..g.count {
            nodes.push(Node {
                name: format!("node{}", nodes.len()),
                gpu_type: t,
                // At most MAX_GPUS_PER_NODE, checked above.
                gpus: g.gpus_per_node as u32,
                cpus,
            });
        }
    }
    Ok(ClusterSpec { types, nodes })
}

/// Check a `cpus_per_node` value read from `at` (file and field): a whole
/// number from 0 to [`MAX_CPUS_PER_NODE`].
pub fn check_cpus_per_node(at: &str, cpus: u64) -> Result<u32> {
    if cpus > MAX_CPUS_PER_NODE {
        return Err(Error::input(format!(
            "{at}: {} CPUs per node exceed the limit of {} CPUs per node",
            grouped(cpus),
            grouped(MAX_CPUS_PER_NODE)
        )));
    }
    Ok(cpus as u32)
}

fn intern(types: &mut Vec<String>, name: &str, at: &str) -> Result<GpuType> {
    if let Some(i) = types.iter().position(|t| t == name) {
        return Ok(i as GpuType);
    }
    if types.len() == MAX_GPU_TYPES {
        return Err(Error::input(format!(
            "{at}: more than {MAX_GPU_TYPES} GPU types: the limit of a cluster is {MAX_GPU_TYPES}"
        )));
    }
    types.push(name.to_string());
    Ok((types.len() - 1) as GpuType)
}

/// Read a node list CSV: a header, then one node per row.
///
/// - `gpus` (or `gpu`): the node's GPU count; nodes with 0 GPUs are
///   skipped.
/// - `node` (or `sn`), optional: its name (default `node<i>`).
/// - `gpu_type` (or `type`, or `model` as in the Alibaba node list),
///   optional: its GPU type. Without it every node has the anonymous type;
///   with it, every node with GPUs needs a type name.
/// - `cpus`, optional: its CPUs (DESIGN §14.6; 0 or absent: the scenario's
///   `cpus_per_node`).
///
/// Other columns are ignored.
pub fn load_node_list(path: &Path) -> Result<ClusterSpec> {
    let file = open_input(path, "node list")?;
    parse_node_list(&path.display().to_string(), file)
}

/// [`load_node_list`] on a node list read from `input`; `source` names it
/// in errors.
pub fn parse_node_list(source: &str, input: impl std::io::Read) -> Result<ClusterSpec> {
    let (mut reader, headers) = csv_with_header(source, input)?;
    let find = |names: &[&str]| -> Result<Option<usize>> {
        let found: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| find_column(&headers, &[n]).is_some())
            .collect();
        if found.len() > 1 {
            return Err(Error::input(format!(
                "{source}: line 1: columns `{}` and `{}` both given: they mean the same, keep one",
                found[0], found[1]
            )));
        }
        Ok(find_column(&headers, names))
    };
    let Some(gpu_col) = find(&["gpus", "gpu"])? else {
        return Err(Error::input(format!(
            "{source}: line 1: missing column `gpus` (or `gpu`): a node list needs the GPU count of each node"
        )));
    };
    let name_col = find(&["node", "sn"])?;
    let type_col = find(&["gpu_type", "type", "model"])?;
    // Whole CPUs, only from a column named `cpus` (the Alibaba list's
    // `cpu_milli` is not read, so its scenarios stay GPU-only).
    let cpu_col = find(&["cpus"])?;
    let mut types: Vec<String> = if type_col.is_some() {
        Vec::new()
    } else {
        vec![String::new()]
    };
    let mut nodes = Vec::new();
    let mut record = csv::StringRecord::new();
    while let Some(line) = reader.read_record(&mut record)? {
        let text = record.get(gpu_col).unwrap_or("");
        let column = &headers[gpu_col];
        let too_many = || {
            Error::input(format!(
                "{source}: line {line}: field `{column}`: {} GPUs on one node exceed the limit of {MAX_GPUS_PER_NODE} GPUs per node",
                shown(text)
            ))
        };
        let gpus = match text.parse::<u64>() {
            Ok(g) if g <= MAX_GPUS_PER_NODE => g as u32,
            Ok(_) => return Err(too_many()),
            Err(_) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(too_many());
            }
            Err(_) => {
                return Err(Error::input(format!(
                    "{source}: line {line}: field `{column}`: expected a whole number of GPUs >= 0, got `{}`",
                    shown(text)
                )));
            }
        };
        if gpus == 0 {
            continue;
        }
        if nodes.len() as u64 >= MAX_NODES {
            return Err(Error::input(format!(
                "{source}: line {line}: more than {} nodes with GPUs: the limit of a cluster is {} nodes",
                grouped(MAX_NODES),
                grouped(MAX_NODES)
            )));
        }
        let gpu_type = match type_col {
            None => 0,
            Some(c) => {
                let name = record.get(c).unwrap_or("").trim();
                let at = format!("{source}: line {line}: field `{}`", &headers[c]);
                check_type_name(&at, name)?;
                intern(&mut types, name, &at)?
            }
        };
        let name = name_col
            .and_then(|c| record.get(c))
            .map_or_else(|| format!("node{}", nodes.len()), str::to_string);
        let cpus = match cpu_col {
            None => 0,
            Some(c) => {
                let text = record.get(c).unwrap_or("").trim();
                match text.parse::<u64>() {
                    Ok(v) if v <= MAX_CPUS_PER_NODE => v as u32,
                    _ => {
                        return Err(Error::input(format!(
                            "{source}: line {line}: field `{}`: expected a whole number of CPUs from 0 to {}, got `{}`",
                            &headers[c],
                            grouped(MAX_CPUS_PER_NODE),
                            shown(text)
                        )));
                    }
                }
            }
        };
        nodes.push(Node {
            name,
            gpu_type,
            gpus,
            cpus,
        });
    }
    if nodes.is_empty() {
        return Err(Error::input(format!(
            "{source}: the node list has no node with a GPU: expected at least one"
        )));
    }
    Ok(ClusterSpec { types, nodes })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ClusterSpec> {
        parse_node_list("nodes.csv", text.as_bytes())
    }

    #[test]
    fn untyped_node_list_has_the_anonymous_type() {
        let s = parse("node,gpus\na,2\nb,0\nc,4\n").expect("valid");
        assert!(!s.is_typed());
        assert_eq!(s.types(), [""]);
        assert_eq!(s.capacities(), [2, 4]);
        assert_eq!(s.nodes()[1].name, "c");
    }

    #[test]
    fn alibaba_model_column_types_nodes_in_order_of_appearance() {
        let s = parse(
            "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,2,P100\nn1,1,1,8,V100M16\nn2,1,1,0,\nn3,1,1,2,P100\n",
        )
        .expect("valid");
        assert!(s.is_typed());
        assert_eq!(s.types(), ["P100", "V100M16"]);
        assert_eq!(s.node_types(), [0, 1, 0]);
        assert_eq!(s.gpus_of_type(0), 4);
        assert_eq!(s.largest_node_of_type(1), 8);
    }

    #[test]
    fn typed_node_list_without_a_type_names_the_line() {
        let e = parse("gpus,type\n2,v100\n4,\n")
            .expect_err("an error")
            .to_string();
        assert!(e.contains("nodes.csv: line 3: field `type`"), "{e}");
        assert!(e.contains("GPU type name"), "{e}");
    }

    /// CPUs per node (DESIGN §14.6): a node list's `cpus` column and a
    /// group's `cpus_per_node` are the node's own; `set_default_cpus`
    /// (`[cluster].cpus_per_node`) fills only the nodes without.
    #[test]
    fn cpus_come_from_the_list_or_the_group_then_the_default() {
        let mut s = parse("gpus,cpus\n2,16\n4,0\n").expect("valid");
        assert_eq!(s.cpu_capacities(), [16, 0]);
        assert!(s.counts_cpus());
        s.set_default_cpus(8);
        assert_eq!(s.cpu_capacities(), [16, 8]);
        assert_eq!(s.cpus(), 24);
        let e = parse("gpus,cpus\n2,-1\n").expect_err("bad").to_string();
        assert!(
            e.contains("line 2: field `cpus`: expected a whole number of CPUs"),
            "{e}"
        );
        let g = NodeGroup {
            gpu_type: "a".into(),
            count: 2,
            gpus_per_node: 4,
            cpus_per_node: Some(32),
        };
        let mut s = groups_to_spec("s", "f", &[g]).expect("valid");
        s.set_default_cpus(1);
        assert_eq!(s.cpu_capacities(), [32, 32]);
        let plain = ClusterSpec::untyped(&[1, 1]);
        assert!(!plain.counts_cpus());
    }

    #[test]
    fn two_type_columns_are_ambiguous() {
        let e = parse("gpus,type,model\n2,a,b\n")
            .expect_err("an error")
            .to_string();
        assert!(e.contains("both given"), "{e}");
    }

    #[test]
    fn groups_expand_in_order_and_share_types() {
        let g = |t: &str, count, gpus_per_node| NodeGroup {
            gpu_type: t.into(),
            count,
            gpus_per_node,
            cpus_per_node: None,
        };
        let s =
            groups_to_spec("s", "f", &[g("a", 1, 2), g("b", 2, 1), g("a", 1, 4)]).expect("valid");
        assert_eq!(s.types(), ["a", "b"]);
        assert_eq!(s.node_types(), [0, 1, 1, 0]);
        assert_eq!(s.capacities(), [2, 1, 1, 4]);
        assert_eq!(s.gpus_of_type(0), 6);
        let e = groups_to_spec("s.toml", "[cluster].nodes", &[g("a b", 1, 1)])
            .expect_err("an error")
            .to_string();
        assert!(e.contains("s.toml: [cluster].nodes[0].type"), "{e}");
        let e = groups_to_spec("s.toml", "[cluster].nodes", &[g("a", 0, 1)])
            .expect_err("an error")
            .to_string();
        assert!(
            e.contains("[cluster].nodes[0].count: expected at least 1"),
            "{e}"
        );
        assert!(groups_to_spec("s", "f", &[]).is_err());
    }

    #[test]
    fn a_typo_inside_a_node_group_read_as_no_matching_variant_of_nodes_field() {
        #[derive(Debug, Deserialize)]
        struct C {
            #[allow(dead_code)]
            nodes: NodesField,
        }
        let message = |text: &str| {
            toml::from_str::<C>(text)
                .expect_err("an error")
                .message()
                .to_string()
        };
        assert_eq!(
            message("nodes = [{type = \"v100\", cont = 2}]"),
            "unknown field `cont`, expected one of `type`, `count`, `gpus_per_node`, `cpus_per_node`"
        );
        assert_eq!(
            message("nodes = [{type = \"v100\", count = 2, gpus_per_node = -8}]"),
            "invalid value: integer `-8`, expected a whole number of GPUs per node from 1 to 1,024"
        );
        assert_eq!(
            message("nodes = -1"),
            "invalid value: integer `-1`, expected a whole number of nodes from 1 to 100,000, or a \
             list of node groups ([{type = \"v100\", count = 2, gpus_per_node = 8}, …])"
        );
        assert!(message("nodes = \"4\"").starts_with("invalid type: string \"4\", expected"));
        // A count that fits is the loader's to check against its limit.
        let c: C = toml::from_str("nodes = 99999999999").expect("fits a u64");
        assert_eq!(c.nodes, NodesField::Count(99_999_999_999));
    }

    #[test]
    fn nodes_field_reads_a_count_or_groups() {
        #[derive(Deserialize)]
        struct C {
            nodes: NodesField,
        }
        let c: C = toml::from_str("nodes = 3").expect("valid");
        assert_eq!(c.nodes, NodesField::Count(3));
        let c: C = toml::from_str("nodes = [{type = \"v100\", count = 2, gpus_per_node = 8}]")
            .expect("valid");
        assert_eq!(
            c.nodes,
            NodesField::Groups(vec![NodeGroup {
                gpu_type: "v100".into(),
                count: 2,
                gpus_per_node: 8,
                cpus_per_node: None
            }])
        );
    }
}
