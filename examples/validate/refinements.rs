//! The refinements of a design's model by what the validation measured
//! beside the atoms: the hand-over between pipeline stages
//! ([`with_handoff`]) and from a task pool's queue ([`with_pool_handoff`]),
//! cache reuse on a thread ([`with_cache_reuse`]) and memory contention in
//! a task pool ([`with_contention`]); the atoms they add are the measured
//! atoms' variants ([`Variant`]) and the hand-overs.

use crate::variants::Variant;
use pattern_core::{Atom, Count, Expr, Term};

/// The name of the hand-over atom in the models.
pub const HANDOFF: &str = "handoff";

/// The name of the hand-over between pipeline stages that share a core
/// (in the report; in a refined design it takes [`HANDOFF`]'s place).
pub const SHARED_HANDOFF: &str = "handoff_shared";

/// The refined term: cache reuse (after an atom on the same thread, at the
/// head of a later pipeline stage and at the tail of the stage before),
/// contention, the pools' hand-over, then the pipelines' hand-over.
pub(crate) fn refine(term: &Term, handoff: Option<&Atom>, variants: &[Atom], cores: usize) -> Term {
    let reused = with_handing(
        &with_handed(&with_cache_reuse(term, variants), variants),
        variants,
    );
    let reused = with_contention(&reused, variants, cores);
    let reused = with_pool_handoff(&reused, variants, cores);
    match handoff {
        Some(h) => with_handoff(&reused, h),
        None => reused,
    }
}

/// `term` with the hand-over between threads as an atom: every element that
/// crosses a pipeline boundary costs each of the two stages `handoff` (the
/// sender to hand it on, the receiver to take it), so a stage pays once per
/// boundary it touches; a task pool shares its stages' costs among its
/// workers. `pipe(a, b)` becomes `pipe(seq(a, handoff), seq(handoff, b))`,
/// whose model is `max(M[a] + h, M[b] + h)`.
pub fn with_handoff(term: &Term, handoff: &Atom) -> Term {
    attach(term, handoff, false, false)
}

fn attach(term: &Term, h: &Atom, left: bool, right: bool) -> Term {
    let hand = || Term::Atom(h.clone());
    match term {
        Term::Pipe(a, b) => Term::pipe(attach(a, h, left, true), attach(b, h, true, right)),
        Term::Tpool(n, t) => Term::Tpool(n.clone(), Box::new(attach(t, h, left, right))),
        Term::Seq(a, b) => Term::seq(attach(a, h, left, false), attach(b, h, false, right)),
        Term::Atom(_)
        | Term::MapReduce { .. }
        | Term::On(..)
        | Term::Par(..)
        | Term::Groups(..)
        | Term::Redist(..) => {
            let mut parts = Vec::new();
            if left {
                parts.push(hand());
            }
            parts.push(term.clone());
            if right {
                parts.push(hand());
            }
            Term::seq_all(parts).unwrap_or_else(|| term.clone())
        }
    }
}

/// `term` with cache reuse: an atom that follows another atom on the same
/// thread (a later part of a `seq`) finds the element in the cache, so it
/// is replaced by its warm variant from `warm` (named by [`Variant::Warm`]),
/// where there is one. The first atom of a thread, and the first atom of a
/// pipeline stage (the element comes from another core), stay as they are.
pub fn with_cache_reuse(term: &Term, warm: &[Atom]) -> Term {
    reuse(term, warm, true)
}

fn reuse(term: &Term, warm: &[Atom], first: bool) -> Term {
    match term {
        Term::Atom(a) if !first => warm
            .iter()
            .find(|w| w.name == Variant::Warm.name(&a.name))
            .map_or_else(|| term.clone(), |w| Term::Atom(w.clone())),
        Term::Atom(_)
        | Term::MapReduce { .. }
        | Term::On(..)
        | Term::Par(..)
        | Term::Groups(..)
        | Term::Redist(..) => term.clone(),
        Term::Seq(a, b) => Term::seq(reuse(a, warm, first), reuse(b, warm, false)),
        Term::Pipe(a, b) => Term::pipe(reuse(a, warm, first), reuse(b, warm, true)),
        Term::Tpool(n, t) => Term::Tpool(n.clone(), Box::new(reuse(t, warm, first))),
    }
}

/// `variants` without the handed ones, for designs whose threads outnumber
/// the cores: there a stage takes its element late, once its core is done
/// with another stage's work, and the element is no longer fresh in the
/// other core's cache; it costs what a cold one costs. (On 2026-11-24,
/// `pipe(inc, inc, inc)` at 32,768 elements ran at 68.5 µs, two cold incs
/// of 33.1 µs and the hand-overs on its first core, where a cold and a
/// handed one, 27.7 µs, gave 62.8 µs.)
pub(crate) fn without_handed(variants: &[Atom]) -> Vec<Atom> {
    variants
        .iter()
        .filter(|v| Variant::Handed.atom_of(&v.name).is_none())
        .cloned()
        .collect()
}

/// `term` with the elements a later pipeline stage takes from the stage
/// before: the first atom of every stage but the first is replaced by its
/// variant named [`Variant::Handed`] from `variants`, timed on elements the
/// other core has just worked on (they come from the shared cache, not
/// from memory), where there is one.
pub fn with_handed(term: &Term, variants: &[Atom]) -> Term {
    match term {
        Term::Pipe(a, b) => Term::pipe(
            with_handed(a, variants),
            handed_head(&with_handed(b, variants), variants),
        ),
        _ => term.map_children(|child| with_handed(child, variants)),
    }
}

/// `stage` with its first atom handed.
fn handed_head(stage: &Term, variants: &[Atom]) -> Term {
    match stage {
        Term::Atom(a) => variants
            .iter()
            .find(|v| v.name == Variant::Handed.name(&a.name))
            .map_or_else(|| stage.clone(), |v| Term::Atom(v.clone())),
        Term::Seq(a, b) => Term::seq(handed_head(a, variants), (**b).clone()),
        Term::Tpool(n, t) => Term::Tpool(n.clone(), Box::new(handed_head(t, variants))),
        // The head of a nested pipeline is its first stage's head.
        Term::Pipe(a, b) => Term::pipe(handed_head(a, variants), (**b).clone()),
        _ => stage.clone(),
    }
}

/// `term` with the elements a pipeline stage hands on to the next: the last
/// atom of a stage whose next stage begins with the same atom is replaced
/// by its variant named [`Variant::Handing`] from `variants`, where there is
/// one. The next stage's core takes the element's lines from this core's
/// cache, dirty, so this core never writes them back to memory; an atom
/// that works on a cold element every time pays that write-back when the
/// next element pushes the last one out of its cache. (On 2026-11-24 at
/// 262,144 elements, the first stage of `pipe(inc, inc)` ran at 236 µs per
/// element and `inc` alone at 255–260.) Apply it after [`with_handed`]: a
/// stage whose single atom is both handed and handing keeps the handed
/// variant, the larger effect (the two were not timed together).
pub fn with_handing(term: &Term, variants: &[Atom]) -> Term {
    match term {
        Term::Pipe(a, b) => {
            let before = with_handing(a, variants);
            let next = head_atom(b).map(|h| Variant::Handed.atom_of(h).unwrap_or(h));
            let before = match (last_atom(a), next) {
                (Some(last), Some(head)) if last == head => handing_tail(&before, variants),
                _ => before,
            };
            Term::pipe(before, with_handing(b, variants))
        }
        _ => term.map_children(|child| with_handing(child, variants)),
    }
}

/// `stage` with its last atom handing.
fn handing_tail(stage: &Term, variants: &[Atom]) -> Term {
    match stage {
        Term::Atom(a) => variants
            .iter()
            .find(|v| v.name == Variant::Handing.name(&a.name))
            .map_or_else(|| stage.clone(), |v| Term::Atom(v.clone())),
        Term::Seq(a, b) => Term::seq((**a).clone(), handing_tail(b, variants)),
        Term::Tpool(n, t) => Term::Tpool(n.clone(), Box::new(handing_tail(t, variants))),
        Term::Pipe(a, b) => Term::pipe((**a).clone(), handing_tail(b, variants)),
        _ => stage.clone(),
    }
}

/// Collects the names of the atoms at the head of a pipeline stage other
/// than the first whose stage before ends with the same atom
/// ([`with_handed`]): the handed variant is timed after the same kernel ran
/// on the other core, which is what such a stage finds (another kernel
/// would leave the element in another state: a sorted array sorts faster).
pub(crate) fn handed_atoms(term: &Term, out: &mut Vec<String>) {
    if let Term::Pipe(a, b) = term
        && let (Some(last), Some(head)) = (last_atom(a), head_atom(b))
        && last == head
    {
        out.push(head.to_string());
    }
    for child in term.children() {
        handed_atoms(child, out);
    }
}

fn head_atom(stage: &Term) -> Option<&str> {
    match stage {
        Term::Atom(a) => Some(&a.name),
        Term::Seq(a, _) | Term::Pipe(a, _) => head_atom(a),
        Term::Tpool(_, t) => head_atom(t),
        _ => None,
    }
}

fn last_atom(stage: &Term) -> Option<&str> {
    match stage {
        Term::Atom(a) => Some(&a.name),
        Term::Seq(_, b) | Term::Pipe(_, b) => last_atom(b),
        Term::Tpool(_, t) => last_atom(t),
        _ => None,
    }
}

/// Collects the names of the atoms `term` runs in a task pool of two or
/// more workers (`pooled`: inside one already).
pub(crate) fn pooled_atoms(term: &Term, pooled: bool, out: &mut Vec<String>) {
    match term {
        Term::Atom(a) if pooled => out.push(a.name.clone()),
        Term::Tpool(n, t) => pooled_atoms(t, pooled || !matches!(n, Count::Fixed(1)), out),
        _ => {
            for child in term.children() {
                pooled_atoms(child, pooled, out);
            }
        }
    }
}

/// `term` with memory contention between the workers of a task pool: an
/// atom in a pool of `n ≥ 2` workers on a machine of `cores` cores runs
/// while `b − 1` other cores run it too, `b = min(n, cores)`, so it takes
/// `M[a] + (b − 1)/(cores − 1) · (M[a_corun] − M[a])`, where `a_corun`
/// (named by [`Variant::Corun`], from `variants`) is the atom timed while all
/// other cores ran it: the slowdown grows in proportion to the busy cores,
/// to first order (each takes its share of the memory bandwidth). With
/// every core busy the atom is replaced by `a_corun`; otherwise by an atom
/// `a_corunB` with that model. Atoms without a co-run variant, a symbolic
/// `n` (counted as every core) and a machine of one core (no change) are
/// covered too.
pub fn with_contention(term: &Term, variants: &[Atom], cores: usize) -> Term {
    contend(term, variants, cores, 1)
}

fn contend(term: &Term, variants: &[Atom], cores: usize, busy: usize) -> Term {
    match term {
        Term::Atom(a) if busy > 1 && cores > 1 => {
            let Some(corun) = variants
                .iter()
                .find(|v| v.name == Variant::Corun.name(&a.name))
            else {
                return term.clone();
            };
            if busy >= cores {
                return Term::Atom(corun.clone());
            }
            let share = (busy - 1) as f64 / (cores - 1) as f64;
            Term::Atom(Atom {
                name: format!("{}{busy}", corun.name),
                model: Expr::Add(vec![
                    Expr::Mul(vec![Expr::num(1.0 - share), a.model.clone()]),
                    Expr::Mul(vec![Expr::num(share), corun.model.clone()]),
                ])
                .simplify(),
                bytes: None,
            })
        }
        Term::Tpool(n, t) => {
            let busy = busy
                .saturating_mul(busy_workers(n, cores))
                .min(cores.max(1));
            Term::Tpool(n.clone(), Box::new(contend(t, variants, cores, busy)))
        }
        // The map and reduce workers of a mapReduce (one node) share the
        // memory like a pool's workers.
        Term::MapReduce { params, .. } => {
            let busy = busy
                .saturating_mul(busy_workers(&params.n, cores))
                .min(cores.max(1));
            term.map_children(|child| contend(child, variants, cores, busy))
        }
        _ => term.map_children(|child| contend(child, variants, cores, busy)),
    }
}

/// The name of the hand-over of a task pool of `workers` busy workers
/// ([`with_pool_handoff`]).
pub fn pool_handoff_name(workers: usize) -> String {
    format!("handoff_pool{workers}")
}

/// The workers a pool keeps busy at once: its count, at most `cores` (a
/// symbolic count: `cores`).
fn busy_workers(n: &Count, cores: usize) -> usize {
    let workers = match n {
        Count::Fixed(k) => usize::try_from(*k).unwrap_or(usize::MAX),
        Count::Symbol(_) => cores,
    };
    workers.min(cores.max(1))
}

/// Collects the busy workers ([`busy_workers`]) of every pool in `term`.
pub(crate) fn pool_sizes(term: &Term, cores: usize, out: &mut Vec<usize>) {
    if let Term::Tpool(n, _) = term {
        out.push(busy_workers(n, cores));
    }
    for child in term.children() {
        pool_sizes(child, cores, out);
    }
}

/// `term` with the hand-over of its task pools: every worker of a pool
/// takes each of its elements from the shared queue and hands it on, and
/// when `w` workers do so at once (`w` = the count, at most `cores`) the
/// queue's memory moves between their cores at every take. `tpool[n](t)`
/// becomes `tpool[n](seq(t, h))` with `h` the atom named
/// [`pool_handoff_name`]`(w)` from `variants`, where there is one. The
/// validation measures it as `w` times the time per element of
/// `tpool[w](spin)` minus the kernel's time, for a kernel that spins for
/// 10 µs, a pool at the top of the program.
pub fn with_pool_handoff(term: &Term, variants: &[Atom], cores: usize) -> Term {
    match term {
        Term::Tpool(n, t) => {
            let inner = with_pool_handoff(t, variants, cores);
            let name = pool_handoff_name(busy_workers(n, cores));
            let inner = match variants.iter().find(|v| v.name == name) {
                Some(h) => Term::seq(inner, Term::Atom(h.clone())),
                None => inner,
            };
            Term::Tpool(n.clone(), Box::new(inner))
        }
        _ => term.map_children(|child| with_pool_handoff(child, variants, cores)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pattern_core::Design;
    use pattern_core::semantics::Throughput;

    fn h() -> Atom {
        Atom {
            name: HANDOFF.into(),
            model: Expr::num(10.0),
            bytes: None,
        }
    }

    fn term(text: &str) -> Term {
        Design::parse(&format!("a = x; b = 2*x; c = 3; {text}"))
            .unwrap()
            .term()
            .clone()
    }

    fn corun() -> Vec<Atom> {
        vec![Atom {
            name: "a_corun".into(),
            model: Expr::parse("3*x").unwrap(),
            bytes: None,
        }]
    }

    #[test]
    fn later_stages_take_handed_elements() {
        let handed = vec![
            Atom {
                name: "a_handed".into(),
                model: Expr::parse("0.5*x").unwrap(),
                bytes: None,
            },
            Atom {
                name: "b_handed".into(),
                model: Expr::parse("x").unwrap(),
                bytes: None,
            },
        ];
        let t = with_handed(&term("pipe(a, seq(a, b), tpool[2](b), c)"), &handed);
        assert_eq!(
            t.to_string(),
            "pipe(a, seq(a_handed, b), tpool[2](b_handed), c)"
        );
        // Timed only after the same kernel: `a` after `a`, `b` after `b`.
        let mut heads = Vec::new();
        handed_atoms(&term("pipe(a, seq(a, b), tpool[2](b), c)"), &mut heads);
        heads.sort();
        assert_eq!(heads, ["a", "b"]);
        // Not a pipeline: nothing changes.
        assert_eq!(
            with_handed(&term("seq(a, b)"), &handed).to_string(),
            "seq(a, b)"
        );
    }

    #[test]
    fn a_stage_hands_on_to_a_next_stage_of_the_same_atom() {
        let variants = vec![
            Atom {
                name: Variant::Handed.name("a"),
                model: Expr::parse("0.5*x").unwrap(),
                bytes: None,
            },
            Atom {
                name: Variant::Handing.name("a"),
                model: Expr::parse("0.9*x").unwrap(),
                bytes: None,
            },
        ];
        // Only where the next stage begins with the same atom: `b` after
        // `a` takes the element differently.
        let t = term("pipe(a, seq(b, a), a, tpool[2](a), b)");
        let handed = with_handed(&t, &variants);
        assert_eq!(
            with_handing(&handed, &variants).to_string(),
            "pipe(a, seq(b, a_handing), a_handed, tpool[2](a_handed), b)"
        );
        // Beyond the cores (no handed variants) every stage before an `a`
        // hands on, the pool's workers too.
        let handing = [variants[1].clone()];
        assert_eq!(
            with_handing(&term("pipe(seq(b, a), a, tpool[2](a), a)"), &handing).to_string(),
            "pipe(seq(b, a_handing), a_handing, tpool[2](a_handing), a)"
        );
        let refined = refine(&term("pipe(a, a)"), None, &variants, 2);
        assert_eq!(refined.to_string(), "pipe(a_handing, a_handed)");
        assert_eq!(
            Throughput::new()
                .expr(&refined)
                .eval(&[("x", 100.0)])
                .unwrap(),
            90.0
        );
    }

    #[test]
    fn names_of_the_added_atoms() {
        assert_eq!(Variant::Warm.name("inc"), "inc_warm");
        assert_eq!(Variant::Corun.name("inc"), "inc_corun");
        assert_eq!(Variant::Handing.name("inc"), "inc_handing");
        assert_eq!(Variant::Waking.name("inc"), "inc_waking");
        assert_eq!(pool_handoff_name(2), "handoff_pool2");
        assert_eq!(HANDOFF, "handoff");
    }

    #[test]
    fn beyond_the_cores_a_stage_takes_its_element_cold() {
        let variants = [
            Atom {
                name: Variant::Handed.name("a"),
                model: Expr::num(2.0),
                bytes: None,
            },
            Atom {
                name: Variant::Warm.name("a"),
                model: Expr::num(1.0),
                bytes: None,
            },
        ];
        let kept = without_handed(&variants);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].name, "a_warm");
        let t = term("pipe(a, a, a)");
        assert_eq!(
            with_handed(&t, &variants).to_string(),
            "pipe(a, a_handed, a_handed)"
        );
        assert_eq!(with_handed(&t, &kept).to_string(), "pipe(a, a, a)");
    }

    #[test]
    fn handoff_in_a_pipeline_of_three() {
        let d = Design::parse("a = 2*x; b = x; c = 5; pipe(a, b, c)").unwrap();
        let h = Atom {
            name: "handoff".into(),
            model: Expr::num(100.0),
            bytes: None,
        };
        let t = with_handoff(d.term(), &h);
        assert_eq!(
            t.to_string(),
            "pipe(seq(a, handoff), seq(handoff, b, handoff), seq(handoff, c))"
        );
        assert_eq!(
            Throughput::new().expr(&t).eval(&[("x", 1000.0)]).unwrap(),
            2100.0
        );
    }

    #[test]
    fn handoff_only_at_pipeline_boundaries() {
        assert_eq!(
            with_handoff(&term("seq(a, b)"), &h()).to_string(),
            "seq(a, b)"
        );
        assert_eq!(
            with_handoff(&term("tpool[2](a)"), &h()).to_string(),
            "tpool[2](a)"
        );
        let t = with_handoff(&term("pipe(tpool[2](a), b)"), &h());
        assert_eq!(
            t.to_string(),
            "pipe(tpool[2](seq(a, handoff)), seq(handoff, b))"
        );
        // max((x + 10)/2, 2x + 10) at x = 100.
        assert_eq!(
            Throughput::new().expr(&t).eval(&[("x", 100.0)]).unwrap(),
            210.0
        );
        let left = with_handoff(&term("pipe(pipe(a, b), c)"), &h());
        assert_eq!(
            left.to_string(),
            "pipe(pipe(seq(a, handoff), seq(handoff, b, handoff)), seq(handoff, c))"
        );
    }

    #[test]
    fn cache_reuse_after_the_first_atom_of_a_thread() {
        let d = Design::parse("inc = 2*x; qsort = 10*x; seq(inc, inc, pipe(qsort, inc))").unwrap();
        let warm = [Atom {
            name: "inc_warm".into(),
            model: Expr::parse("x").unwrap(),
            bytes: None,
        }];
        let t = with_cache_reuse(d.term(), &warm);
        assert_eq!(t.to_string(), "seq(inc, inc_warm, pipe(qsort, inc))");
    }

    #[test]
    fn contention_by_the_busy_cores() {
        let d = Design::parse("inc = 4*x; nop = 1; pipe(tpool[2](inc), tpool[1](nop))").unwrap();
        let corun = [Atom {
            name: "inc_corun".into(),
            model: Expr::parse("5*x").unwrap(),
            bytes: None,
        }];
        // On 2 cores both workers' cores are busy: 5x / 2.
        let on_two = with_contention(d.term(), &corun, 2);
        assert_eq!(
            on_two.to_string(),
            "pipe(tpool[2](inc_corun), tpool[1](nop))"
        );
        assert_eq!(
            Throughput::new()
                .expr(&on_two)
                .eval(&[("x", 100.0)])
                .unwrap(),
            250.0
        );
        // On 5 cores, 2 workers keep 1 of the 4 other cores busy:
        // (4x + (5x - 4x) / 4) / 2.
        let on_five = with_contention(d.term(), &corun, 5);
        assert_eq!(
            on_five.to_string(),
            "pipe(tpool[2](inc_corun2), tpool[1](nop))"
        );
        assert_eq!(
            Throughput::new()
                .expr(&on_five)
                .eval(&[("x", 100.0)])
                .unwrap(),
            212.5
        );
    }

    #[test]
    fn contention_only_inside_pools_of_two_or_more() {
        let v = corun();
        let on = |text: &str, cores: usize| with_contention(&term(text), &v, cores).to_string();
        assert_eq!(on("seq(a, b)", 2), "seq(a, b)");
        assert_eq!(on("tpool[1](a)", 2), "tpool[1](a)");
        assert_eq!(
            on("pipe(tpool[2](seq(a, b)), a)", 2),
            "pipe(tpool[2](seq(a_corun, b)), a)"
        );
        // A symbolic count counts as every core; one core has no contention.
        assert_eq!(on("tpool[n](a)", 4), "tpool[n](a_corun)");
        assert_eq!(on("tpool[2](a)", 1), "tpool[2](a)");
        // Nested pools multiply their workers: 2 x 2 keep 4 of 8 cores
        // busy, so a takes x + 3/7 (3x - x).
        let t = with_contention(&term("tpool[2](tpool[2](a))"), &v, 8);
        assert_eq!(t.to_string(), "tpool[2](tpool[2](a_corun4))");
        let x = 700.0;
        let want = x * (1.0 + 6.0 / 7.0) / 4.0;
        assert!((Throughput::new().expr(&t).eval(&[("x", x)]).unwrap() - want).abs() < 1e-9);
    }

    #[test]
    fn pool_handoff_in_every_pool() {
        let d = Design::parse("inc = 4*x; pipe(tpool[2](inc), tpool[8](inc))").unwrap();
        let h = [Atom {
            name: pool_handoff_name(2),
            model: Expr::num(500.0),
            bytes: None,
        }];
        let t = with_pool_handoff(d.term(), &h, 2);
        assert_eq!(
            t.to_string(),
            "pipe(tpool[2](seq(inc, handoff_pool2)), tpool[8](seq(inc, handoff_pool2)))"
        );
        assert_eq!(
            Throughput::new().expr(&t).eval(&[("x", 1000.0)]).unwrap(),
            2250.0
        );
    }

    #[test]
    fn pool_handoff_for_the_busy_workers_of_every_pool() {
        let h = |w: usize| Atom {
            name: pool_handoff_name(w),
            model: Expr::num(100.0 * w as f64),
            bytes: None,
        };
        let v = [h(1), h(2)];
        let on = |text: &str, cores: usize| with_pool_handoff(&term(text), &v, cores).to_string();
        assert_eq!(on("seq(a, b)", 2), "seq(a, b)");
        assert_eq!(on("tpool[1](a)", 2), "tpool[1](seq(a, handoff_pool1))");
        // More workers than cores: as many busy at once as there are cores.
        assert_eq!(
            on("pipe(tpool[8](a), tpool[n](b))", 2),
            "pipe(tpool[8](seq(a, handoff_pool2)), tpool[n](seq(b, handoff_pool2)))"
        );
        // No measured hand-over for 4 busy workers: left alone.
        assert_eq!(on("tpool[4](a)", 4), "tpool[4](a)");
        let mut sizes = Vec::new();
        pool_sizes(
            &term("seq(tpool[3](a), pipe(tpool[1](b), c))"),
            2,
            &mut sizes,
        );
        assert_eq!(sizes, [2, 1]);
    }

    #[test]
    fn pooled_atoms_are_those_in_pools_of_two_or_more() {
        let mut out = Vec::new();
        pooled_atoms(
            &term("seq(a, pipe(tpool[1](b), tpool[3](seq(b, c))))"),
            false,
            &mut out,
        );
        assert_eq!(out, ["b", "c"]);
    }

    #[test]
    fn refine_applies_every_refinement() {
        let variants = [
            Atom {
                name: "a_warm".into(),
                model: Expr::num(1.0),
                bytes: None,
            },
            Atom {
                name: pool_handoff_name(2),
                model: Expr::num(7.0),
                bytes: None,
            },
        ];
        let t = refine(
            &term("pipe(seq(b, a), tpool[2](c))"),
            Some(&h()),
            &variants,
            2,
        );
        assert_eq!(
            t.to_string(),
            "pipe(seq(b, a_warm, handoff), tpool[2](seq(seq(handoff, c), handoff_pool2)))"
        );
        let plain = refine(&term("seq(b, a)"), None, &[], 2);
        assert_eq!(plain.to_string(), "seq(b, a)");
    }
}
