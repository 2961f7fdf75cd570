//! Reproducers in the exec area.

child_test!(exec_child_process_runs_on_a_small_stack, || {
    // A recursion that needs more than the 2 MiB stack would abort here.
    let depth = std::hint::black_box(1000u64);
    assert_eq!((0..depth).sum::<u64>(), 499_500);
});

use pattern_core::Design;
use pattern_core::exec::{ExecError, Executor, Job, Kernels, MAX_BUFFER, MAX_SPIN};
use std::time::Duration;

/// A job whose map emits one chosen key per input.
#[derive(Debug)]
struct Keys {
    inputs: Vec<usize>,
    output: Vec<(usize, usize)>,
}

impl Job for Keys {
    type Input = usize;
    type Value = usize;
    type Output = usize;
    fn inputs(&self) -> &[usize] {
        &self.inputs
    }
    fn set_output(&mut self, output: Vec<(usize, usize)>) {
        self.output = output;
    }
}

fn keys_kernels() -> Kernels<Keys> {
    Kernels::new()
        .add_map("emit", |key: &usize| vec![(*key, 1)])
        .add_reduce("count", |_, ones: &[usize]| ones.len())
}

/// A mapReduce declaring `k` keys, over a job whose map emits `keys`.
fn run_keys(k: &str, keys: Vec<usize>) -> Result<Vec<(usize, usize)>, ExecError> {
    let kernels = keys_kernels();
    let design = Design::parse(&format!(
        "emit = 1; s = 1; count = 1; mapreduce[n = 2, d = 1, k = {k}](emit, s, count)"
    ))
    .unwrap();
    let job = Keys {
        inputs: keys,
        output: Vec::new(),
    };
    let run = Executor::new(&kernels).run(design.term(), vec![job])?;
    Ok(run.into_input_order().remove(0).output)
}

#[test]
fn keys_within_the_declared_range_are_counted() {
    assert_eq!(run_keys("4", vec![3, 0, 3]), Ok(vec![(0, 1), (3, 2)]));
    // k is a function of x, the job's inputs: here 2·x = 6 keys.
    assert_eq!(run_keys("2 * x", vec![5, 5, 5]), Ok(vec![(5, 3)]));
    assert!(matches!(
        run_keys("2 * x", vec![5, 5]),
        Err(ExecError::KeyOutOfRange {
            key: 5,
            keys: 4,
            ..
        })
    ));
}

// A key of usize::MAX overflowed `key + 1`; one of 2^40 asked for an 8.8 TB
// allocation and aborted the process.
child_test!(keys_outside_the_declared_range_are_an_error, || {
    for key in [4, 1 << 40, usize::MAX] {
        let err = run_keys("4", vec![0, key]).unwrap_err();
        assert_eq!(
            err,
            ExecError::KeyOutOfRange {
                atom: "emit".into(),
                key,
                keys: 4
            }
        );
        assert_eq!(
            err.to_string(),
            format!(
                "the map kernel of `emit` emitted the key {key}, outside the 4 keys the design declares (0..4)"
            )
        );
    }
});

/// An executor of one element kernel over `pipe(a, b)`.
fn pipe_run(options: impl Fn(Executor<'_, u64>) -> Executor<'_, u64>) -> Result<(), ExecError> {
    let kernels = Kernels::<u64>::new()
        .add("a", |v| *v += 1)
        .add("b", |v| *v *= 2);
    let design = Design::parse("a = 1; b = 1; seq(pipe(a, b), tpool[2](a))").unwrap();
    options(Executor::new(&kernels))
        .run(design.term(), vec![1; 100])
        .map(|_| ())
}

// capacity(2^40) aborted on its allocation, capacity(usize::MAX) panicked,
// spin(Duration::MAX) and window(usize::MAX) killed a stage thread.
child_test!(options_out_of_range_are_invalid_options, || {
    let invalid =
        |options: &dyn Fn(Executor<'_, u64>) -> Executor<'_, u64>, want: &str| match pipe_run(
            options,
        ) {
            Err(ExecError::InvalidOption(message)) => assert_eq!(message, want),
            other => panic!("{want}: {other:?}"),
        };
    invalid(
        &|e| e.capacity(1 << 40),
        &format!(
            "capacity(1099511627776): the channel capacity runs from 1 to {MAX_BUFFER} elements"
        ),
    );
    invalid(
        &|e| e.capacity(usize::MAX),
        &format!(
            "capacity({}): the channel capacity runs from 1 to {MAX_BUFFER} elements",
            usize::MAX
        ),
    );
    invalid(
        &|e| e.capacity(0),
        &format!("capacity(0): the channel capacity runs from 1 to {MAX_BUFFER} elements"),
    );
    invalid(
        &|e| e.window(usize::MAX),
        &format!(
            "window({}): a window runs from 1 to {MAX_BUFFER} elements",
            usize::MAX
        ),
    );
    invalid(
        &|e| e.spin(Duration::MAX),
        &format!(
            "spin({:?}): a stage spins at most {MAX_SPIN:?} before it blocks",
            Duration::MAX
        ),
    );
    invalid(
        &|e| e.steady_state_trim(f64::NAN),
        "steady_state_trim(NaN): the trimmed fraction runs from 0 to 0.5",
    );
    invalid(
        &|e| e.deadline(Duration::ZERO),
        "deadline(0s): a deadline is longer than zero",
    );
    // At the limits, the run goes through.
    assert_eq!(
        pipe_run(|e| e.capacity(MAX_BUFFER).window(MAX_BUFFER).spin(MAX_SPIN)),
        Ok(())
    );
});

// A kernel that never returned hung run().
child_test!(a_deadline_names_the_stage_still_running, || {
    let kernels = Kernels::<u64>::new()
        .add("quick", |v| *v += 1)
        .add("stuck", |v| {
            if *v == 3 {
                std::thread::sleep(Duration::from_secs(3600));
            }
        });
    let design = Design::parse("quick = 1; stuck = 1; pipe(quick, tpool[2](stuck))").unwrap();
    let err = Executor::new(&kernels)
        .deadline(Duration::from_millis(200))
        .run(design.term(), (0..10).collect())
        .unwrap_err();
    assert_eq!(
        err,
        ExecError::DeadlineExceeded {
            after: Duration::from_millis(200),
            running: vec!["stuck".into()]
        }
    );
    assert_eq!(
        err.to_string(),
        "the run passed its deadline of 200ms; still running: stuck"
    );
    // Within its deadline, a run is the same run.
    let fine = Executor::new(&kernels)
        .deadline(Duration::from_secs(60))
        .run(design.term(), (4..10).collect())
        .unwrap();
    assert_eq!(fine.into_input_order(), vec![5, 6, 7, 8, 9, 10]);
});
