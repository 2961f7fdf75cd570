//! What one thread does with an element, as the time it takes: steps on
//! nodes, delays, one after the other (`Sum`) or at once (`Max`), kept in
//! postfix order so that a design of any depth is built and evaluated
//! without recursion.
//!
//! While folding ([`Stage`]) the amounts are expressions: a group's `p` and
//! the first node of a group are only known when the enclosing `on`, `par`
//! or `groups` is folded, which substitutes them ([`Stage::place`]), as
//! the simulator's planner does. A stage that becomes a station of the
//! network is evaluated once ([`Stage::evaluate`]) into a [`Program`] of
//! times on this machine's nodes: a step of `ns` per lane, `lanes` lanes
//! (a mapReduce's workers on a node) on each of its nodes takes
//! `ns·lanes / (min(lanes, cores)·speed)` there, alone, and keeps
//! `ns·lanes / speed` core·ns of the node busy. On a node with a memory
//! ([`Memory`]), a step that moves bytes spends `m` of its `ns` on the
//! memory and the rest on its cores ([`Memory::split`]: an element handed
//! over by the stage before may wait on memory for none of it): its
//! cores' part is `ns − m` (as above), its
//! memory part `m·lanes / min(lanes, capacity)`, not scaled by speed, and
//! it keeps `m·lanes` lane·ns of the node's memory busy, whose capacity is
//! `min(lanes(), cores)` calls at full speed (at most one per core). A
//! call waiting on memory holds its core: `m·lanes` counts as core·ns too,
//! and its memory part is slowed by the more crowded of the node's cores
//! and memory.

use super::QueueingError;
use crate::Expr;
use crate::machine::{Machine, Memory};
use crate::semantics::check_time;

/// The most nodes a part may run on: each node's work is kept, as the
/// simulator keeps each thread (2^20, its limit too).
const MAX_NODES: usize = 1 << 20;

/// A step while folding: `ns` (per lane) on each of `width` nodes from
/// `first`; a width of `None` takes the whole group it is placed on.
#[derive(Clone, Debug, PartialEq)]
struct Step {
    label: String,
    first: Expr,
    width: Option<Expr>,
    lanes: usize,
    ns: Expr,
    /// The bytes a lane moves to and from memory.
    bytes: Option<Expr>,
    /// Whether its element was handed over by the stage before
    /// ([`Memory::split`]).
    handed: bool,
}

/// An operation of a program while folding.
#[derive(Clone, Debug, PartialEq)]
enum SymOp {
    Step(Step),
    /// A time on no core (a shuffle, a redistribution, by their models).
    Delay {
        label: String,
        ns: Expr,
    },
    Sum(usize),
    Max(usize),
}

/// A sequential part of a design (one thread), its amounts symbolic.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Stage {
    pub(super) name: String,
    ops: Vec<SymOp>,
    /// Its cost model when it is atoms in sequence on one core (what a
    /// mapReduce's map and reduce must be).
    pub(super) model: Option<Expr>,
}

impl Stage {
    /// An atom: one step of its model (moving `bytes`, of an element
    /// `handed` over by the stage before or not) on a core of its group.
    pub(super) fn atom(name: &str, model: Expr, bytes: Option<Expr>, handed: bool) -> Stage {
        Stage {
            name: name.to_string(),
            ops: vec![SymOp::Step(Step {
                label: name.to_string(),
                first: Expr::num(0.0),
                width: None,
                lanes: 1,
                ns: model.clone(),
                bytes,
                handed,
            })],
            model: Some(model),
        }
    }

    /// `lanes` workers on each of `nodes` nodes from node 0, `ns` each.
    pub(super) fn workers(label: String, nodes: usize, lanes: usize, ns: Expr) -> Stage {
        Stage {
            name: label.clone(),
            ops: vec![SymOp::Step(Step {
                label,
                first: Expr::num(0.0),
                width: Some(Expr::num(nodes as f64)),
                lanes,
                ns,
                bytes: None,
                handed: false,
            })],
            model: None,
        }
    }

    /// A time on no core.
    pub(super) fn delay(label: &str, ns: Expr) -> Stage {
        Stage {
            name: label.to_string(),
            ops: vec![SymOp::Delay {
                label: label.to_string(),
                ns,
            }],
            model: None,
        }
    }

    /// The parts one after the other (`at_once`: all at once), named
    /// `name`.
    pub(super) fn join(name: String, parts: Vec<Stage>, at_once: bool) -> Stage {
        let k = parts.len();
        let model = if at_once {
            None
        } else {
            (parts.iter().map(|p| p.model.clone()))
                .collect::<Option<Vec<_>>>()
                .map(crate::semantics::flat::sum)
        };
        let mut parts = parts.into_iter();
        let mut ops = parts.next().map(|p| p.ops).unwrap_or_default();
        for p in parts {
            ops.extend(p.ops);
        }
        if k > 1 {
            ops.push(if at_once {
                SymOp::Max(k)
            } else {
                SymOp::Sum(k)
            });
        }
        Stage { name, ops, model }
    }

    /// The stage on a group of `size` processors from `offset` (both
    /// expressions of the level above): `p` is `size` inside it, its node
    /// numbers shift by `offset`, and a step not yet on a group takes it
    /// all.
    pub(super) fn place(mut self, size: &Expr, offset: &Expr) -> Stage {
        let inside = |e: &Expr| e.subs("p", size);
        for op in &mut self.ops {
            match op {
                SymOp::Step(s) => {
                    s.ns = inside(&s.ns);
                    s.bytes = s.bytes.as_ref().map(inside);
                    s.first = inside(&s.first) + offset.clone();
                    s.width = Some(s.width.as_ref().map_or_else(|| size.clone(), inside));
                }
                SymOp::Delay { ns, .. } => *ns = inside(ns),
                SymOp::Sum(_) | SymOp::Max(_) => {}
            }
        }
        self.model = None;
        self
    }

    /// The program of this stage at the bindings on `machine`; a step on
    /// a node the machine lacks is an error naming the nodes asked for.
    pub(super) fn evaluate(
        &self,
        at: &[(&str, f64)],
        machine: &Machine,
    ) -> Result<Program, QueueingError> {
        // (evaluation errors on a value that is not finite)
        let value_of = |label: &str, e: &Expr| -> Result<f64, QueueingError> {
            let e = e.subs(ALL_PROCESSORS, &Expr::var("p"));
            e.eval(at).map_err(|source| QueueingError::Eval {
                atom: label.to_string(),
                source,
            })
        };
        let value = |label: &str, e: &Expr| -> Result<f64, QueueingError> {
            Ok(check_time(label, value_of(label, e)?).map_err(|e| e.at(at))?)
        };
        let mut program = Program::default();
        for op in &self.ops {
            let op = match op {
                SymOp::Step(s) => {
                    let first = value(&s.label, &s.first)? as usize;
                    let width = match &s.width {
                        Some(w) => (value(&s.label, w)? as usize).max(1),
                        None => 1,
                    };
                    let ns = value(&s.label, &s.ns)?;
                    let bytes = match &s.bytes {
                        Some(b) => bytes(&s.label, value_of(&s.label, b)?, at)?,
                        None => 0.0,
                    };
                    let amounts = Amounts {
                        ns,
                        bytes,
                        handed: s.handed,
                    };
                    program.step(&self.name, first, width, s.lanes, amounts, machine)?
                }
                SymOp::Delay { label, ns } => Op::Delay(value(label, ns)?),
                SymOp::Sum(k) => Op::Sum(*k),
                SymOp::Max(k) => Op::Max(*k),
            };
            program.ops.push(op);
        }
        Ok(program)
    }
}

pub(super) use crate::semantics::throughput::ALL_PROCESSORS;

/// An atom's bytes at a point: a finite number `>= 0`, or an error naming
/// the atom.
fn bytes(label: &str, v: f64, at: &[(&str, f64)]) -> Result<f64, QueueingError> {
    if v.is_finite() && v >= 0.0 {
        return Ok(v);
    }
    let at: Vec<String> = at.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    Err(QueueingError::Bytes {
        atom: label.to_string(),
        value: v,
        at: at.join(", "),
    })
}

/// What one lane of a step does: its time alone and the bytes it moves.
#[derive(Clone, Copy, Debug)]
struct Amounts {
    ns: f64,
    bytes: f64,
    handed: bool,
}

/// A step's time on one node alone: its cores' part and its memory's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Timed {
    cores: f64,
    memory: f64,
}

/// How many calls a node's memory serves at once at a core's full
/// bandwidth: its lanes, at most one per core.
pub(super) fn memory_capacity(memory: &Memory, cores: usize) -> f64 {
    memory.lanes().min(cores as f64)
}

/// An operation of an evaluated program.
#[derive(Clone, Debug, PartialEq)]
enum Op {
    /// On nodes `first..first + times.len()`: each node's time alone (ns);
    /// the step ends when the slowest node ends.
    Step {
        first: usize,
        times: Vec<Timed>,
    },
    Delay(f64),
    Sum(usize),
    Max(usize),
}

/// The time one element takes in a stage, as a function of each node's
/// slowdown, and the core·ns it keeps each node busy.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Program {
    ops: Vec<Op>,
    /// Core·ns per element, by node (each node once, in order).
    pub(super) work: Vec<(usize, f64)>,
    /// Lane·ns of memory per element, by node (each node once, in order).
    pub(super) traffic: Vec<(usize, f64)>,
    /// The nodes it runs on: one past the highest.
    pub(super) nodes: usize,
    /// The node of its first step (its thread's, where it hands elements
    /// on).
    pub(super) home: Option<usize>,
}

impl Program {
    /// `ns` on a core of node `node`, the same per element: a thread's
    /// take or hand-over, or a part's time spread on a node.
    pub(super) fn on_node(node: usize, ns: f64, work: f64) -> Program {
        Program {
            ops: vec![Op::Step {
                first: node,
                times: vec![Timed {
                    cores: ns,
                    memory: 0.0,
                }],
            }],
            work: vec![(node, work)],
            traffic: Vec::new(),
            nodes: node + 1,
            home: Some(node),
        }
    }

    /// Times on nodes (`(node, ns, core·ns)`, ascending nodes) and a
    /// delay, added up: a part that runs alone, spread on the nodes it
    /// used.
    pub(super) fn spread(parts: &[(usize, f64, f64)], delay: f64) -> Program {
        let mut p = Program::default();
        for &(node, ns, work) in parts {
            p.ops.push(Op::Step {
                first: node,
                times: vec![Timed {
                    cores: ns,
                    memory: 0.0,
                }],
            });
            add_to(&mut p.work, node, work);
            p.nodes = p.nodes.max(node + 1);
            p.home.get_or_insert(node);
        }
        p.ops.push(Op::Delay(delay));
        p.ops.push(Op::Sum(parts.len() + 1));
        p
    }

    /// A step of `amounts` per lane on `width` nodes from `first`.
    fn step(
        &mut self,
        stage: &str,
        first: usize,
        width: usize,
        lanes: usize,
        amounts: Amounts,
        machine: &Machine,
    ) -> Result<Op, QueueingError> {
        let end = first.saturating_add(width);
        if end > MAX_NODES {
            return Err(QueueingError::TooManyNodes {
                part: stage.to_string(),
                asked: end,
                limit: MAX_NODES,
            });
        }
        if end > machine.nodes() {
            return Err(QueueingError::Nodes {
                part: stage.to_string(),
                asked: end,
                available: machine.nodes(),
            });
        }
        let mut times = Vec::with_capacity(width);
        let lanes_f = lanes as f64;
        for node in first..end {
            let (cores, speed) = (machine.node_cores(node), machine.node_speed(node));
            let memory = machine.node_memory(node);
            let (work, m) = memory.map_or((amounts.ns, 0.0), |mem| {
                mem.split(amounts.ns, amounts.bytes, amounts.handed)
            });
            let busy = work * lanes_f;
            let mut timed = Timed {
                cores: busy / (lanes.min(cores) as f64 * speed),
                memory: 0.0,
            };
            add_to(&mut self.work, node, busy / speed + m * lanes_f);
            if let Some(mem) = memory.filter(|_| m > 0.0) {
                let at_once = lanes_f.min(memory_capacity(&mem, cores));
                timed.memory = m * lanes_f / at_once;
                add_to(&mut self.traffic, node, m * lanes_f);
            }
            times.push(timed);
        }
        self.nodes = self.nodes.max(end);
        self.home.get_or_insert(first);
        Ok(Op::Step { first, times })
    }

    /// The time one element takes with node `j`'s cores slowed by
    /// `slowdown[2j]` and its memory by `slowdown[2j + 1]` (nodes beyond
    /// the slice are not slowed); a memory part runs no faster than its
    /// core lets it.
    pub(super) fn time(&self, slowdown: &[f64]) -> f64 {
        let slowed = |i: usize| slowdown.get(i).copied().unwrap_or(1.0);
        let mut stack: Vec<f64> = Vec::new();
        for op in &self.ops {
            let v = match op {
                Op::Step { first, times } => (times.iter().enumerate())
                    .map(|(i, t)| {
                        let node = first + i;
                        let cores = slowed(2 * node);
                        t.cores * cores + t.memory * cores.max(slowed(2 * node + 1))
                    })
                    .fold(0.0, f64::max),
                Op::Delay(ns) => *ns,
                Op::Sum(k) => {
                    let at = stack.len() - k;
                    stack.drain(at..).sum()
                }
                Op::Max(k) => {
                    let at = stack.len() - k;
                    stack.drain(at..).fold(0.0, f64::max)
                }
            };
            stack.push(v);
        }
        stack.iter().sum()
    }

    /// Whether it takes no time and no core.
    pub(super) fn is_free(&self) -> bool {
        self.time(&[]) == 0.0 && self.work.iter().all(|&(_, w)| w == 0.0)
    }
}

/// Adds `amount` to `node`'s entry of a list by node (ascending).
fn add_to(list: &mut Vec<(usize, f64)>, node: usize, amount: f64) {
    match list.binary_search_by_key(&node, |&(n, _)| n) {
        Ok(i) => list[i].1 += amount,
        Err(i) => list.insert(i, (node, amount)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> Vec<(&'static str, f64)> {
        vec![("x", 10.0)]
    }

    #[test]
    fn a_step_on_a_node_takes_its_time_at_its_speed() {
        let m = Machine::new(1, 4).node(crate::machine::Node::new(2).speed(2.0));
        // 3 lanes of 10 ns on node 1 (2 cores at speed 2): 30 core·ns at
        // speed 2 is 15 core·ns, on 2 cores 7.5 ns.
        let s = Stage::workers("w".into(), 1, 3, Expr::var("x"))
            .place(&Expr::num(1.0), &Expr::num(1.0));
        let p = s.evaluate(&at(), &m).unwrap();
        assert_eq!(p.time(&[]), 7.5);
        assert_eq!(p.work, vec![(1, 15.0)]);
        assert_eq!((p.nodes, p.home), (2, Some(1)));
        // Node 1 slowed twice: 15 ns.
        assert_eq!(p.time(&[1.0, 1.0, 2.0]), 15.0);
    }

    #[test]
    fn one_after_the_other_adds_at_once_takes_the_slowest() {
        let m = Machine::new(2, 1);
        let a = Stage::atom("a", Expr::var("x"), None, false);
        let b = Stage::atom("b", Expr::num(4.0), None, false);
        let seq = Stage::join("seq".into(), vec![a.clone(), b.clone()], false);
        assert_eq!(seq.evaluate(&at(), &m).unwrap().time(&[]), 14.0);
        assert_eq!(
            seq.model.as_ref().map(|e| e.eval(&at()).unwrap()),
            Some(14.0)
        );
        // a on node 0, b on node 1, at once: the slower, 10; node 1 slowed
        // three times: 12.
        let par = Stage::join(
            "par".into(),
            vec![
                a.place(&Expr::num(1.0), &Expr::num(0.0)),
                b.place(&Expr::num(1.0), &Expr::num(1.0)),
            ],
            true,
        );
        let p = par.evaluate(&at(), &m).unwrap();
        assert_eq!(p.time(&[]), 10.0);
        assert_eq!(p.time(&[1.0, 1.0, 3.0]), 12.0);
        assert_eq!(p.work, vec![(0, 10.0), (1, 4.0)]);
    }

    #[test]
    fn a_group_binds_p_and_a_missing_node_is_an_error() {
        let m = Machine::new(2, 1);
        let a = Stage::atom("a", Expr::parse("100 / p").unwrap(), None, false);
        let on4 = a.place(&Expr::num(4.0), &Expr::num(0.0));
        let err = on4.evaluate(&at(), &m).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the design asks for 4 nodes (`a`), the machine has 2"
        );
        let on2 = Stage::atom("a", Expr::parse("100 / p").unwrap(), None, false)
            .place(&Expr::num(2.0), &Expr::num(0.0));
        let p = on2.evaluate(&at(), &m).unwrap();
        assert_eq!(p.time(&[]), 50.0);
        assert_eq!(p.work, vec![(0, 50.0), (1, 50.0)]);
    }

    #[test]
    fn a_delay_is_not_slowed() {
        let m = Machine::new(1, 1);
        let d = Stage::join(
            "r".into(),
            vec![
                Stage::atom("a", Expr::num(3.0), None, false),
                Stage::delay("cost", Expr::num(5.0)),
            ],
            false,
        );
        let p = d.evaluate(&at(), &m).unwrap();
        assert_eq!(p.time(&[2.0]), 11.0);
        assert_eq!(p.work, vec![(0, 3.0)]);
    }
}
