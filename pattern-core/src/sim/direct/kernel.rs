//! Direct execution of the executor's element kernels (feature `exec`):
//! each step's duration is its kernel's time on the element.

use super::StepTimer;
use crate::exec::{Cores, ElementKernel, Kernels};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

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
