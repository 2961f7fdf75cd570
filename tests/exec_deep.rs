//! The executor's checks and plan go through the fold: a term 100 000
//! levels deep, built from its variants in code, is checked, planned and
//! run on a 2 MiB thread (docs/reliability.md). No timing assertions.
use pattern_core::exec::{ExecError, Executor, Kernels, MAX_NESTING, MAX_THREADS};
use pattern_core::{Expr, Term};

mod common;

const DEPTH: usize = 100_000;

fn atom(name: &str) -> Term {
    Term::atom(name, Expr::var("x"))
}

fn kernels() -> Kernels<u64> {
    Kernels::<u64>::new().add("inc", |v| *v += 1)
}

/// `seq(inc, seq(inc, ..))`, nested to the right, or to the left.
fn chain(right: bool) -> Term {
    let mut t = atom("inc");
    for _ in 0..DEPTH {
        t = if right {
            Term::seq(atom("inc"), t)
        } else {
            Term::seq(t, atom("inc"))
        };
    }
    t
}

#[test]
fn a_deep_chain_is_checked_planned_and_run_on_a_small_stack() {
    for right in [true, false] {
        let (threads, outputs) = common::on_small_stack(move || {
            let t = chain(right);
            let kernels = kernels();
            let executor = Executor::new(&kernels);
            let threads = executor.threads(&t).unwrap();
            let run = executor.run(&t, vec![0, 10]).unwrap();
            (threads, run.into_input_order())
        });
        assert_eq!(threads, 1);
        let steps = DEPTH as u64 + 1;
        assert_eq!(outputs, [steps, 10 + steps]);
    }
}

#[test]
fn deep_phases_of_pools_plan_on_a_small_stack() {
    // seq(tpool[2](inc), seq(tpool[2](inc), ..)): 100 000 levels, phases.
    let threads = common::on_small_stack(|| {
        let mut t = atom("inc");
        for _ in 0..DEPTH / 2 {
            t = Term::seq(Term::tpool(2u64, atom("inc")), t);
        }
        let kernels = kernels();
        Executor::new(&kernels).threads(&t).unwrap()
    });
    assert_eq!(threads, 2);
}

#[test]
fn a_deep_error_is_found_on_a_small_stack() {
    let err = common::on_small_stack(|| {
        let t = Term::seq(chain(true), atom("missing"));
        let kernels = kernels();
        Executor::new(&kernels).threads(&t).unwrap_err()
    });
    assert!(
        matches!(&err, ExecError::MissingKernel { name, .. } if name == "missing"),
        "{err}"
    );
}

/// `tpool[1](tpool[1](.. inc ..))`, `levels` pools deep.
fn pools(levels: usize) -> Term {
    (0..levels).fold(atom("inc"), |t, _| Term::tpool(1u64, t))
}

/// The first characters of an error's message, if any.
fn message<T>(result: Result<T, ExecError>) -> Option<String> {
    result
        .err()
        .map(|e| e.to_string().chars().take(300).collect())
}

/// Pipelines and task pools nest as deep as `MAX_NESTING` and run on a
/// 2 MiB thread; deeper, or with more than `MAX_THREADS` threads, they are
/// refused before a plan is built, where they used to overflow the stack.
#[test]
fn deep_pools_and_pipelines_run_or_are_refused_on_a_small_stack() {
    let (run, refused) = common::on_small_stack(|| {
        let kernels = kernels();
        let executor = Executor::new(&kernels);
        let run = executor
            .run(&pools(MAX_NESTING), vec![0, 10])
            .map(|r| r.into_input_order());
        let pipes = (0..DEPTH).fold(atom("inc"), |t, _| Term::pipe(atom("inc"), t));
        let wide = Term::pipe(
            Term::tpool(1000u64, atom("inc")),
            Term::tpool(1000u64, atom("inc")),
        );
        let refused = [
            message(executor.run(&pools(DEPTH), vec![0])),
            message(executor.run(&pipes, vec![0])),
            message(executor.run(&wide, vec![0])),
        ];
        (run, refused)
    });
    assert_eq!(run.unwrap(), [1, 11]);
    let nest = format!("nest more than {MAX_NESTING} deep");
    let [pools, pipes, wide] = refused;
    assert!(
        pools.as_deref().is_some_and(|e| e.contains(&nest)),
        "{pools:?}"
    );
    assert!(
        pipes.as_deref().is_some_and(|e| e.contains(&nest)),
        "{pipes:?}"
    );
    let threads = format!("it runs 2000 threads, more than {MAX_THREADS}");
    assert!(
        wide.as_deref().is_some_and(|e| e.contains(&threads)),
        "{wide:?}"
    );
}
