//! The executor's mapReduce: grouping by key on the map workers gives what
//! grouping on one thread gives, for any number of workers and any keys.

mod common;

use common::cases;
use pattern_core::Design;
use pattern_core::exec::{
    ExecError, Executor, Job, Kernels, WorkerGroups, block_len, group_by_key, merge_groups,
};
use proptest::prelude::*;
use std::time::Duration;

/// A job whose inputs are the pairs its map emits, and whose reduce keeps
/// a key's values as it gets them: what reaches the reduce is the output.
#[derive(Clone, Debug)]
struct Echo {
    inputs: Vec<Vec<(usize, u32)>>,
    out: Vec<(usize, Vec<u32>)>,
}

impl Job for Echo {
    type Input = Vec<(usize, u32)>;
    type Value = u32;
    type Output = Vec<u32>;
    fn inputs(&self) -> &[Vec<(usize, u32)>] {
        &self.inputs
    }
    fn set_output(&mut self, output: Vec<(usize, Vec<u32>)>) {
        self.out = output;
    }
}

fn echo_kernels() -> Kernels<Echo> {
    Kernels::new()
        .add_map("emit", |pairs: &Vec<(usize, u32)>| pairs.clone())
        .add_reduce("keep", |_key, values: &[u32]| values.to_vec())
}

fn echo_design(n: u64, keys: u64) -> Design {
    Design::parse(&format!(
        "emit = 1; s = 1; keep = 1; mapreduce[n = {n}, d = x, k = {keys}](emit, s, keep)"
    ))
    .unwrap()
}

fn echo(inputs: Vec<Vec<(usize, u32)>>) -> Echo {
    Echo {
        inputs,
        out: Vec::new(),
    }
}

/// The sequential reference: every input mapped in order, the pairs
/// grouped by key on one thread, each key's values as they came.
fn reference(inputs: &[Vec<(usize, u32)>], keys: usize) -> Vec<(usize, Vec<u32>)> {
    group_by_key(inputs.to_vec(), keys).unwrap()
}

/// Jobs of up to 300 inputs, each emitting up to 6 pairs (keys repeated
/// within an input too), values numbering the pairs in input order; keys
/// below `keys`.
fn job(keys: usize) -> impl Strategy<Value = Vec<Vec<(usize, u32)>>> {
    prop::collection::vec(prop::collection::vec(0..keys, 0..6), 0..300).prop_map(|inputs| {
        let mut value = 0u32;
        inputs
            .into_iter()
            .map(|keys| {
                keys.into_iter()
                    .map(|k| {
                        value += 1;
                        (k, value)
                    })
                    .collect()
            })
            .collect()
    })
}

/// Dense keys (a bucket per key) and sparse ones (sorted pairs).
fn keys() -> impl Strategy<Value = usize> {
    prop_oneof![1usize..40, Just(1usize << 40)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(64)))]

    /// A run on n = 1..4 workers hands every reduce exactly the values the
    /// sequential reference groups for its key, in input order.
    #[test]
    fn runs_on_one_to_four_workers_equal_the_sequential_reference(
        (keys, inputs) in keys().prop_flat_map(|k| (Just(k), job(k))),
        n in 1u64..5,
    ) {
        let want = reference(&inputs, keys);
        let run = Executor::new(&echo_kernels())
            .run(echo_design(n, keys as u64).term(), vec![echo(inputs)])
            .unwrap();
        prop_assert_eq!(&run.outputs[0].1.out, &want);
    }

    /// The workers' groups, whatever blocks each worker took (in increasing
    /// order each), merge to the one-thread grouping.
    #[test]
    fn worker_groups_merge_to_the_one_thread_grouping(
        (keys, inputs) in keys().prop_flat_map(|k| (Just(k), job(k))),
        workers in 1usize..5,
        deal in prop::collection::vec(0usize..4, 300),
        block in 1usize..9,
    ) {
        let mut groups: Vec<WorkerGroups<u32>> =
            (0..workers).map(|_| WorkerGroups::new(keys)).collect();
        for (i, pairs) in inputs.iter().enumerate() {
            let b = i / block;
            groups[deal[b] % workers].add(b, pairs.clone()).unwrap();
        }
        let pairs: usize = groups.iter().map(WorkerGroups::pairs).sum();
        prop_assert_eq!(pairs, inputs.iter().map(Vec::len).sum::<usize>());
        let merged: Vec<(usize, Vec<u32>)> = merge_groups(groups)
            .into_iter()
            .map(|k| (k.key(), k.into_values()))
            .collect();
        prop_assert_eq!(merged, reference(&inputs, keys));
    }
}

/// Workers slowed down at random take blocks out of order between them:
/// each key's values still reach the reduce in input order.
#[test]
fn input_order_within_a_key_is_kept_when_workers_interleave() {
    let inputs: Vec<Vec<(usize, u32)>> = (0..3000u32)
        .map(|i| vec![(i as usize % 3, i), (i as usize % 3, i)])
        .collect();
    // Blocks of 64: 47 blocks shared by four workers.
    assert_eq!(block_len(inputs.len(), 4), 64);
    let kernels = Kernels::new()
        .add_map("emit", |pairs: &Vec<(usize, u32)>| {
            if pairs[0].1.is_multiple_of(97) {
                std::thread::sleep(Duration::from_micros(300));
            }
            pairs.clone()
        })
        .add_reduce("keep", |_key, values: &[u32]| values.to_vec());
    let run = Executor::new(&kernels)
        .run(echo_design(4, 3).term(), vec![echo(inputs)])
        .unwrap();
    let out = &run.outputs[0].1.out;
    assert_eq!(out.len(), 3);
    for (key, values) in out {
        let want: Vec<u32> = (0..3000u32)
            .filter(|i| *i as usize % 3 == *key)
            .flat_map(|i| [i, i])
            .collect();
        assert_eq!(values, &want, "key {key}");
    }
}

#[test]
fn a_key_out_of_range_on_one_of_several_workers_names_the_atom() {
    for n in [2, 3, 4] {
        let inputs: Vec<Vec<(usize, u32)>> = (0..500u32)
            .map(|i| vec![(if i == 321 { 17 } else { i as usize % 5 }, i)])
            .collect();
        let err = Executor::new(&echo_kernels())
            .run(echo_design(n, 5).term(), vec![echo(inputs)])
            .unwrap_err();
        assert_eq!(
            err,
            ExecError::KeyOutOfRange {
                atom: "emit".into(),
                key: 17,
                keys: 5
            },
            "n = {n}"
        );
    }
}

#[test]
fn a_job_without_inputs_reduces_no_key() {
    for n in 1..=4 {
        let run = Executor::new(&echo_kernels())
            .run(
                echo_design(n, 8).term(),
                vec![echo(Vec::new()), echo(vec![vec![(3, 1)]])],
            )
            .unwrap();
        let out = run.into_input_order();
        assert!(out[0].out.is_empty(), "n = {n}");
        assert_eq!(out[1].out, [(3, vec![1])], "n = {n}");
    }
}

/// 10^15 keys and a handful of pairs: a bucket per key on every worker
/// would not fit any memory, so the run finishing shows it holds none.
#[test]
fn sparse_keys_cost_memory_for_the_pairs_only() {
    let huge = 1_000_000_000_000_000usize;
    let inputs: Vec<Vec<(usize, u32)>> = (0..200u32)
        .map(|i| vec![(huge - 1 - (i as usize % 7) * 1_000_000_007, i)])
        .collect();
    let want = reference(&inputs, huge);
    for n in 1..=4 {
        let run = Executor::new(&echo_kernels())
            .run(
                echo_design(n, huge as u64).term(),
                vec![echo(inputs.clone())],
            )
            .unwrap();
        assert_eq!(run.outputs[0].1.out, want, "n = {n}");
        assert_eq!(run.outputs[0].1.out.len(), 7);
    }
}
