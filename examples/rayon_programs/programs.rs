//! The programs as a user writes them: rayon pools over a `Vec` of arrays
//! and pipelines of std threads joined by bounded crossbeam channels. No
//! code of this project runs inside the timed part: the programs only
//! record when each element finished.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::hint::black_box;
use std::thread;
use std::time::Instant;

/// A kernel of the sort suite, applied to one array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kernel {
    Qsort,
    Inc,
    Nop,
}

impl Kernel {
    /// The atom's name in a design.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Qsort => "qsort",
            Kernel::Inc => "inc",
            Kernel::Nop => "nop",
        }
    }

    /// The bytes a call on `x` integers moves to and from memory: qsort
    /// and inc read the array and write it back (4 bytes each way per
    /// integer; qsort's later passes run in the caches), nop touches none.
    pub fn bytes(self, x: usize) -> usize {
        match self {
            Kernel::Qsort | Kernel::Inc => 8 * x,
            Kernel::Nop => 0,
        }
    }

    /// Runs the kernel on `array`.
    pub fn apply(self, array: &mut [i32]) {
        match self {
            Kernel::Qsort => array.sort_unstable(),
            Kernel::Inc => array.iter_mut().for_each(|v| *v = v.wrapping_add(1)),
            Kernel::Nop => {
                black_box(array);
            }
        }
    }
}

/// One of the programs: a rayon pool of `n` threads running one kernel on
/// every array, or a pipeline with one std thread per stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Program {
    Pool(usize, Kernel),
    Pipe(Vec<Kernel>),
}

impl Program {
    /// Every program of the suite: the pools of 1, 2, 4, 8 threads on
    /// qsort and inc, then the five pipelines.
    pub fn all() -> Vec<Program> {
        use Kernel::*;
        let mut all = Vec::new();
        for kernel in [Qsort, Inc] {
            for n in [1, 2, 4, 8] {
                all.push(Program::Pool(n, kernel));
            }
        }
        for stages in [
            vec![Qsort, Inc],
            vec![Inc, Inc],
            vec![Inc, Inc, Inc],
            vec![Inc, Inc, Inc, Inc],
            vec![Qsort, Inc, Nop],
        ] {
            all.push(Program::Pipe(stages));
        }
        all
    }

    /// The program by its [`name`](Program::name).
    pub fn named(name: &str) -> Option<Program> {
        Program::all().into_iter().find(|p| p.name() == name)
    }

    /// The design it implements, as `tpool[4](qsort)` or `pipe(qsort, inc)`.
    pub fn name(&self) -> String {
        match self {
            Program::Pool(n, kernel) => format!("tpool[{n}]({})", kernel.name()),
            Program::Pipe(stages) => {
                let names: Vec<&str> = stages.iter().map(|k| k.name()).collect();
                format!("pipe({})", names.join(", "))
            }
        }
    }

    /// The threads it runs the kernels on.
    pub fn threads(&self) -> usize {
        match self {
            Program::Pool(n, _) => *n,
            Program::Pipe(stages) => stages.len(),
        }
    }

    /// The distinct kernels it uses, in order.
    pub fn kernels(&self) -> Vec<Kernel> {
        let mut kernels = match self {
            Program::Pool(_, kernel) => vec![*kernel],
            Program::Pipe(stages) => stages.clone(),
        };
        kernels.sort();
        kernels.dedup();
        kernels
    }

    /// Runs the program on `arrays` and returns when each element left it,
    /// in the order they left.
    pub fn run(&self, arrays: Vec<Vec<i32>>) -> Vec<Instant> {
        match self {
            Program::Pool(n, kernel) => run_pool(*n, *kernel, arrays),
            Program::Pipe(stages) => run_pipe(stages, arrays),
        }
    }
}

/// `count` arrays of `x` random integers, each allocated on its own and
/// filled from `seed` onwards.
pub fn arrays(x: usize, count: usize, seed: u64) -> Vec<Vec<i32>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| (0..x).map(|_| rng.random::<i32>()).collect())
        .collect()
}

/// `tpool[n](kernel)`: a rayon pool of `n` threads, each array's finish
/// stored beside it.
fn run_pool(n: usize, kernel: Kernel, mut arrays: Vec<Vec<i32>>) -> Vec<Instant> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a rayon pool");
    let start = Instant::now();
    let mut done = vec![start; arrays.len()];
    pool.install(|| {
        arrays
            .par_iter_mut()
            .zip(done.par_iter_mut())
            .for_each(|(array, done)| {
                kernel.apply(array);
                *done = Instant::now();
            })
    });
    black_box(&arrays);
    done.sort();
    done
}

/// `pipe(stages...)`: one std thread per stage, joined by
/// `crossbeam_channel::bounded(4)`; the first stage reads the arrays, the
/// last records when each array left it.
fn run_pipe(stages: &[Kernel], arrays: Vec<Vec<i32>>) -> Vec<Instant> {
    let count = arrays.len();
    let (mut senders, mut receivers) = (Vec::new(), Vec::new());
    for _ in 1..stages.len() {
        let (tx, rx) = crossbeam_channel::bounded::<Vec<i32>>(4);
        senders.push(tx);
        receivers.push(rx);
    }
    let mut senders = senders.into_iter();
    let mut receivers = receivers.into_iter();
    let (first, rest) = stages.split_first().expect("a stage");
    let (last, middle) = rest.split_last().expect("two stages");
    let mut handles = Vec::new();
    let (kernel, output) = (*first, senders.next().expect("a channel"));
    handles.push(thread::spawn(move || {
        for mut array in arrays {
            kernel.apply(&mut array);
            output.send(array).expect("the next stage");
        }
    }));
    for &kernel in middle {
        let input = receivers.next().expect("a channel");
        let output = senders.next().expect("a channel");
        handles.push(thread::spawn(move || {
            for mut array in input {
                kernel.apply(&mut array);
                output.send(array).expect("the next stage");
            }
        }));
    }
    let (kernel, input) = (*last, receivers.next().expect("a channel"));
    let sink = thread::spawn(move || {
        let mut done = Vec::with_capacity(count);
        for mut array in input {
            kernel.apply(&mut array);
            done.push(Instant::now());
            drop(array);
        }
        done
    });
    for handle in handles {
        handle.join().expect("a stage");
    }
    sink.join().expect("the last stage")
}

/// The mean time of one call of `kernel` on `calls` fresh arrays of `x`
/// integers, in ns, on this thread: the arrays are made first, then the
/// calls timed one after the other (each array as cold as in a run), after
/// one untimed call that brings the code in.
pub fn time_kernel(kernel: Kernel, x: usize, calls: usize, seed: u64) -> f64 {
    kernel.apply(&mut arrays(x, 1, !seed)[0]);
    let mut stream = arrays(x, calls.max(1), seed);
    let start = Instant::now();
    for array in &mut stream {
        kernel.apply(array);
    }
    let took = start.elapsed();
    black_box(&stream);
    took.as_secs_f64() * 1e9 / stream.len() as f64
}
