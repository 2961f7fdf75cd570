//! The kernel registry: what each atom of a design runs.
//!
//! A design's atoms are names with cost models; to run the design, each name
//! needs code. [`Kernels`] maps names to Rust closures over the element type
//! `E` of the stream: an *element kernel* `Fn(&mut E)` for atoms that stand
//! as stages, tasks or parts of a sequence; a *map kernel* and a *reduce
//! kernel* for the phases of a mapReduce, whose elements are [`Job`]s.

use super::grouping::{KeyValues, WorkerGroups, block_len, merge_groups};
use super::phase::Workers;
use std::any::Any;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// An element kernel: transforms one element in place.
pub type ElementKernel<E> = Arc<dyn Fn(&mut E) + Send + Sync>;

/// The map phase of a job, each worker grouping its pairs by key as it
/// maps: `None` if a kernel failed (the failure is recorded).
pub(crate) type MapPhase<E> = Arc<dyn Fn(&E, &Workers<'_>) -> Option<Grouped> + Send + Sync>;

/// The reduce phase of a job: reduces every key's values and hands the
/// results to the job. `false` if a kernel failed.
pub(crate) type ReducePhase<E> = Arc<dyn Fn(&mut E, Grouped, &Workers<'_>) -> bool + Send + Sync>;

/// The values of a job grouped by key (`Vec<KeyValues<Job::Value>>`, the
/// keys with values in increasing order), passed from the map phase to the
/// reduce phase.
pub(crate) struct Grouped(pub(crate) Box<dyn Any + Send>);

/// An element a mapReduce can process: a list of inputs in, one result per
/// key out (seed 001 §3.1.3).
///
/// Keys are dense indices `0..k`, as in the paper's histogram ("we assumed
/// the keys to be continuous in the integers, which allows the results to be
/// stored in a vector", §4.1.2).
///
/// ```
/// use pattern_core::exec::Job;
///
/// /// Count the words of each length in a list of texts.
/// struct WordLengths {
///     texts: Vec<String>,
///     counts: Vec<(usize, u64)>,
/// }
///
/// impl Job for WordLengths {
///     type Input = String;
///     type Value = u64;
///     type Output = u64;
///     fn inputs(&self) -> &[String] {
///         &self.texts
///     }
///     fn set_output(&mut self, output: Vec<(usize, u64)>) {
///         self.counts = output;
///     }
/// }
/// ```
pub trait Job: Send + 'static {
    /// One input of the list (an image of the histogram job).
    type Input: Sync;
    /// What the map emits per key.
    type Value: Send + Sync + 'static;
    /// What the reduce makes of a key's values.
    type Output: Send;
    /// The inputs the map phase runs over; their number is the job's `x`.
    fn inputs(&self) -> &[Self::Input];
    /// Receives the result: `(key, reduced value)` for every key that has
    /// values, in increasing key order.
    fn set_output(&mut self, output: Vec<(usize, Self::Output)>);
}

/// One registered kernel.
pub(crate) enum Kernel<E> {
    Element(ElementKernel<E>),
    Map(MapPhase<E>),
    Reduce(ReducePhase<E>),
}

impl<E> Kernel<E> {
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Kernel::Element(_) => "an element kernel",
            Kernel::Map(_) => "a map kernel",
            Kernel::Reduce(_) => "a reduce kernel",
        }
    }
}

impl<E> Clone for Kernel<E> {
    fn clone(&self) -> Self {
        match self {
            Kernel::Element(f) => Kernel::Element(f.clone()),
            Kernel::Map(f) => Kernel::Map(f.clone()),
            Kernel::Reduce(f) => Kernel::Reduce(f.clone()),
        }
    }
}

/// A registry of kernels by atom name, for elements of type `E`.
///
/// ```
/// use pattern_core::exec::Kernels;
///
/// let kernels = Kernels::<Vec<i32>>::new()
///     .add("qsort", |v| v.sort_unstable())
///     .add("inc", |v| v.iter_mut().for_each(|e| *e += 1))
///     .add("nop", |_| {});
/// assert_eq!(kernels.names(), ["inc", "nop", "qsort"]);
/// ```
pub struct Kernels<E> {
    kernels: BTreeMap<String, Kernel<E>>,
}

impl<E> Default for Kernels<E> {
    fn default() -> Self {
        Kernels {
            kernels: BTreeMap::new(),
        }
    }
}

impl<E> Clone for Kernels<E> {
    fn clone(&self) -> Self {
        Kernels {
            kernels: self.kernels.clone(),
        }
    }
}

impl<E> fmt::Debug for Kernels<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.kernels.iter().map(|(k, v)| (k, v.kind())))
            .finish()
    }
}

impl<E> Kernels<E> {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `f` as the kernel of the atom `name` (replacing an earlier
    /// one of that name). The design's `seq`, `pipe` and `tpool` call it on
    /// each element.
    pub fn add(mut self, name: &str, f: impl Fn(&mut E) + Send + Sync + 'static) -> Self {
        self.kernels
            .insert(name.to_string(), Kernel::Element(Arc::new(f)));
        self
    }

    /// The registered names, in order.
    pub fn names(&self) -> Vec<&str> {
        self.kernels.keys().map(String::as_str).collect()
    }

    /// Whether `name` has a kernel.
    pub fn contains(&self, name: &str) -> bool {
        self.kernels.contains_key(name)
    }

    /// The element kernel of `name`, to call it outside a design (to
    /// measure it, for instance).
    pub fn element(&self, name: &str) -> Option<ElementKernel<E>> {
        match self.kernels.get(name)? {
            Kernel::Element(f) => Some(f.clone()),
            _ => None,
        }
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Kernel<E>> {
        self.kernels.get(name)
    }
}

impl<E: Job> Kernels<E> {
    /// Registers the map kernel `name` of a mapReduce: it turns one input of
    /// a job into `(key, value)` pairs. The executor applies it to every
    /// input of the job on the mapReduce's `n` threads, each taking
    /// contiguous blocks of inputs ([`block_len`]) and grouping its pairs by
    /// key right after each call ([`WorkerGroups`]): the shuffle runs on
    /// the map's workers, with no phase on one thread. Keys run from 0 to
    /// `k(x) - 1`, the keys the design declares for the job's `x` inputs: a
    /// key outside is
    /// [`ExecError::KeyOutOfRange`](crate::exec::ExecError::KeyOutOfRange).
    pub fn add_map(
        mut self,
        name: &str,
        map: impl Fn(&E::Input) -> Vec<(usize, E::Value)> + Send + Sync + 'static,
    ) -> Self {
        let atom = name.to_string();
        let phase: MapPhase<E> = Arc::new(move |job: &E, workers: &Workers<'_>| {
            let inputs = job.inputs();
            let keys = workers.keys(inputs.len())?;
            let block = block_len(inputs.len(), workers.threads());
            let blocks = inputs.len().div_ceil(block);
            let next = AtomicUsize::new(0);
            let groups = workers.on_workers(&atom, blocks, || {
                let mut groups = WorkerGroups::with_buffers(keys, &mut || workers.buffer());
                while !workers.stopped() {
                    let b = next.fetch_add(1, Ordering::Relaxed);
                    if b >= blocks {
                        break;
                    }
                    let end = inputs.len().min((b + 1) * block);
                    for input in &inputs[b * block..end] {
                        let Some(pairs) = workers.call(&atom, || map(input)) else {
                            return groups;
                        };
                        if let Err(out) = groups.add(b, pairs) {
                            workers.fail(crate::exec::ExecError::KeyOutOfRange {
                                atom: atom.clone(),
                                key: out.key,
                                keys: out.keys,
                            });
                            return groups;
                        }
                    }
                }
                groups
            })?;
            Some(Grouped(Box::new(merge_groups(groups))))
        });
        self.kernels.insert(name.to_string(), Kernel::Map(phase));
        self
    }

    /// Registers the reduce kernel `name` of a mapReduce: it combines the
    /// values of one key, in input order. The executor applies it to every
    /// key on the mapReduce's `n` threads, each first gathering the key's
    /// values from the map workers that hold some
    /// ([`KeyValues::into_values`]: none to copy when one worker holds
    /// them all, as with `n = 1`), and hands the results to the job
    /// ([`Job::set_output`]).
    pub fn add_reduce(
        mut self,
        name: &str,
        reduce: impl Fn(usize, &[E::Value]) -> E::Output + Send + Sync + 'static,
    ) -> Self {
        let atom = name.to_string();
        let phase: ReducePhase<E> = Arc::new(
            move |job: &mut E, grouped: Grouped, workers: &Workers<'_>| {
                let Ok(keyed) = grouped.0.downcast::<Vec<KeyValues<E::Value>>>() else {
                    // Unreachable: map and reduce kernels of one registry
                    // share `E::Value`.
                    return false;
                };
                let keys: Vec<usize> = keyed.iter().map(KeyValues::key).collect();
                // Each key's values move to the worker that reduces it.
                let slots: Vec<Mutex<Option<KeyValues<E::Value>>>> =
                    keyed.into_iter().map(|k| Mutex::new(Some(k))).collect();
                let Some(results) = workers.for_each_index(&atom, slots.len(), |i| {
                    let taken = slots[i]
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .take();
                    let values = taken
                        .map(|k| {
                            k.into_values_recycling(&mut || workers.buffer(), &mut |b| {
                                workers.spend(b)
                            })
                        })
                        .unwrap_or_default();
                    let out = reduce(keys[i], &values);
                    workers.spend(values);
                    out
                }) else {
                    return false;
                };
                job.set_output(keys.into_iter().zip(results).collect());
                true
            },
        );
        self.kernels.insert(name.to_string(), Kernel::Reduce(phase));
        self
    }
}
