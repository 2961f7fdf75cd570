//! Direct execution (seed 003 §4): an atom's step takes as long as its
//! kernel takes on the element, measured while the simulator runs it. The
//! simulator runs one kernel at a time, so the measured durations are free
//! of contention; the simulated machine then shares its cores among them.
//! In the seed's mixed mode, only the first `k` calls of each atom run and
//! the later ones reuse their mean. On this machine's cores, each kernel
//! runs on the core where the executor pins the step's thread, so that its
//! duration carries that core's speed and the element's place in the
//! caches (an element handed from a stage on one core to a stage on the
//! other is read from the other core's cache, as in the run).

use crate::exec::{Cores, ElementKernel, Kernels};
use std::collections::HashMap;
use std::time::Instant;

/// Where the durations of the atoms' steps can come from while a stream
/// runs: elements enter and leave, kernels run on them.
pub(crate) trait Direct {
    /// Element number `element` enters: where its value is kept.
    fn enter(&mut self, element: usize) -> usize;
    /// The duration of atom `atom` on the element in `slot`, in ns, or
    /// `None` for an atom with no kernel (its model is used).
    /// `first`: measure only the first calls of each atom, then reuse
    /// their mean (the seed's mixed mode). `core`: run the kernel on this
    /// machine's core of that number (modulo the cores), else on the
    /// simulator's own thread.
    fn run(
        &mut self,
        atom: &str,
        slot: usize,
        core: Option<usize>,
        first: Option<usize>,
    ) -> Option<f64>;
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

/// The ns `kernel` takes on `element`.
fn timed<E>(kernel: &ElementKernel<E>, element: &mut E) -> f64 {
    let start = Instant::now();
    kernel(element);
    start.elapsed().as_nanos() as f64
}

impl<E: Send> Direct for Kernel<'_, E> {
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
        if !self.atoms.contains_key(atom) {
            let measured = Measured {
                kernel: self.kernels.element(atom),
                calls: 0,
                total: 0.0,
            };
            self.atoms.insert(atom.to_string(), measured);
        }
        let m = self.atoms.get_mut(atom)?;
        let kernel = m.kernel.as_ref()?;
        if let Some(k) = first {
            if m.calls >= k && m.calls > 0 {
                return Some(m.total / m.calls as f64);
            }
        }
        let element = self.slots.get_mut(slot)?.as_mut()?;
        let ns = match core {
            Some(core) => {
                let cores = self.cores.get_or_insert_with(Cores::of_current_thread);
                cores.run_on(core, || timed(kernel, element))
            }
            None => timed(kernel, element),
        };
        m.calls += 1;
        m.total += ns;
        Some(ns)
    }

    fn leave(&mut self, slot: usize) {
        if let Some(s) = self.slots.get_mut(slot) {
            *s = None;
            self.free.push(slot);
        }
    }
}
