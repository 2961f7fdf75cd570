//! The flow-graph engine: a task starts on the [`Resources`] when the last
//! task it depends on ends; time jumps from one end to the next.

use super::SimError;
use super::change::{Change, Changes, When};
use super::graph::{TaskGraph, Work};
use super::resources::Resources;
use super::result::{SimResult, TaskRun};
use super::variation::Variation;
use crate::machine::Machine;

/// What the loop keeps of a task beside its [`TaskRun`], in 16 bytes: a
/// dependency's end touches one small record (the loop is bound by memory
/// on large graphs).
#[derive(Clone, Copy, Default)]
struct Book {
    /// The dependencies that have not ended yet.
    waiting: u32,
    /// Its dependents: `count` of them, in `inline` for at most [`INLINE`]
    /// (most tasks: no second access), else `dependents[inline[0]..][..count]`.
    count: u32,
    inline: [u32; INLINE],
}

/// Dependents kept in a task's book.
const INLINE: usize = 2;

/// The dependents of the tasks with more than [`INLINE`]: `more`, (task,
/// dependent) in the order of the dependents, moves with the inline ones
/// into one array, each task's together, and the task's book points there.
fn spill(books: &mut [Book], mut more: Vec<(u32, u32)>) -> Vec<u32> {
    if more.is_empty() {
        return Vec::new();
    }
    // Stable: each task's dependents stay in order.
    more.sort_by_key(|&(task, _)| task);
    let mut dependents = Vec::new();
    let mut i = 0;
    while i < more.len() {
        let task = more[i].0;
        let b = &mut books[task as usize];
        // At most MAX_TASKS dependencies in all (checked): it fits.
        let first = dependents.len() as u32;
        dependents.extend_from_slice(&b.inline);
        while i < more.len() && more[i].0 == task {
            dependents.push(more[i].1);
            i += 1;
        }
        b.inline[0] = first;
    }
    dependents
}

/// Asks the kernel to back `v`'s buffer with huge pages where it spans
/// them (Linux; advice it may ignore): a graph of 10^6 tasks fills 48 MB of
/// fresh memory, and its 12,000 page faults of 4 kB took a fifth of a run.
fn huge_pages<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start.saturating_add(v.capacity().saturating_mul(size_of::<T>()));
        let (first, last) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if last > first {
            // SAFETY: advice on whole pages of a buffer this thread owns
            // (allocated, not yet written); it changes no byte of it, and
            // a refusal is harmless.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Asks the processor to bring `value` into the cache, without waiting.
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and cannot fault; SSE, which it
    // needs, is part of every x86_64 processor.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// The most tasks a flow graph may have (task numbers are kept in 32 bits).
pub const MAX_TASKS: usize = (u32::MAX - 1) as usize;

pub(crate) struct Engine {
    resources: Resources,
    books: Vec<Book>,
    runs: Vec<TaskRun>,
    dependents: Vec<u32>,
    variation: Variation,
    changes: Changes,
}

impl Engine {
    /// Checks the graph against the machine and builds the dependents.
    pub(crate) fn new(
        graph: &TaskGraph,
        machine: &Machine,
        variation: Variation,
        cpu_per_byte: f64,
        changes: Changes,
    ) -> Result<Engine, SimError> {
        let n = graph.tasks.len();
        if n > MAX_TASKS {
            return Err(SimError::GraphTooLarge {
                tasks: n,
                limit: MAX_TASKS,
            });
        }
        let nodes = machine.nodes();
        let mut books: Vec<Book> = Vec::with_capacity(n);
        let mut runs: Vec<TaskRun> = Vec::with_capacity(n);
        huge_pages(&books);
        huge_pages(&runs);
        let mut more: Vec<(u32, u32)> = Vec::new();
        let mut total = 0usize;
        for (i, task) in graph.tasks.iter().enumerate() {
            let (amount, what, on) = match task.work {
                Work::Compute { node, duration } => (duration, "a duration", [node, node]),
                Work::Transfer { from, to, bytes } => (bytes, "a size in bytes", [from, to]),
            };
            if let Some(&node) = on.iter().find(|&&node| node >= nodes) {
                return Err(SimError::UnknownNode {
                    task: i,
                    node,
                    nodes,
                });
            }
            if !(amount.is_finite() && amount >= 0.0) {
                return Err(SimError::InvalidAmount {
                    task: i,
                    what,
                    value: amount,
                });
            }
            for d in &task.dependencies {
                if d.0 >= i {
                    return Err(SimError::UnknownTask {
                        task: i,
                        dependency: d.0,
                        tasks: n,
                    });
                }
                // One pass: the first dependents go inline, the others
                // into `more`, in the order of the tasks.
                let b = &mut books[d.0];
                match b.inline.get_mut(b.count as usize) {
                    Some(slot) => *slot = i as u32,
                    None => more.push((d.0 as u32, i as u32)),
                }
                b.count += 1;
            }
            total += task.dependencies.len();
            if total > MAX_TASKS {
                return Err(SimError::GraphTooLarge {
                    tasks: total,
                    limit: MAX_TASKS,
                });
            }
            // Counts are below MAX_TASKS: they fit.
            books.push(Book {
                waiting: task.dependencies.len() as u32,
                ..Book::default()
            });
            runs.push(TaskRun::of(&task.work));
        }
        changes.check_graph(nodes, n)?;
        let dependents = spill(&mut books, more);
        Ok(Engine {
            // A flow graph's tasks belong to no thread: never pinned.
            resources: Resources::new(machine, cpu_per_byte, false)?,
            books,
            runs,
            dependents,
            variation,
            changes,
        })
    }

    /// Runs every task to its end; a task left on a node whose cores were
    /// all taken away is [`SimError::Stalled`].
    pub(crate) fn run(mut self, machine: &Machine) -> Result<SimResult, SimError> {
        let n = self.books.len();
        let mut ready: Vec<usize> = (0..n).filter(|&i| self.books[i].waiting == 0).collect();
        let mut done: Vec<usize> = Vec::new();
        // Changes at a time are delays whose ids follow the tasks'.
        for (i, when) in self.changes.times() {
            let wait = (when - self.resources.now).max(0.0);
            self.resources.delay(wait, n + i, &mut done);
        }
        loop {
            // Start what is ready and end what takes no time, until neither is left.
            while !ready.is_empty() || !done.is_empty() {
                while let Some(task) = ready.pop() {
                    self.begin(task, &mut done);
                }
                self.release(&mut done, &mut ready);
            }
            let more = self.resources.advance(&mut done);
            if self.resources.overflowed {
                let left = self.runs.iter().filter(|r| r.finish.is_nan()).count();
                return Err(SimError::ClockOverflow { left });
            }
            if !more {
                break;
            }
        }
        let left = self.runs.iter().filter(|r| r.finish.is_nan()).count();
        if left > 0 {
            return Err(SimError::Stalled { left });
        }
        Ok(SimResult::new(machine, self.runs, self.resources))
    }

    /// Ends the finished tasks in `done` and moves the dependents they were
    /// the last wait of to `ready`.
    fn release(&mut self, done: &mut Vec<usize>, ready: &mut Vec<usize>) {
        let n = self.books.len();
        while let Some(task) = done.pop() {
            if task >= n {
                let change = self.changes.get(task - n);
                self.apply(change);
                continue;
            }
            self.runs[task].finish = self.resources.now;
            if !self.changes.is_empty() {
                for i in self.changes.after_task(task) {
                    let change = self.changes.get(i);
                    self.apply(change);
                }
            }
            let b = self.books[task];
            let count = b.count as usize;
            let dependents = if count <= INLINE {
                &b.inline[..count]
            } else {
                &self.dependents[b.inline[0] as usize..][..count]
            };
            for &d in dependents {
                let w = &mut self.books[d as usize].waiting;
                *w -= 1;
                if *w == 0 {
                    ready.push(d as usize);
                }
            }
        }
    }

    /// The dependents of `task`.
    fn dependents_of(&self, task: usize) -> &[u32] {
        let b = &self.books[task];
        let count = b.count as usize;
        if count <= INLINE {
            &b.inline[..count]
        } else {
            &self.dependents[b.inline[0] as usize..][..count]
        }
    }

    fn apply(&mut self, change: (When, Change)) {
        if let (_, Change::Cores { node, cores }) = change {
            self.resources.set_cores(node, cores);
        }
    }

    fn begin(&mut self, task: usize, done: &mut Vec<usize>) {
        let r = &mut self.runs[task];
        r.start = self.resources.now;
        let (node, to, amount) = (r.place(), r.to, r.amount);
        // Its dependents' books are read when it ends, and their runs when
        // they start: fetched now, they are in the cache by then.
        for &d in self.dependents_of(task) {
            prefetch(&self.books[d as usize]);
            prefetch(&self.runs[d as usize]);
        }
        if to == TaskRun::COMPUTE {
            let duration = self.variation.apply(amount);
            self.resources.compute(node, 0, duration, task);
        } else {
            self.resources
                .transfer(node, to as usize, 0, amount, task, done);
        }
    }
}
