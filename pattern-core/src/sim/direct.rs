//! Direct execution (seed 003 §4): an atom's step takes as long as its
//! kernel takes on the element, measured while the simulator runs it. The
//! simulator runs one kernel at a time, so the measured durations are free
//! of contention; the simulated machine then shares its cores among them.
//! In the seed's mixed mode, only the first `k` calls of each atom run and
//! the later ones reuse their mean. On this computer's cores, each kernel
//! runs on the core where the executor pins the step's thread, so that its
//! duration carries that core's speed and the element's place in the
//! caches (an element handed from a stage on one core to a stage on the
//! other is read from the other core's cache, as in the run).

use crate::exec::{Cores, ElementKernel, Kernels};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// How direct execution runs the kernels ([`Simulation::direct`]): by
/// default every call runs, one at a time, on the simulator's own thread.
///
/// ```
/// use pattern_core::sim::Direct;
///
/// // The seed's mixed mode, each kernel on the core of its step's thread.
/// let how = Direct::new().measure_first(5).on_cores(true);
/// assert_eq!(how, Direct::default().on_cores(true).measure_first(5));
/// ```
///
/// [`Simulation::direct`]: super::Simulation::direct
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Direct {
    pub(crate) measure_first: Option<usize>,
    pub(crate) on_cores: bool,
    pub(crate) together: bool,
}

impl Direct {
    /// Every call measured, one at a time, on the simulator's thread.
    pub const fn new() -> Direct {
        Direct {
            measure_first: None,
            on_cores: false,
            together: false,
        }
    }

    /// The seed's mixed mode: each atom's kernel runs on its first `calls`
    /// elements only (at least 1), and its later steps take the mean of
    /// those.
    pub fn measure_first(mut self, calls: usize) -> Direct {
        self.measure_first = Some(calls);
        self
    }

    /// Each kernel runs on this computer's core where the executor,
    /// pinning its threads ([`Executor::pin_threads`]), runs the step's
    /// thread (thread `i` in the order of the design's text on core
    /// `i mod cores`), still one kernel at a time. Its duration then
    /// carries that core's speed and the element's place in the caches: an
    /// element handed from a stage on one core to a stage on another is
    /// read from the other core's cache, as in the run. Meant with a
    /// machine of this computer's cores whose threads are pinned
    /// ([`Waiting::pinned`]).
    ///
    /// [`Waiting::pinned`]: crate::machine::Waiting::pinned
    /// [`Executor::pin_threads`]: crate::exec::Executor::pin_threads
    pub fn on_cores(mut self, on: bool) -> Direct {
        self.on_cores = on;
        self
    }

    /// The kernels of steps that start at the same simulated time run at
    /// the same time, each on this computer's core of its thread (as
    /// [`Direct::on_cores`]), so that each measured duration carries what
    /// the others do to it: a stage reading its element from the cache of
    /// a core that is writing the next one, memory shared by both. Steps
    /// that start at other times still run one at a time.
    pub fn together(mut self, on: bool) -> Direct {
        self.together = on;
        self
    }
}

/// Where the durations of the atoms' steps can come from while a stream
/// runs: elements enter and leave, kernels run on them.
pub(crate) trait StepTimer {
    /// Element number `element` enters: where its value is kept.
    fn enter(&mut self, element: usize) -> usize;
    /// The duration of atom `atom` on the element in `slot`, in ns, or
    /// `None` for an atom with no kernel (its model is used).
    /// `first`: measure only the first calls of each atom, then reuse
    /// their mean (the seed's mixed mode). `core`: run the kernel on this
    /// computer's core of that number (modulo the cores), else on the
    /// simulator's own thread.
    fn run(
        &mut self,
        atom: &str,
        slot: usize,
        core: Option<usize>,
        first: Option<usize>,
    ) -> Option<f64>;
    /// The durations of several atoms' steps that start together, each
    /// `(atom, slot, core)`: their kernels run at the same time, each on
    /// this computer's core of that number (modulo the cores), so that each
    /// duration carries what the others do to it.
    fn run_together(
        &mut self,
        calls: &[(&str, usize, usize)],
        first: Option<usize>,
    ) -> Vec<Option<f64>>;
    /// The element in `slot` left the design.
    fn leave(&mut self, slot: usize);
}

/// An atom's kernel and what its calls measured.
struct Measured<E> {
    kernel: Option<ElementKernel<E>>,
    calls: usize,
    total: f64,
}

/// Direct execution of a registry's element kernels on elements made by
/// `input`.
pub(crate) struct Kernel<'a, E> {
    kernels: &'a Kernels<E>,
    input: Box<dyn FnMut(usize) -> E + 'a>,
    slots: Vec<Option<E>>,
    free: Vec<usize>,
    atoms: HashMap<String, Measured<E>>,
    cores: Option<Cores>,
}

impl<'a, E> Kernel<'a, E> {
    pub(crate) fn new(
        kernels: &'a Kernels<E>,
        input: impl FnMut(usize) -> E + 'a,
    ) -> Kernel<'a, E> {
        Kernel {
            kernels,
            input: Box::new(input),
            slots: Vec::new(),
            free: Vec::new(),
            atoms: HashMap::new(),
            cores: None,
        }
    }
}

impl<E> Measured<E> {
    /// In the mixed mode (`first` = k), once the first k calls ran: their
    /// mean, for this call.
    fn reused(&self, first: Option<usize>) -> Option<f64> {
        match first {
            Some(k) if self.calls >= k && self.calls > 0 => Some(self.total / self.calls as f64),
            _ => None,
        }
    }
}

impl<E> Kernel<'_, E> {
    /// What atom `atom`'s calls measured so far (its kernel looked up at
    /// its first call).
    fn measured(&mut self, atom: &str) -> &mut Measured<E> {
        let kernels = self.kernels;
        self.atoms
            .entry(atom.to_string())
            .or_insert_with(|| Measured {
                kernel: kernels.element(atom),
                calls: 0,
                total: 0.0,
            })
    }
}

/// The ns `kernel` takes on `element`.
fn timed<E>(kernel: &ElementKernel<E>, element: &mut E) -> f64 {
    let start = Instant::now();
    kernel(element);
    start.elapsed().as_nanos() as f64
}

impl<E: Send> StepTimer for Kernel<'_, E> {
    fn enter(&mut self, element: usize) -> usize {
        let value = (self.input)(element);
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot] = Some(value);
                slot
            }
            None => {
                self.slots.push(Some(value));
                self.slots.len() - 1
            }
        }
    }

    fn run(
        &mut self,
        atom: &str,
        slot: usize,
        core: Option<usize>,
        first: Option<usize>,
    ) -> Option<f64> {
        let m = self.measured(atom);
        let kernel = m.kernel.clone()?;
        if let Some(mean) = m.reused(first) {
            return Some(mean);
        }
        let element = self.slots.get_mut(slot)?.as_mut()?;
        let ns = match core {
            Some(core) => {
                let cores = self.cores.get_or_insert_with(Cores::of_current_thread);
                cores.run_on(core, || timed(&kernel, element))
            }
            None => timed(&kernel, element),
        };
        let m = self.measured(atom);
        m.calls += 1;
        m.total += ns;
        Some(ns)
    }

    fn run_together(
        &mut self,
        calls: &[(&str, usize, usize)],
        first: Option<usize>,
    ) -> Vec<Option<f64>> {
        let mut out = vec![None; calls.len()];
        // The calls that run (the others reuse their atom's mean).
        let mut runs = Vec::new();
        for (i, &(atom, slot, core)) in calls.iter().enumerate() {
            let m = self.measured(atom);
            let Some(kernel) = m.kernel.clone() else {
                continue;
            };
            match m.reused(first) {
                Some(mean) => out[i] = Some(mean),
                None => runs.push((i, kernel, slot, core)),
            }
        }
        let cores = self
            .cores
            .get_or_insert_with(Cores::of_current_thread)
            .clone();
        let wanted: HashSet<usize> = runs.iter().map(|r| r.2).collect();
        let mut elements: HashMap<usize, &mut E> = (self.slots.iter_mut().enumerate())
            .filter(|(s, _)| wanted.contains(s))
            .filter_map(|(s, e)| e.as_mut().map(|e| (s, e)))
            .collect();
        let mut on_core: Vec<Vec<_>> = (0..cores.len()).map(|_| Vec::new()).collect();
        for (i, kernel, slot, core) in runs {
            if let Some(e) = elements.remove(&slot) {
                on_core[core % cores.len()].push((i, kernel, e));
            }
        }
        let measured: Vec<(usize, f64)> = std::thread::scope(|s| {
            let handles: Vec<_> = (on_core.into_iter().enumerate())
                .filter(|(_, calls)| !calls.is_empty())
                .map(|(core, calls)| {
                    let cores = &cores;
                    s.spawn(move || {
                        cores.pin_current(core);
                        (calls.into_iter())
                            .map(|(i, kernel, e)| (i, timed(&kernel, e)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            (handles.into_iter())
                .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        for (i, ns) in measured {
            if let Some(m) = self.atoms.get_mut(calls[i].0) {
                m.calls += 1;
                m.total += ns;
            }
            out[i] = Some(ns);
        }
        out
    }

    fn leave(&mut self, slot: usize) {
        if let Some(s) = self.slots.get_mut(slot) {
            *s = None;
            self.free.push(slot);
        }
    }
}
