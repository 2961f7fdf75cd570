//! The step limit of an allocation's search: an evaluation that costs more
//! counts as many steps as it says (`TimeModel::steps`), so that the limit
//! bounds a search under every semantics whatever the budget.

use pattern_core::Design;
use pattern_core::explore::allocation::{AllocationError, Allocator, QueueingTime, TimeModel};
use pattern_core::machine::Machine;

/// A pool's time per element `100/a`, each evaluation costing 1,000 steps
/// and never pruned.
struct Costly;

impl TimeModel for Costly {
    type Error = std::convert::Infallible;
    fn time_per_element(&self, counts: &[(&str, u64)]) -> Result<f64, Self::Error> {
        Ok(100.0 / counts[0].1 as f64)
    }
    fn steps(&self, _threads: u64) -> u64 {
        1000
    }
}

fn err<T: std::fmt::Debug>(r: Result<T, AllocationError>) -> AllocationError {
    r.unwrap_err()
}

#[test]
fn costly_evaluations_count_their_steps() {
    // An evaluation that costs more counts as many steps as it says
    // (`TimeModel::steps`): a pool of 1..=100 workers evaluated at every
    // count (no pruning) costs 100 evaluations of 1,000 steps, plus the
    // branches.
    let pool = Design::parse("s = 100; tpool[a](s)").unwrap();
    let costly = Costly;
    let e = err(Allocator::new(&pool, 100)
        .max_steps(99_000)
        .solve_with(&costly));
    assert!(
        matches!(e, AllocationError::TooManySteps { limit: 99_000 }),
        "{e}"
    );
    let best = Allocator::new(&pool, 100)
        .max_steps(200_000)
        .solve_with(&costly)
        .unwrap();
    assert_eq!(best.allocation.counts, [("a".to_string(), 100)]);
    // The queueing semantics says its cost grows with the threads: a pool
    // searched up to 10^6 workers stops at the limit instead of solving a
    // network of every size (hours).
    let machine = Machine::new(1, 4);
    let e = err(Allocator::new(&pool, 1_000_000)
        .queueing(&machine)
        .max_steps(100_000)
        .solve());
    assert!(
        matches!(e, AllocationError::TooManySteps { limit: 100_000 }),
        "{e}"
    );
    let queueing = QueueingTime::new(&pool, &machine, &[]);
    assert_eq!(queueing.steps(0), 1);
    assert!(queueing.steps(1000) > 1000 && queueing.steps(2000) > 3 * queueing.steps(1000));
}
