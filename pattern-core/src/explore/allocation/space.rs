//! The search space of an allocation: the design's symbolic counts, their
//! ranges, the thread cap, the design's threads as a compiled expression of
//! the counts, and which counts the plain operators' model is provably
//! non-increasing in.

use super::AllocationError;
use crate::grammar::{Count, MAX_COUNT, Term};
use crate::{CompiledExpr, Design, Expr};
use std::collections::{HashMap, HashSet};

/// `f` of `counts` as floats, on the stack for up to 8 counts (the search
/// calls it at every step).
fn as_floats<T>(counts: &[u64], f: impl FnOnce(&[f64]) -> T) -> T {
    const ON_STACK: usize = 8;
    if counts.len() <= ON_STACK {
        let mut values = [0.0; ON_STACK];
        for (v, &c) in values.iter_mut().zip(counts) {
            *v = c as f64;
        }
        f(&values[..counts.len()])
    } else {
        f(&counts.iter().map(|&c| c as f64).collect::<Vec<_>>())
    }
}

/// What the design says about one symbolic count.
#[derive(Clone, Debug, Default)]
struct Uses {
    /// Every occurrence is the count of a task pool.
    only_tpool: bool,
    /// Some occurrence is the count of `groups[s]`, whose threads
    /// `s·floor(p/s)` are not monotone in `s`.
    in_groups: bool,
    /// Every pool it counts is outside a mapReduce phase and has a plain body
    /// (atoms, `seq`, `pipe`, `tpool` only).
    plain_bodies: bool,
}

/// The symbolic counts of a design in order of first appearance (pre-order,
/// a mapReduce's `m` before its `n`), with what each is used for.
fn counts_of(term: &Term) -> (Vec<String>, HashMap<String, Uses>, Vec<&Term>) {
    let mut names = Vec::new();
    let mut uses: HashMap<String, Uses> = HashMap::new();
    let mut pool_bodies = Vec::new();
    // (node, inside a mapReduce phase)
    let mut stack = vec![(term, false)];
    while let Some((node, in_map_reduce)) = stack.pop() {
        let tpool = matches!(node, Term::Tpool(..));
        for c in node.counts() {
            if let Count::Symbol(name) = c {
                let entry = uses.entry(name.clone()).or_insert_with(|| {
                    names.push(name.clone());
                    Uses {
                        only_tpool: true,
                        in_groups: false,
                        plain_bodies: true,
                    }
                });
                entry.only_tpool &= tpool;
                entry.in_groups |= matches!(node, Term::Groups(..));
                if let (Term::Tpool(..), [body]) = (node, &node.children()[..]) {
                    entry.plain_bodies &= !in_map_reduce && is_plain(body);
                    pool_bodies.push(*body);
                }
            }
        }
        let inner = in_map_reduce || matches!(node, Term::MapReduce { .. });
        stack.extend(node.children().into_iter().rev().map(|c| (c, inner)));
    }
    (names, uses, pool_bodies)
}

/// Whether a term is made of atoms, `seq`, `pipe` and `tpool` only (its
/// plain model is then built of sums, maxima and divisions by counts).
fn is_plain(term: &Term) -> bool {
    term.preorder().all(|t| {
        matches!(
            t,
            Term::Atom(_) | Term::Seq(..) | Term::Pipe(..) | Term::Tpool(..)
        )
    })
}

/// Every variable named by a cost expression anywhere in the term: atoms,
/// shuffles, a mapReduce's `d` and `k`, redistribution costs.
fn model_vars(term: &Term) -> HashSet<String> {
    let mut vars = HashSet::new();
    for atom in term.atoms() {
        vars.extend(atom.model.vars());
    }
    for node in term.preorder() {
        match node {
            Term::MapReduce { params, .. } => {
                vars.extend(params.d.vars());
                vars.extend(params.k.vars());
            }
            Term::Redist(cost, ..) => vars.extend(cost.vars()),
            _ => {}
        }
    }
    vars
}

/// The space searched: counts, ranges, cap, threads and monotonicity.
#[derive(Clone, Debug)]
pub(super) struct Space {
    /// The counts, in order of first appearance in the design.
    pub names: Vec<String>,
    /// The smallest value of each count.
    pub lo: Vec<u64>,
    /// The largest value of each count.
    pub hi: Vec<u64>,
    /// The most threads allowed: the budget, or the cores if fewer.
    pub cap: u64,
    /// Whether the plain operators' model is non-increasing in each count
    /// (at the point the space was built for).
    pub monotone: Vec<bool>,
    /// Whether the design's threads are non-decreasing in each count.
    pub threads_monotone: Vec<bool>,
    threads: CompiledExpr,
    threads_expr: Expr,
    /// The most nodes allowed (a mapReduce's `m`), checked with every
    /// allocation, and the design's nodes as a function of the counts.
    nodes: Option<(u64, CompiledExpr)>,
    /// A core for every thread on a machine's nodes: the fewest cores of
    /// the first nodes (as `(nodes up to, fewest cores among them)`, one
    /// entry per group of alike nodes), the design's nodes and its most
    /// threads on one node as functions of the counts.
    per_node: Option<PerNode>,
}

/// The cap of threads on a node: a machine's cores.
#[derive(Clone, Debug)]
struct PerNode {
    fewest: Vec<(u64, u64)>,
    nodes: CompiledExpr,
    threads: CompiledExpr,
}

impl PerNode {
    /// The fewest cores among nodes `0..nodes`.
    fn cores(&self, nodes: f64) -> f64 {
        let used = nodes.max(1.0);
        let mut fewest = f64::INFINITY;
        for &(upto, cores) in &self.fewest {
            fewest = fewest.min(cores as f64);
            if used <= upto as f64 {
                break;
            }
        }
        fewest
    }

    /// Whether the counts `values` put no more threads on a node than it
    /// has cores.
    fn fits(&self, values: &[f64]) -> bool {
        let (nodes, threads) = (self.nodes.eval(values), self.threads.eval(values));
        !(nodes.is_nan() || threads.is_nan()) && threads <= self.cores(nodes)
    }
}

/// A machine's nodes as [`Space::new`] takes them: `(nodes up to, their
/// cores)` per group of alike nodes, in order.
pub(super) fn node_groups(machine: &crate::machine::Machine) -> Vec<(u64, u64)> {
    let mut upto = 0u64;
    (machine.groups().iter())
        .map(|g| {
            upto = upto.saturating_add(g.count as u64);
            (upto, g.cores as u64)
        })
        .collect()
}

impl Space {
    /// Counts in the space's order, paired with their names.
    pub fn named(&self, counts: &[u64]) -> Vec<(String, u64)> {
        self.names
            .iter()
            .cloned()
            .zip(counts.iter().copied())
            .collect()
    }

    /// The space of `design`'s counts with the given ranges, thread cap and
    /// node cap, the monotonicity judged at the point `at`.
    pub fn new(
        design: &Design,
        ranges: &[(String, u64, u64)],
        cap: u64,
        node_cap: Option<u64>,
        per_node: Option<Vec<(u64, u64)>>,
        at: &[(&str, f64)],
    ) -> Result<Space, AllocationError> {
        let (names, uses, pool_bodies) = counts_of(design.term());
        if names.is_empty() {
            return Err(AllocationError::NoSymbolicCount);
        }
        let mut lo = vec![1; names.len()];
        let mut hi = vec![cap; names.len()];
        for (name, from, to) in ranges {
            let i = names.iter().position(|n| n == name).ok_or_else(|| {
                AllocationError::UnknownCount {
                    name: name.clone(),
                    counts: names.join(", "),
                }
            })?;
            if *from == 0 || from > to || *to > MAX_COUNT {
                return Err(AllocationError::EmptyRange {
                    name: name.clone(),
                    from: *from,
                    to: *to,
                });
            }
            lo[i] = *from;
            hi[i] = (*to).min(cap.max(*from));
        }
        if let Some((name, _)) = at.iter().find(|(v, _)| names.iter().any(|n| n == v)) {
            return Err(AllocationError::CountInPoint {
                name: name.to_string(),
            });
        }
        let in_models = model_vars(design.term());
        // A pool body's atoms must have a time >= 0 at the point, without
        // any count: then `T/c` is non-increasing in `c`.
        let bodies_nonnegative = pool_bodies
            .iter()
            .flat_map(|b| b.atoms())
            .all(|a| matches!(a.model.eval(at), Ok(v) if v >= 0.0));
        let monotone = names
            .iter()
            .map(|n| {
                let u = &uses[n];
                u.only_tpool && u.plain_bodies && bodies_nonnegative && !in_models.contains(n)
            })
            .collect();
        let threads_monotone = names.iter().map(|n| !uses[n].in_groups).collect();
        // Computed once: each of its expressions is put in normal form.
        let resources = design.resources();
        let threads_expr = resources.threads.clone();
        let vars: Vec<&str> = names.iter().map(String::as_str).collect();
        let threads = threads_expr
            .compile(&vars)
            .map_err(|source| AllocationError::Model {
                what: "the design's threads".into(),
                source,
            })?;
        let compile = |what: &str, e: &Expr| {
            e.compile(&vars).map_err(|source| AllocationError::Model {
                what: format!("the design's {what}"),
                source,
            })
        };
        let nodes = match node_cap {
            Some(most) => Some((most, compile("nodes", &resources.nodes)?)),
            None => None,
        };
        let per_node = match per_node {
            Some(fewest) => Some(PerNode {
                fewest,
                nodes: compile("nodes", &resources.nodes)?,
                threads: compile("threads per node", &resources.threads_per_node)?,
            }),
            None => None,
        };
        let space = Space {
            names,
            lo,
            hi,
            cap,
            monotone,
            threads_monotone,
            threads,
            threads_expr,
            nodes,
            per_node,
        };
        // The constraints before any model: the smallest counts must fit
        // the nodes (which grow with a mapReduce's `m`) and the threads
        // (when they grow with every count).
        if let Some((most, nodes)) = &space.nodes {
            let values: Vec<f64> = space.lo.iter().map(|&c| c as f64).collect();
            let minimum = nodes.eval(&values);
            if minimum.is_nan() || minimum > *most as f64 {
                return Err(AllocationError::TooFewNodes {
                    nodes: *most,
                    minimum: if minimum.is_finite() && minimum >= 0.0 {
                        minimum as u64
                    } else {
                        u64::MAX
                    },
                });
            }
        }
        if let Some(p) = &space.per_node {
            let values: Vec<f64> = space.lo.iter().map(|&c| c as f64).collect();
            if !p.fits(&values) {
                return Err(AllocationError::NodeTooSmall {
                    threads: p.threads.eval(&values),
                    cores: p.cores(p.nodes.eval(&values)),
                });
            }
        }
        if space.threads_monotone.iter().all(|&m| m) {
            let minimum = space.threads(&space.lo)?;
            if minimum.is_none_or(|t| t > cap) {
                return Err(AllocationError::BudgetTooSmall {
                    budget: cap,
                    minimum: minimum.unwrap_or(u64::MAX),
                });
            }
        }
        Ok(space)
    }

    /// The number of counts.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// The design's threads at `counts`; more than [`MAX_COUNT`] (or not a
    /// number) is `None`, which no cap admits.
    pub fn threads(&self, counts: &[u64]) -> Result<Option<u64>, AllocationError> {
        as_floats(counts, |values| self.threads_of(values))
    }

    /// [`Space::threads`] of the counts as floats.
    fn threads_of(&self, values: &[f64]) -> Result<Option<u64>, AllocationError> {
        let t = self.threads.eval(values);
        if t.is_nan() {
            return Err(AllocationError::Model {
                what: format!("the design's threads `{}`", self.threads_expr),
                source: self.threads.eval_checked(values).err().unwrap_or(
                    crate::EvalError::NotANumber {
                        name: "threads".into(),
                    },
                ),
            });
        }
        // Counts are integers, so the threads are too (exact below 2^53).
        Ok((t >= 0.0 && t <= MAX_COUNT as f64).then_some(t as u64))
    }

    /// Whether `counts` fit the caps: their threads if so.
    pub fn feasible(&self, counts: &[u64]) -> Result<Option<u64>, AllocationError> {
        as_floats(counts, |values| {
            if let Some((most, nodes)) = &self.nodes {
                // Not a number, or over the cap: not an allocation.
                let n = nodes.eval(values);
                if n.is_nan() || n > *most as f64 {
                    return Ok(None);
                }
            }
            if self.per_node.as_ref().is_some_and(|p| !p.fits(values)) {
                return Ok(None);
            }
            Ok(self.threads_of(values)?.filter(|&t| t <= self.cap))
        })
    }

    /// `counts` as `name=value` pairs, for messages.
    pub fn describe(&self, counts: &[u64]) -> String {
        let pairs: Vec<String> = self
            .names
            .iter()
            .zip(counts)
            .map(|(n, c)| format!("{n}={c}"))
            .collect();
        pairs.join(", ")
    }
}
