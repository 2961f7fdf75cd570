//! The type-level const models agree with the runtime models on random
//! designs over every pattern (seq, pipe, tpool, mapreduce, on, par, groups,
//! seq[redist]), with fixed and named counts.
//!
//! `tests/type_level/designs.in` holds each design twice, as a type of
//! `pattern_core::dsl` and as the design text of `Design::parse`, with
//! random points; `tests/type_level/generate.rs` writes it from a seed (a
//! test here checks that the file is what it writes). At each point the
//! const model, evaluated by the compiler, must equal the model of the text:
//! the composition of the runtime term (`Term::model`) to 1e-12, and its
//! normal form (`Design::model`, whose coefficients are rounded to 12
//! significant digits) to 1e-11. Points where the runtime value is not
//! finite (a group of 0 processors under a named count, `log2(0)`) are
//! skipped and counted. Other designs: `PATTERN_TYPE_LEVEL_WRITE=1` with
//! `PATTERN_TYPE_LEVEL_SEED` and `PATTERN_TYPE_LEVEL_DESIGNS` rewrites the
//! file (the freshness test then fails until the seed and count in
//! `generate.rs` match); the next build tests the new designs.

#[path = "type_level/generate.rs"]
mod generate;

use pattern_core::dsl::*;
use pattern_core::semantics::Throughput;
use pattern_core::{Count, Design, Term};

/// One random design.
pub struct Case {
    /// The design as a type.
    pub ty: &'static str,
    /// The design as text: atom definitions and the term.
    pub text: &'static str,
    /// `cost_with` of the type, called at run time.
    pub cost: fn(&[(&str, f64)]) -> f64,
    /// `term()` of the type.
    pub term: fn() -> Term,
    /// The points, one value per variable of `VARIABLES`.
    pub points: &'static [[f64; 5]],
    /// `cost_with` of the type at each point, evaluated by the compiler.
    pub at_compile_time: &'static [f64],
}

include!("type_level/designs.in");

/// Where the checked-in designs live.
const DESIGNS_FILE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/type_level/designs.in");

fn env_number(name: &str) -> Option<u64> {
    let text = std::env::var(name).ok()?;
    Some(
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a non-negative integer, found `{text}`")),
    )
}

/// The checked-in designs are what the generator writes from its seed, so
/// the fixture is never edited by hand nor stale; with
/// `PATTERN_TYPE_LEVEL_WRITE=1` this writes them instead.
#[test]
fn the_checked_in_designs_are_the_generators() {
    if std::env::var_os("PATTERN_TYPE_LEVEL_WRITE").is_some() {
        let seed = env_number("PATTERN_TYPE_LEVEL_SEED").unwrap_or(generate::SEED);
        let designs =
            env_number("PATTERN_TYPE_LEVEL_DESIGNS").map_or(generate::DESIGNS, |n| n as usize);
        std::fs::write(DESIGNS_FILE, generate::generate(seed, designs))
            .expect("the file is writable");
        return;
    }
    let file = std::fs::read_to_string(DESIGNS_FILE).expect("the designs are checked in");
    assert!(
        file == generate::generate(generate::SEED, generate::DESIGNS),
        "{DESIGNS_FILE} is not what tests/type_level/generate.rs writes from seed {}; rewrite it with PATTERN_TYPE_LEVEL_WRITE=1",
        generate::SEED
    );
    assert_eq!(SEED, generate::SEED);
    assert_eq!(CASES.len(), generate::DESIGNS);
}

/// Relative tolerance against the composition of the runtime term.
const TERM_TOLERANCE: f64 = 1e-12;
/// Relative tolerance against the normal form (coefficients rounded to 12
/// significant digits, so up to 5e-12 relative each).
const NORMAL_FORM_TOLERANCE: f64 = 1e-11;

fn relative(a: f64, b: f64) -> f64 {
    if a == b { 0.0 } else { (a - b).abs() / b.abs() }
}

/// The patterns a term uses and how many of its counts are named.
#[derive(Default)]
struct Coverage {
    kinds: [usize; 9],
    named: usize,
    fixed: usize,
}

const KINDS: [&str; 9] = [
    "atom",
    "seq",
    "pipe",
    "tpool",
    "mapreduce",
    "on",
    "par",
    "groups",
    "seq[redist]",
];

impl Coverage {
    fn add(&mut self, t: &Term) {
        let mut count = |c: &Count| match c {
            Count::Fixed(_) => self.fixed += 1,
            Count::Symbol(_) => self.named += 1,
        };
        let kind = match t {
            Term::Atom(_) => 0,
            Term::Seq(..) => 1,
            Term::Pipe(..) => 2,
            Term::Tpool(n, _) => {
                count(n);
                3
            }
            Term::MapReduce { params, .. } => {
                count(&params.m);
                count(&params.n);
                4
            }
            Term::On(p, _) => {
                count(p);
                5
            }
            Term::Par(sizes, _) => {
                sizes.iter().for_each(&mut count);
                6
            }
            Term::Groups(s, _) => {
                count(s);
                7
            }
            Term::Redist(..) => 8,
        };
        self.kinds[kind] += 1;
        t.children().into_iter().for_each(|c| self.add(c));
    }
}

#[test]
fn const_models_agree_with_the_runtime_models_on_random_designs() {
    let (mut compared, mut skipped) = (0usize, 0usize);
    let (mut worst_term, mut worst_normal) = (0.0f64, 0.0f64);
    let mut coverage = Coverage::default();
    for case in CASES {
        let design = Design::parse(case.text)
            .unwrap_or_else(|e| panic!("the text of `{}` does not parse: {e}", case.ty));
        let term = (case.term)();
        // The type's term is the text's term, and well-formed.
        assert_eq!(
            term.to_string(),
            design.term().to_string(),
            "{}\n{}",
            case.ty,
            case.text
        );
        Design::from_term(term.clone())
            .unwrap_or_else(|e| panic!("`{}` is not well-formed: {e}", case.ty));
        coverage.add(&term);
        let (raw, normal) = (Throughput::new().expr(design.term()), design.model());
        for (point, &at_compile_time) in case.points.iter().zip(case.at_compile_time) {
            let bindings: Vec<(&str, f64)> = VARIABLES.iter().copied().zip(*point).collect();
            // The compiler's evaluation is the run-time evaluation of the
            // same const fn.
            let at_run_time = (case.cost)(&bindings);
            assert!(
                at_compile_time.to_bits() == at_run_time.to_bits()
                    || (at_compile_time.is_nan() && at_run_time.is_nan()),
                "{}: {at_compile_time} at compile time, {at_run_time} at run time",
                case.ty
            );
            let Ok(expected) = raw.eval(&bindings) else {
                skipped += 1;
                continue;
            };
            if !expected.is_finite() {
                skipped += 1;
                continue;
            }
            let by_term = relative(at_compile_time, expected);
            assert!(
                by_term <= TERM_TOLERANCE,
                "const {at_compile_time} vs runtime {expected} (relative {by_term:e}) at {bindings:?}\ntype: {}\ntext:\n{}",
                case.ty,
                case.text
            );
            let in_normal_form = normal.eval(&bindings).unwrap_or_else(|e| {
                panic!(
                    "the normal form is not finite where the term's model is ({expected}): {e}\n{}",
                    case.text
                )
            });
            let by_normal = relative(at_compile_time, in_normal_form);
            assert!(
                by_normal <= NORMAL_FORM_TOLERANCE,
                "const {at_compile_time} vs normal form {in_normal_form} (relative {by_normal:e}) at {bindings:?}\ntype: {}\ntext:\n{}\nnormal form: {normal}",
                case.ty,
                case.text
            );
            worst_term = worst_term.max(by_term);
            worst_normal = worst_normal.max(by_normal);
            compared += 1;
        }
    }
    let total = compared + skipped;
    println!(
        "seed {SEED}: {} designs, {total} points: {compared} compared, {skipped} skipped (not finite); \
         largest relative difference {worst_term:e} to the term's model, {worst_normal:e} to its normal form",
        CASES.len()
    );
    for (kind, n) in KINDS.iter().zip(coverage.kinds) {
        println!("  {kind}: {n}");
    }
    println!(
        "  counts: {} fixed, {} named",
        coverage.fixed, coverage.named
    );
    // Most points are compared, and a full run covers every pattern with
    // fixed and named counts.
    assert!(compared >= total * 3 / 4, "{skipped} of {total} skipped");
    if CASES.len() >= 100 {
        for (kind, n) in KINDS.iter().zip(coverage.kinds) {
            assert!(n >= 10, "only {n} `{kind}` in {} designs", CASES.len());
        }
        assert!(coverage.fixed >= 50 && coverage.named >= 50);
    }
}

/// `1000 / p` on groups of `floor(p/3)` processors.
struct Share;
impl CostModel for Share {
    const NAME: &'static str = "share";
    const MODEL: ConstExpr = ConstExpr::Div(&ConstExpr::Num(1000.0), &ConstExpr::Var("p"));
}

/// The normal form keeps `floor(p/3)` unrounded: rounding `1/3` to 12
/// digits (`floor(20.99999999998) = 20`) dropped a processor at every
/// multiple of 3, where the const model and the term's model give 21.
#[test]
fn groups_of_three_in_normal_form() {
    type D = Groups<Fixed<3>, Share>;
    let design = D::design().unwrap();
    let at = [("p", 63.0)];
    let by_type = cost_with::<D>(&at);
    assert_eq!(by_type, 1000.0 / 21.0);
    assert!(
        relative(
            by_type,
            Throughput::new().expr(design.term()).eval(&at).unwrap()
        ) <= TERM_TOLERANCE
    );
    assert!(relative(by_type, design.model().eval(&at).unwrap()) <= NORMAL_FORM_TOLERANCE);
}
