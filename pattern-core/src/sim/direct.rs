//! Direct execution (seed 003 §4): an atom's step takes as long as its
//! kernel takes on the element, measured while the simulator runs it. The
//! simulator runs one kernel at a time, so the measured durations are free
//! of contention; the simulated machine then shares its cores among them.
//! In the seed's mixed mode, only the first `k` calls of each atom run and
//! the later ones reuse their mean.

use crate::exec::{ElementKernel, Kernels};
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
    /// their mean (the seed's mixed mode).
    fn run(&mut self, atom: &str, slot: usize, first: Option<usize>) -> Option<f64>;
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
        }
    }
}

impl<E> Direct for Kernel<'_, E> {
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

    fn run(&mut self, atom: &str, slot: usize, first: Option<usize>) -> Option<f64> {
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
        let start = Instant::now();
        kernel(element);
        let ns = start.elapsed().as_nanos() as f64;
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
