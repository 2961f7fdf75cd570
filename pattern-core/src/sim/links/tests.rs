//! The sharing rules on small cases by hand, and max-min's defining
//! properties on random transfers over random machines.

use super::Links;
use crate::machine::{Link, Machine, Racks, Sharing};
use proptest::prelude::*;

/// Starts a transfer from `from` to `to` on `links` at time 0.
fn start(links: &mut Links, from: usize, to: usize) -> usize {
    let f = links.open(0, from, to, 6.0);
    links.start(f, 0.0);
    links.rerate(0.0);
    f
}

#[test]
fn four_transfers_share_by_max_min_or_equal_shares() {
    // A 0→1, B 0→2, C 3→2, D 4→2 at 1 byte/ns: node 2's link in carries B,
    // C and D (a third each); node 0's link out carries A and B.
    // Max-min gives A what B leaves of node 0's link: 1 − 1/3 (in doubles
    // 0.6666666666666667, one ulp above 2/3's 0.6666666666666666).
    for (sharing, a) in [
        (Sharing::MaxMin, 1.0 - 1.0 / 3.0),
        (Sharing::EqualShare, 0.5),
    ] {
        let mut links = Links::new(&Machine::new(5, 1).sharing(sharing));
        let flows: Vec<usize> = [(0, 1), (0, 2), (3, 2), (4, 2)]
            .iter()
            .map(|&(from, to)| start(&mut links, from, to))
            .collect();
        let rates = links.rates();
        // Equal shares keep A at half of node 0's link.
        assert_eq!(rates[flows[0]], a, "{sharing:?}");
        for &f in &flows[1..] {
            assert_eq!(rates[f], 1.0 / 3.0, "{sharing:?}");
        }
    }
}

#[test]
fn an_end_hands_its_share_on_within_the_component_only() {
    let mut links = Links::new(&Machine::new(6, 1));
    let a = start(&mut links, 0, 1);
    let b = start(&mut links, 0, 2);
    // Another component: 4→5 alone.
    let c = start(&mut links, 4, 5);
    assert_eq!(links.rates()[a], 0.5);
    links.end(b);
    links.rerate(1.0);
    // A alone on node 0's link from 1 ns on; C was not touched.
    assert_eq!(links.changed, vec![a]);
    assert_eq!(links.rates()[a], 1.0);
    assert_eq!(links.rates()[c], 1.0);
    // A moved 0.5 bytes by then: 5.5 left at 1 byte/ns.
    assert_eq!(links.due(a).0, 6.5);
}

#[test]
fn racks_route_over_uplinks_and_one_backbone_both_ways() {
    // Racks of 2: {0, 1}, {2, 3}; node links 4, uplinks 2, backbone 3.
    let racks = Racks::new(2, Link::new(0.0, 2.0), Link::new(0.0, 3.0));
    let m = Machine::new(4, 1).bandwidth(4.0).racks(racks);
    let mut links = Links::new(&m);
    let a = start(&mut links, 0, 2); // up rack 0, backbone, down rack 1
    let b = start(&mut links, 3, 1); // up rack 1, backbone, down rack 0
    let c = start(&mut links, 1, 3); // up rack 0, backbone, down rack 1
    let rates = links.rates();
    // The backbone (3) carries all three: 1 each; rack 0's uplink up (2)
    // carries a and c at 1 each, not full, so the backbone binds.
    assert_eq!((rates[a], rates[b], rates[c]), (1.0, 1.0, 1.0));
    // Without c, rack 0's uplink up carries a alone (at most 2) and the
    // backbone gives a and b 1.5 each.
    links.end(c);
    links.rerate(0.0);
    let rates = links.rates();
    assert_eq!((rates[a], rates[b]), (1.5, 1.5));
}

/// A random machine: a star or racks, links of random bandwidths.
fn machine() -> impl Strategy<Value = Machine> {
    (
        2usize..9,
        0.5f64..4.0,
        prop::option::of((1usize..4, 0.5f64..4.0, 0.5f64..6.0)),
        any::<bool>(),
    )
        .prop_map(|(nodes, bw, racks, equal)| {
            let mut m = Machine::new(nodes, 1).bandwidth(bw);
            if let Some((per, up, backbone)) = racks {
                m = m.racks(Racks::new(
                    per,
                    Link::new(0.0, up),
                    Link::new(0.0, backbone),
                ));
            }
            if equal {
                m = m.sharing(Sharing::EqualShare);
            }
            m
        })
}

/// The rates of transfers `pairs` (from, to, as indices modulo the nodes)
/// started in the order `order`, by transfer.
fn rates_in_order(m: &Machine, pairs: &[(usize, usize)], order: &[usize]) -> Vec<f64> {
    let n = m.nodes();
    let mut links = Links::new(m);
    let mut ids = vec![0; pairs.len()];
    for &i in order {
        let (from, to) = (pairs[i].0 % n, pairs[i].1 % n);
        let to = if from == to { (to + 1) % n } else { to };
        ids[i] = start(&mut links, from, to);
    }
    let rates = links.rates();
    ids.iter().map(|&f| rates[f]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Max-min: no link carries more than its bandwidth, every transfer
    /// crosses a full link on which no transfer moves faster, and the
    /// rates do not depend on the order the transfers started in. Equal
    /// shares: every transfer moves at its smallest share.
    #[test]
    fn max_min_fills_links_fairly_whatever_the_order(
        m in machine(),
        pairs in prop::collection::vec((0usize..64, 0usize..64), 1..24),
        shuffle in prop::collection::vec(any::<prop::sample::Index>(), 24),
    ) {
        let n = m.nodes();
        let order: Vec<usize> = (0..pairs.len()).collect();
        let rates = rates_in_order(&m, &pairs, &order);
        let network = m.network();
        let bandwidth = network.links(n);
        let routes: Vec<Vec<usize>> = pairs.iter().map(|&(a, b)| {
            let (from, to) = (a % n, b % n);
            let to = if from == to { (to + 1) % n } else { to };
            network.route(n, from, to).links().to_vec()
        }).collect();
        let mut load = vec![0.0; bandwidth.len()];
        let mut count = vec![0usize; bandwidth.len()];
        for (route, &r) in routes.iter().zip(&rates) {
            prop_assert!(r > 0.0);
            for &l in route {
                load[l] += r;
                count[l] += 1;
            }
        }
        for (l, (&carried, &bw)) in load.iter().zip(&bandwidth).enumerate() {
            prop_assert!(carried <= bw * (1.0 + 1e-12), "link {l}: {carried} > {bw}");
        }
        for (i, route) in routes.iter().enumerate() {
            if network.sharing == Sharing::EqualShare {
                let share = route.iter().map(|&l| bandwidth[l] / count[l] as f64).fold(f64::INFINITY, f64::min);
                prop_assert_eq!(rates[i], share);
                continue;
            }
            let bottleneck = route.iter().any(|&l| {
                let full = load[l] >= bandwidth[l] * (1.0 - 1e-9);
                let fastest = routes.iter().zip(&rates)
                    .filter(|(r, _)| r.contains(&l))
                    .all(|(_, &other)| other <= rates[i] * (1.0 + 1e-9));
                full && fastest
            });
            prop_assert!(bottleneck, "transfer {i} at {} has no bottleneck: {rates:?}", rates[i]);
        }
        // Another order of starts: the same rates.
        let mut order = order;
        for (i, s) in shuffle.iter().enumerate().take(order.len()) {
            let j = s.index(order.len());
            order.swap(i, j);
        }
        let again = rates_in_order(&m, &pairs, &order);
        for (a, b) in rates.iter().zip(&again) {
            prop_assert!((a - b).abs() <= 1e-12 * a.max(*b), "{rates:?} vs {again:?}");
        }
    }
}
