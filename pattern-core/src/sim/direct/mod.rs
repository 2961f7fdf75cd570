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

#[cfg(feature = "exec")]
mod kernel;

#[cfg(feature = "exec")]
pub(crate) use kernel::Kernel;

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
