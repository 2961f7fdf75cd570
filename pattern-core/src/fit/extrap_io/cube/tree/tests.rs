use super::*;

/// main(0) → a(1) → {c(2), d(3)}; main → b(4) → e(5).
fn sample() -> CallTree {
    let parents = [NO_PARENT, 0, 1, 1, 0, 4];
    let cnodes: Vec<Cnode> = parents
        .iter()
        .map(|&parent| Cnode { region: 0, parent })
        .collect();
    CallTree::new(&cnodes)
}

const SIGNED: Combine = Combine::Sum { unsigned: false };
const UNSIGNED: Combine = Combine::Sum { unsigned: true };

#[test]
fn wide_order_numbers_a_nodes_children_together() {
    assert_eq!(sample().wide_order(), [0, 1, 4, 2, 3, 5]);
    // Several roots: each root's subtree before the next root.
    let cnodes: Vec<Cnode> = [NO_PARENT, 0, 0, NO_PARENT, 3, 1]
        .iter()
        .map(|&parent| Cnode { region: 0, parent })
        .collect();
    assert_eq!(CallTree::new(&cnodes).wide_order(), [0, 1, 2, 5, 3, 4]);
    assert_eq!(CallTree::new(&[]).wide_order(), Vec::<u32>::new());
}

#[test]
fn exclusive_from_inclusive_subtracts_the_listed_children() {
    let t = sample();
    let inclusive = [10., 20., 6., 12., 2., 4., 1., 2., 3., 5., 1., 1.];
    let all: Vec<u32> = (0..6).collect();
    let got = t.convert(&all, inclusive.to_vec(), 2, SIGNED, Conversion::ToExclusive);
    assert_eq!(got, [1., 3., 3., 6., 2., 4., 1., 2., 2., 4., 1., 1.]);
    // Unlisted children count as zeros; rows keep the index's order.
    let got = t.convert(
        &[4, 0, 2],
        vec![3., 5., 10., 20., 2., 4.],
        2,
        SIGNED,
        Conversion::ToExclusive,
    );
    assert_eq!(got, [3., 5., 7., 15., 2., 4.]);
    // Unsigned values are clamped at 0; signed ones go negative.
    let got = t.convert(
        &[0, 1],
        vec![5., 9., 6., 4.],
        2,
        UNSIGNED,
        Conversion::ToExclusive,
    );
    assert_eq!(got, [0., 5., 6., 4.]);
    let got = t.convert(
        &[0, 1],
        vec![5., 9., 6., 4.],
        2,
        SIGNED,
        Conversion::ToExclusive,
    );
    assert_eq!(got, [-1., 5., 6., 4.]);
}

#[test]
fn inclusive_from_exclusive_sums_subtrees() {
    let t = sample();
    let exclusive = [1., 2., 3., 4., 5., 6.];
    let all: Vec<u32> = (0..6).collect();
    let got = t.convert(&all, exclusive.to_vec(), 1, SIGNED, Conversion::ToInclusive);
    assert_eq!(got, [21., 9., 3., 4., 11., 6.]);
    // Only main and e listed: main's sum reaches e through the unlisted b.
    let got = t.convert(
        &[5, 0],
        vec![6., 60., 1., 10.],
        2,
        SIGNED,
        Conversion::ToInclusive,
    );
    assert_eq!(got, [6., 60., 7., 70.]);
    let same = t.convert(&[5, 0], vec![6., 1.], 1, SIGNED, Conversion::Keep);
    assert_eq!(same, [6., 1.]);
}

#[test]
fn minimum_and_maximum_skip_children_of_zeros() {
    let t = sample();
    let all: Vec<u32> = (0..6).collect();
    let v = vec![4., 4., 2., 9., 0., 0., 3., 1., 5., 5., 7., 0.];
    let got = t.convert(&all, v.clone(), 2, Combine::Min, Conversion::ToInclusive);
    assert_eq!(got, [2., 0., 2., 1., 0., 0., 3., 1., 5., 0., 7., 0.]);
    let got = t.convert(&all, v.clone(), 2, Combine::Max, Conversion::ToInclusive);
    assert_eq!(got, [7., 9., 3., 9., 0., 0., 3., 1., 7., 5., 7., 0.]);
    // pycubexr's exclusive of a min/max metric combines the same way.
    // (The children's stored values: this metric stores inclusive ones.)
    let got = t.convert(&all, v, 2, Combine::Min, Conversion::ToExclusive);
    assert_eq!(got, [2., 4., 2., 1., 0., 0., 3., 1., 5., 0., 7., 0.]);
}

#[test]
fn a_chain_of_a_hundred_thousand_converts_on_a_small_stack() {
    let n = 100_000usize;
    let (inclusive, exclusive, wide) = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let cnodes: Vec<Cnode> = (0..n)
                .map(|i| Cnode {
                    region: 0,
                    parent: if i == 0 { NO_PARENT } else { i as u32 - 1 },
                })
                .collect();
            let t = CallTree::new(&cnodes);
            let all: Vec<u32> = (0..n as u32).collect();
            let inclusive = t.convert(&all, vec![1.0; n], 1, SIGNED, Conversion::ToInclusive);
            let exclusive = t.convert(&all, inclusive.clone(), 1, SIGNED, Conversion::ToExclusive);
            (inclusive, exclusive, t.wide_order())
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(inclusive[0], n as f64);
    assert_eq!(inclusive[n - 1], 1.0);
    assert!(exclusive.iter().all(|&v| v == 1.0));
    assert!(wide.iter().enumerate().all(|(i, &c)| c as usize == i));
}
