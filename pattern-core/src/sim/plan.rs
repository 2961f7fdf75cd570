//! A design as the simulator runs it, built by a fold of the design
//! ([`Semantics`]), one meaning of a design among the others.
//!
//! The stream level: stages (threads) connected by queues, task pools of
//! workers on one queue, and phases (a `seq` with parallel parts: the whole
//! stream through one part, then through the next). Inside a stage, what a
//! thread does with one element is a small graph of *steps* ([`Template`]):
//! compute steps on nodes (a multi-processor task on several at once),
//! transfers and delays, each starting when those before it have ended.
//!
//! While folding, durations, sizes and node numbers are expressions: a
//! mapReduce substitutes `x := 1` in its map and `x := d(x)` in its reduce,
//! `on`/`par`/`groups` substitute the group size `p` and shift their parts
//! to their processors, exactly as the throughput semantics does. These
//! placements are not applied to the steps level by level (a design 10^5
//! levels deep would cost 10^10): each level adds an *environment* above
//! its parts' (the value of `p` there and the shift, as expressions of the
//! level above), and [`Planner::finish`] evaluates the environments once,
//! from the top, and each step in its own. Steps, environments and edges
//! live in arenas; the fold visits a node's parts first and in order, so
//! those of a subterm are contiguous ranges of each.

use super::SimError;
use super::environment::{Env, Places, TOP};
use super::template::{Leaf, Template};
use crate::grammar::fold::{Scope, Semantics};
use crate::semantics::{MapReducePhases, check_time};
use crate::{Atom, Count, Expr, MapReduceParams};

/// The most threads a simulated design may have.
pub const MAX_THREADS: u64 = 1 << 20;
/// The most steps a design's plan may hold.
const MAX_STEPS: usize = 1 << 22;

/// How a mapReduce's shuffle runs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Shuffle {
    /// A delay of the shuffle's model, on no link (the operators' view).
    #[default]
    Model,
    /// Transfers: `k(x) × bytes` in all, each node's share of every key
    /// sent to the key's node (keys dealt to the `m` nodes in turn), all at
    /// once over the links.
    BytesPerKey(f64),
}

/// What the simulator runs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Plan<S = Frag> {
    /// One thread doing this with each element.
    Stage(S),
    /// Stages connected by bounded buffers.
    Pipe(Vec<Plan<S>>),
    /// `n` workers taking elements from one shared queue; `id` numbers the
    /// pools in the order their folds end.
    Pool {
        id: usize,
        n: u64,
        body: Box<Plan<S>>,
    },
    /// The whole stream through each part in turn.
    Phases(Vec<Plan<S>>),
}

/// A stage's steps while folding: its ranges of the arenas (steps,
/// environments, edges), its first and last step and its environment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Frag {
    lo: usize,
    hi: usize,
    entry: usize,
    exit: usize,
    env: usize,
    envs: (usize, usize),
    edges: (usize, usize),
}

#[derive(Clone, Debug)]
enum Work {
    Compute { direct: bool },
    Transfer { from: Expr, to: Expr },
    Delay,
    Noop,
}

/// A step while folding: `amount` is ns (compute, delay) or bytes; its
/// expressions are those of its environment `env`.
#[derive(Clone, Debug)]
struct Step {
    work: Work,
    label: usize,
    node: Expr,
    width: Option<Expr>,
    amount: Expr,
    /// An atom's bytes to and from memory per call (`None`: none).
    bytes: Option<Expr>,
    /// Whether an atom's element was handed over by the stage before.
    handed: bool,
    env: usize,
    /// [`Leaf::Compute`]'s `lane`.
    lane: usize,
}

/// [`Planner::finish`]'s `what` for an atom's bytes.
const MOVED: &str = "bytes moved";

/// The fold that builds a [`Plan`].
pub(crate) struct Planner<'a> {
    pub(crate) at: &'a [(&'a str, f64)],
    pub(crate) shuffle: Shuffle,
    steps: Vec<Step>,
    envs: Vec<Env>,
    edges: Vec<(usize, usize)>,
    pub(crate) labels: Vec<String>,
    pools: usize,
}

impl<'a> Planner<'a> {
    pub(crate) fn new(at: &'a [(&'a str, f64)], shuffle: Shuffle) -> Planner<'a> {
        Planner {
            at,
            shuffle,
            steps: Vec::new(),
            envs: Vec::new(),
            edges: Vec::new(),
            labels: Vec::new(),
            pools: 0,
        }
    }

    /// The pools of the design.
    pub(crate) fn pools(&self) -> usize {
        self.pools
    }

    fn count(&self, c: &Count) -> Result<u64, SimError> {
        let value = match c {
            Count::Fixed(k) if *k <= MAX_THREADS => return Ok(*k),
            Count::Fixed(k) => Some(*k as f64),
            Count::Symbol(name) => self.at.iter().find(|(n, _)| n == name).map(|(_, v)| *v),
        };
        match value {
            Some(v) if v >= 1.0 && v.fract() == 0.0 && v <= MAX_THREADS as f64 => Ok(v as u64),
            _ => Err(SimError::Count {
                count: c.to_string(),
                value,
            }),
        }
    }

    fn label(&mut self, label: String) -> usize {
        self.labels.push(label);
        self.labels.len() - 1
    }

    fn step(
        &mut self,
        work: Work,
        label: usize,
        amount: Expr,
        env: usize,
    ) -> Result<usize, SimError> {
        if self.steps.len() >= MAX_STEPS {
            return Err(SimError::TooManyThreads {
                threads: self.steps.len() as u64,
                limit: MAX_STEPS as u64,
            });
        }
        self.steps.push(Step {
            work,
            label,
            node: Expr::num(0.0),
            width: None,
            amount,
            bytes: None,
            handed: false,
            env,
            lane: 0,
        });
        Ok(self.steps.len() - 1)
    }

    fn noop(&mut self, env: usize) -> Result<usize, SimError> {
        self.step(Work::Noop, 0, Expr::num(0.0), env)
    }

    /// A new environment, above nothing yet.
    fn env(&mut self, place: Option<(Expr, Expr)>) -> usize {
        self.envs.push(Env { parent: TOP, place });
        self.envs.len() - 1
    }

    /// A new environment above the environments `parts`.
    fn join(&mut self, parts: &[usize], place: Option<(Expr, Expr)>) -> usize {
        let e = self.env(place);
        for &p in parts {
            self.envs[p].parent = e;
        }
        e
    }

    /// The fragment from `lo` (its first step, environment and edge) to
    /// the arenas' ends.
    fn frag(&self, lo: (usize, usize, usize), entry: usize, exit: usize, env: usize) -> Frag {
        Frag {
            lo: lo.0,
            hi: self.steps.len(),
            entry,
            exit,
            env,
            envs: (lo.1, self.envs.len()),
            edges: (lo.2, self.edges.len()),
        }
    }

    fn stage(plan: Plan, pattern: &'static str) -> Result<Frag, SimError> {
        match plan {
            Plan::Stage(f) => Ok(f),
            _ => Err(SimError::Unsupported { pattern }),
        }
    }

    /// `entry -> each part -> exit`, the parts at once, under a new
    /// environment; the first part begins the fragment.
    fn all(&mut self, parts: &[Frag]) -> Result<Frag, SimError> {
        let first = parts[0];
        let env = self.join(&parts.iter().map(|p| p.env).collect::<Vec<_>>(), None);
        let entry = self.noop(env)?;
        let exit = self.noop(env)?;
        for p in parts {
            self.edges.push((entry, p.entry));
            self.edges.push((p.exit, exit));
        }
        Ok(self.frag((first.lo, first.envs.0, first.edges.0), entry, exit, env))
    }

    /// `f` on a group of `size` processors from `offset` (expressions of
    /// the level above): a new environment above `f`'s. Multi-processor
    /// tasks not yet on a group take all of it.
    fn place(&mut self, f: Frag, size: &Expr, offset: &Expr) -> Frag {
        let env = self.join(&[f.env], Some((size.clone(), offset.clone())));
        Frag {
            env,
            envs: (f.envs.0, self.envs.len()),
            ..f
        }
    }

    /// Copies `f` (its steps, environments and edges) to the ends of the
    /// arenas.
    fn copy(&mut self, f: Frag) -> Result<Frag, SimError> {
        let (base, env_base, edge_base) = (self.steps.len(), self.envs.len(), self.edges.len());
        if base + (f.hi - f.lo) > MAX_STEPS {
            return Err(SimError::TooManyThreads {
                threads: (base + f.hi - f.lo) as u64,
                limit: MAX_STEPS as u64,
            });
        }
        let step = |i: usize| i - f.lo + base;
        let env = |e: usize| {
            if (f.envs.0..f.envs.1).contains(&e) {
                e - f.envs.0 + env_base
            } else {
                e
            }
        };
        for i in f.lo..f.hi {
            let mut s = self.steps[i].clone();
            s.env = env(s.env);
            self.steps.push(s);
        }
        for e in f.envs.0..f.envs.1 {
            let mut copied = self.envs[e].clone();
            copied.parent = if copied.parent == TOP {
                TOP
            } else {
                env(copied.parent)
            };
            self.envs.push(copied);
        }
        for i in f.edges.0..f.edges.1 {
            let (a, b) = self.edges[i];
            self.edges.push((step(a), step(b)));
        }
        Ok(Frag {
            lo: base,
            hi: self.steps.len(),
            entry: step(f.entry),
            exit: step(f.exit),
            env: env(f.env),
            envs: (env_base, self.envs.len()),
            edges: (edge_base, self.edges.len()),
        })
    }

    /// Expression `e` of step `label`'s environment `env` at the
    /// bindings: `what` it gives ("ns": a time; [`MOVED`]: an atom's bytes;
    /// else a number `>= 0` named by `what`), or an error naming the atom.
    fn value(
        &self,
        places: &Places<'a>,
        label: usize,
        e: &Expr,
        env: usize,
        what: &str,
    ) -> Result<f64, SimError> {
        let atom = || self.labels[label].clone();
        let v = e
            .eval(places.bindings(env, self.at))
            .map_err(|err| SimError::Model {
                atom: atom(),
                // (Which of the atom's expressions has no value.)
                message: match what {
                    MOVED => format!("its bytes: {err}"),
                    _ => err.to_string(),
                },
            })?;
        if what == "ns" {
            // A duration: the one definition of a time.
            return Ok(check_time(&self.labels[label], v)?);
        }
        if v.is_finite() && v >= 0.0 {
            return Ok(v);
        }
        let message = if what == MOVED {
            format!("it moves {v} bytes to and from memory: bytes are a finite number >= 0")
        } else {
            format!("its model gives {v} {what}: a finite number >= 0")
        };
        Err(SimError::Model {
            atom: atom(),
            message,
        })
    }

    /// The plan with every expression evaluated at the bindings.
    pub(crate) fn finish(self, plan: Plan) -> Result<Plan<Template>, SimError> {
        let mut successors = vec![Vec::new(); self.steps.len()];
        for &(a, b) in &self.edges {
            successors[a].push(b);
        }
        let places = Places::of(&self.envs, self.at)?;
        let eval = |label: usize, e: &Expr, env: usize, what: &str| {
            self.value(&places, label, e, env, what)
        };
        // A node number: the environments' shift plus the step's own.
        let node = |label: usize, e: &Expr, env: usize| -> Result<usize, SimError> {
            let v = places.shift(env) + eval(label, e, env, "as a node")?;
            Ok(v.min(usize::MAX as f64) as usize)
        };
        let leaf = |i: usize| -> Result<Leaf, SimError> {
            let s = &self.steps[i];
            let env = s.env;
            Ok(match &s.work {
                Work::Noop => Leaf::Noop,
                Work::Delay => Leaf::Delay(eval(s.label, &s.amount, env, "ns")?),
                Work::Compute { direct } => {
                    let width = match (&s.width, direct) {
                        (Some(w), _) => eval(s.label, w, env, "as a width")?,
                        // A multi-processor task takes all of its group.
                        (None, true) => places.width(env).unwrap_or(1.0),
                        (None, false) => 1.0,
                    };
                    Leaf::Compute {
                        node: node(s.label, &s.node, env)?,
                        width: (width.min(usize::MAX as f64) as usize).max(1),
                        ns: eval(s.label, &s.amount, env, "ns")?,
                        bytes: match &s.bytes {
                            Some(b) => eval(s.label, b, env, MOVED)?,
                            None => 0.0,
                        },
                        handed: s.handed,
                        label: s.label,
                        direct: *direct,
                        lane: s.lane,
                    }
                }
                Work::Transfer { from, to } => Leaf::Transfer {
                    from: node(s.label, from, env)?,
                    to: node(s.label, to, env)?,
                    bytes: eval(s.label, &s.amount, env, "bytes")?,
                },
            })
        };
        // The stream level is shallow next to the steps: an explicit stack
        // rebuilds it bottom-up.
        enum Visit<'p> {
            Enter(&'p Plan),
            Exit(&'p Plan, usize),
        }
        let mut stack = vec![Visit::Enter(&plan)];
        let mut done: Vec<Plan<Template>> = Vec::new();
        while let Some(v) = stack.pop() {
            match v {
                Visit::Enter(p) => match p {
                    Plan::Stage(f) => done.push(Plan::Stage(Template::build(
                        f.entry,
                        f.exit,
                        &successors,
                        leaf,
                    )?)),
                    Plan::Pipe(parts) | Plan::Phases(parts) => {
                        stack.push(Visit::Exit(p, parts.len()));
                        stack.extend(parts.iter().rev().map(Visit::Enter));
                    }
                    Plan::Pool { body, .. } => {
                        stack.push(Visit::Exit(p, 1));
                        stack.push(Visit::Enter(body));
                    }
                },
                Visit::Exit(p, k) => {
                    let parts = done.split_off(done.len() - k);
                    done.push(match p {
                        Plan::Pipe(_) => Plan::Pipe(parts),
                        Plan::Phases(_) => Plan::Phases(parts),
                        Plan::Pool { id, n, .. } => Plan::Pool {
                            id: *id,
                            n: *n,
                            body: Box::new(parts.into_iter().next().expect("one body")),
                        },
                        Plan::Stage(_) => unreachable!("stages are built on entry"),
                    });
                }
            }
        }
        Ok(done.pop().expect("the root"))
    }
}

impl Semantics for Planner<'_> {
    type Value = Plan;
    type Error = SimError;

    fn atom(&mut self, atom: &Atom, scope: &Scope) -> Result<Plan, SimError> {
        let label = self.label(atom.name.clone());
        let lo = (self.steps.len(), self.envs.len(), self.edges.len());
        let env = self.env(None);
        let s = self.step(
            Work::Compute { direct: true },
            label,
            atom.model.clone(),
            env,
        )?;
        self.steps[s].bytes = atom.bytes.clone();
        self.steps[s].handed = scope.handed;
        Ok(Plan::Stage(self.frag(lo, s, s, env)))
    }

    fn seq(&mut self, parts: Vec<Plan>, _: &Scope) -> Result<Plan, SimError> {
        if !parts.iter().all(|p| matches!(p, Plan::Stage(_))) {
            return Ok(Plan::Phases(parts));
        }
        let frags: Vec<Frag> = (parts.into_iter())
            .map(|p| Self::stage(p, "seq"))
            .collect::<Result<_, _>>()?;
        for w in frags.windows(2) {
            self.edges.push((w[0].exit, w[1].entry));
        }
        let (first, last) = (frags[0], frags[frags.len() - 1]);
        let env = self.join(&frags.iter().map(|f| f.env).collect::<Vec<_>>(), None);
        let lo = (first.lo, first.envs.0, first.edges.0);
        Ok(Plan::Stage(self.frag(lo, first.entry, last.exit, env)))
    }

    fn pipe(&mut self, stages: Vec<Plan>, _: &Scope) -> Result<Plan, SimError> {
        let mut flat = Vec::with_capacity(stages.len());
        for stage in stages {
            match stage {
                Plan::Pipe(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        Ok(Plan::Pipe(flat))
    }

    fn tpool(&mut self, n: &Count, body: Plan, _: &Scope) -> Result<Plan, SimError> {
        let n = self.count(n)?;
        let id = self.pools;
        self.pools += 1;
        if let Plan::Phases(_) = body {
            return Err(SimError::Unsupported {
                pattern: "a task pool of a seq with parallel parts",
            });
        }
        Ok(Plan::Pool {
            id,
            n,
            body: Box::new(body),
        })
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Plan,
        shuffle: &Atom,
        reduce: Plan,
        _: &Scope,
    ) -> Result<Plan, SimError> {
        const BODY: &str = "a mapreduce whose map or reduce is not a sequence of atoms";
        let (map, reduce) = (Self::stage(map, BODY)?, Self::stage(reduce, BODY)?);
        let total = |p: &Planner, f: Frag| -> Result<Expr, SimError> {
            let mut sum = Expr::num(0.0);
            for s in &p.steps[f.lo..f.hi] {
                match s.work {
                    Work::Compute { .. } if s.width.is_none() => sum = sum + s.amount.clone(),
                    _ => return Err(SimError::Unsupported { pattern: BODY }),
                }
            }
            Ok(sum)
        };
        let phases = MapReducePhases::new(
            params,
            total(self, map)?,
            &shuffle.model,
            total(self, reduce)?,
        );
        // The map's and reduce's own steps give way to the workers' shares.
        for s in &mut self.steps[map.lo..reduce.hi] {
            s.work = Work::Noop;
        }
        let (m, n) = (self.count(&params.m)?, self.count(&params.n)?);
        let workers = m.saturating_mul(n);
        if workers > MAX_THREADS || m.saturating_mul(m) > MAX_THREADS {
            return Err(SimError::TooManyThreads {
                threads: workers.max(m.saturating_mul(m)),
                limit: MAX_THREADS,
            });
        }
        let lo = (map.lo, map.envs.0, map.edges.0);
        // The workers' steps, in the level of the mapReduce. Their shares
        // are the models' sums: they move no bytes of memory (as in the
        // queueing semantics).
        let env = self.join(&[map.env, reduce.env], None);
        let map_label = self.label(format!("map of {}", shuffle.name));
        let reduce_label = self.label(format!("reduce of {}", shuffle.name));
        let shuffle_label = self.label(shuffle.name.clone());
        let share = |e: Expr| e / phases.workers.clone();
        let map_ns = share(Expr::var("x") * phases.map_one.clone());
        let reduce_ns = share(phases.keys.clone() * phases.reduce_d.clone());
        let mut maps = Vec::new();
        let mut reduces = Vec::new();
        for (label, ns, into) in [
            (map_label, &map_ns, &mut maps),
            (reduce_label, &reduce_ns, &mut reduces),
        ] {
            for node in 0..m {
                for lane in 0..n {
                    let s = self.step(Work::Compute { direct: false }, label, ns.clone(), env)?;
                    self.steps[s].node = Expr::num(node as f64);
                    self.steps[s].width = Some(Expr::num(1.0));
                    // At most MAX_THREADS workers (checked above).
                    self.steps[s].lane = usize::try_from(lane).unwrap_or(0);
                    into.push(s);
                }
            }
        }
        let mut shuffles = Vec::new();
        match self.shuffle {
            Shuffle::Model => {
                shuffles.push(self.step(Work::Delay, shuffle_label, phases.shuffle.clone(), env)?)
            }
            Shuffle::BytesPerKey(bytes) => {
                // Node `to` reduces about k/m keys, each with 1/m of its
                // values on every node: k·bytes/m² from each other node.
                let pair = phases.keys.clone() * Expr::num(bytes) / Expr::num((m * m) as f64);
                for from in 0..m {
                    for to in (0..m).filter(|&to| to != from) {
                        let work = Work::Transfer {
                            from: Expr::num(from as f64),
                            to: Expr::num(to as f64),
                        };
                        shuffles.push(self.step(work, shuffle_label, pair.clone(), env)?);
                    }
                }
            }
        }
        let (entry, after_map, after_shuffle, exit) = (
            self.noop(env)?,
            self.noop(env)?,
            self.noop(env)?,
            self.noop(env)?,
        );
        for &s in &maps {
            self.edges.push((entry, s));
            self.edges.push((s, after_map));
        }
        for &s in &shuffles {
            self.edges.push((after_map, s));
            self.edges.push((s, after_shuffle));
        }
        if shuffles.is_empty() {
            self.edges.push((after_map, after_shuffle));
        }
        for &s in &reduces {
            self.edges.push((after_shuffle, s));
            self.edges.push((s, exit));
        }
        Ok(Plan::Stage(self.frag(lo, entry, exit, env)))
    }

    fn on(&mut self, p: &Count, body: Plan, _: &Scope) -> Result<Plan, SimError> {
        let f = Self::stage(body, "on[p] of a pipe or task pool")?;
        Ok(Plan::Stage(self.place(f, &p.to_expr(), &Expr::num(0.0))))
    }

    fn par(&mut self, sizes: &[Count], parts: Vec<Plan>, _: &Scope) -> Result<Plan, SimError> {
        let mut frags = Vec::with_capacity(parts.len());
        let mut offset = Expr::num(0.0);
        for (size, part) in sizes.iter().zip(parts) {
            let f = Self::stage(part, "par of a pipe or task pool")?;
            frags.push(self.place(f, &size.to_expr(), &offset));
            offset = offset + size.to_expr();
        }
        Ok(Plan::Stage(self.all(&frags)?))
    }

    fn groups(&mut self, s: &Count, body: Plan, _: &Scope) -> Result<Plan, SimError> {
        let f = Self::stage(body, "groups of a pipe or task pool")?;
        let copies = self.count(s)?;
        let size = crate::semantics::group_size(s);
        let mut frags = vec![f];
        for _ in 1..copies {
            frags.push(self.copy(f)?);
        }
        for (i, f) in frags.iter_mut().enumerate() {
            *f = self.place(*f, &size, &(size.clone() * Expr::num(i as f64)));
        }
        Ok(Plan::Stage(self.all(&frags)?))
    }

    fn redist(&mut self, cost: &Expr, a: Plan, b: Plan, _: &Scope) -> Result<Plan, SimError> {
        let a = Self::stage(a, "seq[redist] of a pipe or task pool")?;
        let b = Self::stage(b, "seq[redist] of a pipe or task pool")?;
        let label = self.label("redistribution".into());
        let env = self.join(&[a.env, b.env], None);
        let d = self.step(Work::Delay, label, cost.clone(), env)?;
        self.edges.push((a.exit, d));
        self.edges.push((d, b.entry));
        Ok(Plan::Stage(self.frag(
            (a.lo, a.envs.0, a.edges.0),
            a.entry,
            b.exit,
            env,
        )))
    }
}
