//! Flow graphs: compute steps on nodes and transfers between them, with
//! their dependencies.

/// A task of a [`TaskGraph`], as [`TaskGraph::compute`] and
/// [`TaskGraph::transfer`] return it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId(pub(crate) usize);

impl TaskId {
    /// The task's index in its graph (the order it was added in).
    pub fn index(self) -> usize {
        self.0
    }
}

/// What a task does.
#[derive(Clone, Debug, PartialEq)]
pub enum Work {
    /// `duration` ns of one core's work on `node`.
    Compute {
        /// The node it runs on.
        node: usize,
        /// Its duration alone on a core, in ns.
        duration: f64,
    },
    /// `bytes` from node `from` to node `to`.
    Transfer {
        /// The sending node.
        from: usize,
        /// The receiving node.
        to: usize,
        /// The bytes moved.
        bytes: f64,
    },
}

/// A task: its work and the tasks that must end before it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// What it does.
    pub work: Work,
    /// The tasks it waits for.
    pub dependencies: Vec<TaskId>,
}

/// A flow graph (seed 003 §4): compute steps and transfers, each starting
/// when the tasks it depends on have ended. A task can only depend on tasks
/// added before it, so a graph has no cycle.
///
/// ```
/// use pattern_core::machine::Machine;
/// use pattern_core::sim::{Simulation, TaskGraph};
///
/// let mut g = TaskGraph::new();
/// let a = g.compute(0, 100.0, &[]);
/// let t = g.transfer(0, 1, 1000.0, &[a]);
/// let b = g.compute(1, 100.0, &[t]);
/// let p = Machine::new(2, 1).latency(50.0).bandwidth(10.0);
/// let r = Simulation::graph(&g, &p).run()?;
/// assert_eq!(r.finish(t), 100.0 + 50.0 + 1000.0 / 10.0);
/// assert_eq!(r.finish(b), 350.0);
/// # Ok::<(), pattern_core::sim::SimError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskGraph {
    pub(crate) tasks: Vec<Task>,
}

impl TaskGraph {
    /// An empty graph.
    pub fn new() -> TaskGraph {
        TaskGraph::default()
    }

    /// A compute step of `duration` ns on `node`, after `dependencies`.
    pub fn compute(&mut self, node: usize, duration: f64, dependencies: &[TaskId]) -> TaskId {
        self.add(Work::Compute { node, duration }, dependencies)
    }

    /// A transfer of `bytes` from node `from` to node `to`, after
    /// `dependencies`. Within one node (`from == to`) it takes no time.
    pub fn transfer(
        &mut self,
        from: usize,
        to: usize,
        bytes: f64,
        dependencies: &[TaskId],
    ) -> TaskId {
        self.add(Work::Transfer { from, to, bytes }, dependencies)
    }

    fn add(&mut self, work: Work, dependencies: &[TaskId]) -> TaskId {
        self.tasks.push(Task {
            work,
            dependencies: dependencies.to_vec(),
        });
        TaskId(self.tasks.len() - 1)
    }

    /// The tasks' ids, in the order they were added.
    pub fn ids(&self) -> impl Iterator<Item = TaskId> + use<> {
        (0..self.tasks.len()).map(TaskId)
    }

    /// The tasks, in the order they were added.
    pub fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    /// The number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Whether the graph has no task.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }
}
