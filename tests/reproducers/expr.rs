//! Reproducers in the expr area.

child_test!(expr_child_process_runs_on_a_small_stack, || {
    // A recursion that needs more than the 2 MiB stack would abort here.
    let depth = std::hint::black_box(1000u64);
    assert_eq!((0..depth).sum::<u64>(), 499_500);
});
