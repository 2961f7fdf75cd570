//! The fuzz targets: an input generator and what is run on each input.
//! A target returns `Err` for a broken invariant; panics, aborts and hangs
//! are the driver's to catch.

use crate::exact_sum::exact_sum_sign;
use crate::extrap::{self, experiment_read};
use crate::generate;
use pattern_core::Func;
use pattern_core::comm::MachineProfile;
use pattern_core::fit::extrap_io::Experiment;
use pattern_core::machine::Machine;
use pattern_core::prelude::*;
use pattern_core::queue::{Network, Solution};
use pattern_core::sim::{Shuffle, Simulation};

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// One fuzz target.
pub struct Target {
    /// Its name on the command line.
    pub name: &'static str,
    /// What it reads and runs, for `--list`.
    pub about: &'static str,
    /// A random input.
    pub input: fn(&mut ChaCha8Rng) -> String,
    /// Runs the input through the entry point and what follows it.
    pub run: fn(&str, &mut ChaCha8Rng) -> Result<(), String>,
}

/// Every target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "expr",
        about: "Expr::parse, then simplify, canonical, growth, compile, eval and printing",
        input: |rng| mutated(rng, |rng| generate::expr(rng, 5)),
        run: run_expr,
    },
    Target {
        name: "design",
        about: "Design::parse, then check, model, model_asymptotic, latency, resources, queueing and a short simulation",
        input: |rng| mutated(rng, generate::design),
        run: run_design,
    },
    Target {
        name: "extrap-text",
        about: "Experiment::read_text (Extra-P's text format), then a fit of small data",
        input: |rng| mutated(rng, generate::extrap_text),
        run: |text, _| experiment_read(Experiment::read_text(text)),
    },
    Target {
        name: "extrap-json",
        about: "Experiment::read_json (current, legacy and JSON Lines), then a fit of small data",
        input: |rng| mutated(rng, generate::extrap_json),
        run: |text, _| experiment_read(Experiment::read_json(text)),
    },
    Target {
        name: "extrap-experiment",
        about: "Experiment::to_extrap_bytes of a text experiment with its models, read back whole, then with bytes flipped or cut",
        input: generate::extrap_text,
        run: extrap::run_extrap_experiment,
    },
    Target {
        name: "extrap-3",
        about: "Experiment::read_extrap3_bytes of a text experiment written in Extra-P 3's binary format (either byte order), read back whole, then with bits flipped or cut",
        input: generate::extrap_text,
        run: extrap::run_extrap3,
    },
    Target {
        name: "extrap-cube",
        about: "Experiment::read_cube of random CUBE runs (call trees, metrics of every dtype and kind, locations, compressed, big-endian, gzipped anchors), then with bytes of one profile flipped or cut",
        input: |rng| format!("{}\n", rng.random::<u64>()),
        run: extrap::run_extrap_cube,
    },
    Target {
        name: "profile",
        about: "MachineProfile::from_json, then a design modelled on the machine",
        input: |rng| mutated(rng, generate::profile),
        run: run_profile,
    },
    Target {
        name: "machine",
        about: "Machine::from_json, then the file read back, a flow graph simulated and a design priced on it",
        input: |rng| mutated(rng, generate::machine),
        run: run_machine,
    },
    Target {
        name: "queue",
        about: "a closed network (the driver's line format), then mva, mva_approx, sweep and bounds",
        input: |rng| mutated(rng, generate::network),
        run: run_queue,
    },
    Target {
        name: "network",
        about: "the network files of `pattern mva` (its reader, src/cli/network.rs), then mva, mva_approx, sweep and bounds",
        input: |rng| mutated(rng, generate::network_file),
        run: run_network,
    },
    Target {
        name: "jmva",
        about: "JMT's JMVA models as `pattern mva` reads them (src/cli/jmva), written back and read again, solved exactly and approximately",
        input: crate::jmva::input,
        run: crate::jmva::run,
    },
    Target {
        name: "cli",
        about: "the command line in process: random argument lists over its subcommands and options, on generated files",
        input: crate::cli::input,
        run: crate::cli::run,
    },
    Target {
        name: "serde",
        about: "serde_json of Expr, then the expression operations",
        input: |rng| {
            let e = generate::expr(rng, 4);
            let json = serde_json::to_string(&e).expect("a string serializes");
            if rng.random_bool(0.5) {
                json
            } else {
                generate::mutate(rng, &json)
            }
        },
        run: |text, rng| match serde_json::from_str::<Expr>(text) {
            Ok(e) => expr_operations(&e, rng),
            Err(_) => Ok(()),
        },
    },
];

/// The driver's own check, not in `all`: input 1 panics, 2 aborts (a
/// stack overflow), 3 hangs, 4 breaks an invariant, the others pass.
pub const SELF_TEST: Target = Target {
    name: "selftest",
    about: "the driver's check: input 1 panics, 2 aborts, 3 hangs, 4 breaks an invariant",
    input: |_| String::new(),
    run: |_, rng| {
        let index = rng.get_stream() & 0xffff_ffff_ffff;
        match index {
            1 => panic!("a planted panic"),
            2 => {
                fn overflow(n: u64) -> u64 {
                    if n == u64::MAX {
                        return 0;
                    }
                    std::hint::black_box(overflow(std::hint::black_box(n + 1))) + 1
                }
                let _ = overflow(0);
                Ok(())
            }
            3 => loop {
                std::thread::sleep(std::time::Duration::from_millis(100));
            },
            4 => Err("a planted invariant".into()),
            _ => Ok(()),
        }
    },
};

/// Half the inputs well-formed, half mutated.
fn mutated(rng: &mut ChaCha8Rng, make: impl Fn(&mut ChaCha8Rng) -> String) -> String {
    let text = make(rng);
    if rng.random_bool(0.5) {
        text
    } else {
        generate::mutate(rng, &text)
    }
}

fn run_expr(text: &str, rng: &mut ChaCha8Rng) -> Result<(), String> {
    match Expr::parse(text) {
        Ok(e) => expr_operations(&e, rng),
        Err(_) => Ok(()),
    }
}

/// A point with every variable of `e` in `[0.5, 1000)`.
fn point(e: &Expr, rng: &mut ChaCha8Rng) -> Vec<(String, f64)> {
    e.vars()
        .into_iter()
        .map(|v| (v, rng.random_range(0.5..1000.0)))
        .collect()
}

fn bindings(point: &[(String, f64)]) -> Vec<(&str, f64)> {
    point.iter().map(|(v, x)| (v.as_str(), *x)).collect()
}

/// Whether `e` has no value at `at` only because a sub-expression's value
/// is beyond `f64` (`(x + 1)^576` at x = 800, `0·1e308·1e308`), not because
/// it has none (`1/0`, `log2(0)`, `sqrt(-1)`, a machine call without a
/// profile): the innermost failing sub-expression is a sum, a product or a
/// power of values, not a zero or a negative number raised to a power that
/// has no value for it, or a call or a power failing only at a zero that
/// is an underflow ([`underflows`]: `ln((1/y)^8192)`, `n/c^x` with a tiny
/// `c`). The normal form may have a value there
/// (`log2((x + 1)^576) = 576·log2(x + 1)`), as the function does
/// (docs/reliability.md, Values). Parsed input is at most 100 deep.
fn overflows_only(e: &Expr, at: &[(&str, f64)]) -> bool {
    let fails = |c: &&Expr| c.eval(at).is_err();
    match e {
        Expr::Add(items) | Expr::Mul(items) => match items.iter().find(fails) {
            Some(inner) => overflows_only(inner, at),
            None => true,
        },
        Expr::Pow(base, exponent) => match [&**base, &**exponent].into_iter().find(fails) {
            Some(inner) => overflows_only(inner, at),
            None => match (base.eval(at), exponent.eval(at)) {
                (Ok(0.0), Ok(k)) => {
                    // The base is tiny, not zero: its power has a value
                    // if a negative one has it (an integer exponent).
                    underflows(base, at).is_some_and(|positive| positive || k.fract() == 0.0)
                }
                (Ok(b), Ok(k)) => !b.powf(k).is_nan(),
                _ => false,
            },
        },
        Expr::Call(_, args) => match args.iter().find(fails) {
            Some(inner) => overflows_only(inner, at),
            // A logarithm (or its base) of a tiny positive number has a
            // value; of a tiny negative one it has none.
            None => args
                .iter()
                .any(|a| a.eval(at).is_ok_and(|v| v == 0.0) && underflows(a, at) == Some(true)),
        },
        _ => false,
    }
}

/// Whether `e` is 0 at `at` only because its true value, nonzero, passed
/// below `f64`: `Some(positive)` with that value's sign, `None` when it
/// may truly be 0. A product or a power of finite nonzero values (or of
/// such underflows) has the sign of its zero; a sum is one when the exact
/// sum of its terms' values is not 0 (`x - 1e-134 - x`: only rounding
/// cancelled it), with that sum's sign; a `min` or `max` is one when every
/// argument that is 0 is one of the zero's sign (`min(5e-324/p, y)`).
fn underflows(e: &Expr, at: &[(&str, f64)]) -> Option<bool> {
    let nonzero = |c: &Expr| match c.eval(at) {
        Ok(v) => v != 0.0 || underflows(c, at).is_some(),
        Err(_) => false,
    };
    let zero = match e.eval(at) {
        Ok(v) if v == 0.0 => v,
        _ => return None,
    };
    let positive = zero.is_sign_positive();
    match e {
        Expr::Mul(items) => items.iter().all(nonzero).then_some(positive),
        Expr::Pow(base, exponent) => {
            (nonzero(base) && exponent.eval(at).is_ok()).then_some(positive)
        }
        Expr::Add(items) => {
            let values: Result<Vec<f64>, _> = items.iter().map(|i| i.eval(at)).collect();
            match exact_sum_sign(values.ok()?)? {
                0.0 => None,
                sign => Some(sign > 0.0),
            }
        }
        Expr::Call(Func::Min | Func::Max, args) => args
            .iter()
            .all(|a| match a.eval(at) {
                Ok(0.0) => underflows(a, at) == Some(positive),
                Ok(_) => true,
                Err(_) => false,
            })
            .then_some(positive),
        _ => None,
    }
}

/// Everything done to an expression; the invariant checked is that its
/// printed forms parse back to the same value.
pub fn expr_operations(e: &Expr, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let point = point(e, rng);
    let at = bindings(&point);
    let value = e.eval(&at);
    let simplified = e.simplify();
    if let (Err(_), Ok(v)) = (&value, simplified.eval(&at)) {
        if overflows_only(e, &at) {
            // The function has a value there, beyond `f64` on the way.
        } else {
            return Err(format!(
                "`{e}` has no value at {at:?}, its simplified form `{simplified}` has {v}"
            ));
        }
    }
    let again = simplified.simplify();
    if again != simplified {
        return Err(format!(
            "simplify is not idempotent: `{e}` → `{simplified}` → `{again}`"
        ));
    }
    let _ = e.canonical().eval(&at);
    for (v, _) in &point {
        let _ = e.growth(v);
    }
    let names: Vec<&str> = point.iter().map(|(v, _)| v.as_str()).collect();
    if let Ok(compiled) = e.compile(&names) {
        let values: Vec<f64> = point.iter().map(|(_, x)| *x).collect();
        let _ = compiled.eval(&values);
    }
    let _ = e.latex().to_string();
    for text in [e.to_string(), format!("{e:#}")] {
        // A number without a value prints as text the parser refuses.
        let back = match Expr::parse(&text) {
            Ok(back) => back,
            Err(_) if value.is_err() => continue,
            Err(err) => return Err(format!("`{text}` does not parse back: {err}")),
        };
        let again = back.eval(&at);
        let same = match (&value, &again) {
            (Ok(a), Ok(b)) => a.to_bits() == b.to_bits(),
            (a, b) => a.is_err() == b.is_err(),
        };
        if !same {
            return Err(format!(
                "`{text}` parses back to another value: {value:?} then {again:?} at {at:?}"
            ));
        }
    }
    Ok(())
}

fn run_design(text: &str, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let Ok(design) = Design::parse(text) else {
        return Ok(());
    };
    design
        .term()
        .check()
        .map_err(|e| format!("a parsed design fails its check: {e}"))?;
    let model = design.model();
    let _ = model.eval(&bindings(&point(&model, rng)));
    let _ = design.model_asymptotic();
    let _ = design.latency();
    let resources = design.resources();
    let _ = resources
        .threads
        .eval(&bindings(&point(&resources.threads, rng)));
    if rng.random_bool(0.25) {
        let take = rng.random_range(0.0..100.0);
        let machine = Machine::new(1, rng.random_range(0..5)).with_waiting(|w| w.take_ns(take));
        let mut at = point(&model, rng);
        at.extend(
            ["n", "threads", "g", "p"].map(|c| (c.to_string(), rng.random_range(1..9u32) as f64)),
        );
        if let Ok(p) = design.queueing(&machine, &bindings(&at))
            && (p.time_per_element.is_nan() || p.time_per_element < 0.0)
        {
            return Err(format!("a queueing prediction of {}", p.time_per_element));
        }
    }
    if rng.random_bool(0.25) {
        simulate(&design, &model, rng)?;
    }
    Ok(())
}

/// A short simulation of `design` on a random small machine: an error is
/// fine, a result must be a time.
fn simulate(design: &Design, model: &Expr, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let (pinned, take, handoff) = (
        rng.random_bool(0.5),
        rng.random_range(0.0..50.0),
        rng.random_range(0.0..50.0),
    );
    let machine = Machine::new(rng.random_range(1..5), rng.random_range(1..4))
        .with_waiting(|w| w.pinned(pinned).take_ns(take).handoff_ns(handoff))
        .latency(rng.random_range(0.0..100.0))
        .bandwidth(rng.random_range(0.1..10.0));
    let mut at = point(model, rng);
    at.extend(
        ["n", "m", "threads", "g", "p"].map(|c| (c.to_string(), rng.random_range(1..5u32) as f64)),
    );
    let shuffle = if rng.random_bool(0.5) {
        Shuffle::Model
    } else {
        Shuffle::BytesPerKey(rng.random_range(0.0..64.0))
    };
    let run = Simulation::new(design, &machine)
        .at(&bindings(&at))
        .elements(rng.random_range(1..20))
        .transfer_cpu(rng.random_range(0.0..0.5))
        .shuffle(shuffle)
        .run();
    if let Ok(r) = run {
        let (makespan, each) = (r.makespan(), r.time_per_element());
        if !(makespan.is_finite() && makespan >= 0.0 && each.is_finite() && each >= 0.0) {
            return Err(format!(
                "a simulation of makespan {makespan}, {each} per element"
            ));
        }
    }
    Ok(())
}

/// Builds a network from the driver's line format; `None` for a line it
/// does not read (the solvers' errors are what is fuzzed, not this).
fn network(text: &str) -> Option<(Network, usize)> {
    let mut lines = text.lines();
    let population: usize = lines.next()?.trim().parse().ok()?;
    let mut net = Network::new();
    for line in lines {
        let w: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| w.get(i).and_then(|v| v.parse::<f64>().ok());
        net = match (w.first().copied(), w.get(1).map(|s| s.to_string())) {
            (Some("queue"), Some(name)) => net.queue(name, num(2)?),
            (Some("delay"), Some(name)) => net.delay(name, num(2)?),
            (Some("multi"), Some(name)) => net.multi_server(name, w.get(2)?.parse().ok()?, num(3)?),
            (Some("ld"), Some(name)) => {
                let rates: Vec<f64> = w
                    .get(3)?
                    .split(',')
                    .filter_map(|r| r.parse().ok())
                    .collect();
                if rates.is_empty() {
                    return None;
                }
                net.load_dependent(name, num(2)?, move |n| rates[(n - 1) % rates.len()])
            }
            _ => return None,
        };
    }
    Some((net, population))
}

/// Every figure a finite number, Little's law at every station and all
/// jobs somewhere.
fn check_solution(s: &Solution, what: &str) -> Result<(), String> {
    let n = s.population() as f64;
    let total: f64 = s.stations().map(|(_, r)| r.queue_length).sum();
    let finite = s.throughput().is_finite()
        && s.stations().all(|(_, r)| {
            r.queue_length.is_finite() && r.residence_time.is_finite() && r.utilization.is_finite()
        });
    if !finite {
        return Err(format!("{what}: a figure is not a number: {s:?}"));
    }
    if (total - n).abs() > 1e-6 * n.max(1.0) {
        return Err(format!(
            "{what}: {total} jobs at the stations, population {n}"
        ));
    }
    Ok(())
}

fn run_queue(text: &str, _: &mut ChaCha8Rng) -> Result<(), String> {
    let Some((net, population)) = network(text) else {
        return Ok(());
    };
    solve(&net, population)
}

/// A network file as `pattern mva` reads it, solved at its population (or
/// at 1–300 jobs when it gives none).
fn run_network(text: &str, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let Ok(spec) = pattern::cli::network::parse("fuzz.json", text) else {
        return Ok(());
    };
    let population = spec.population.unwrap_or_else(|| rng.random_range(1..300));
    solve(&spec.network, population)
}

/// The exact and approximate solutions, the sweep and the bounds of `net`:
/// errors or checked figures.
fn solve(net: &Network, population: usize) -> Result<(), String> {
    // The exact solvers' time grows with N: a population beyond what a
    // fuzz input may take goes to the approximation and the bounds alone.
    if population <= 20_000 {
        if let Ok(s) = net.mva(population) {
            check_solution(&s, "mva")?;
        }
        if let Ok(sweep) = net.sweep(population.min(2_000))
            && let Some(s) = sweep.at(sweep.len())
        {
            check_solution(&s, "sweep")?;
        }
    }
    if let Ok(s) = net.mva_approx(population) {
        check_solution(&s, "mva_approx")?;
    }
    let _ = net.bounds(population);
    Ok(())
}

fn run_profile(text: &str, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let Ok(profile) = MachineProfile::from_json(text) else {
        return Ok(());
    };
    let design = Design::parse("a = x / p + send(8 * x); b = 2 * x; on[16](pipe(a, tpool[4](b)))")
        .map_err(|e| e.to_string())?;
    if let Ok(model) = design.model_by(&Throughput::new().machine(&profile)) {
        expr_operations(&model, rng)?;
    }
    Ok(())
}

/// A machine read is valid and reads back equal; a few transfers and a
/// pipeline on it are an error or times, never a panic.
fn run_machine(text: &str, rng: &mut ChaCha8Rng) -> Result<(), String> {
    let Ok(machine) = Machine::from_json(text) else {
        return Ok(());
    };
    machine
        .check()
        .map_err(|e| format!("a machine read fails its check: {e}"))?;
    let back = Machine::from_json(&machine.to_json()).map_err(|e| e.to_string())?;
    if back != machine {
        return Err(format!("{machine:?} reads back as {back:?}"));
    }
    let _ = machine.summary();
    let nodes = machine.nodes().min(8);
    let mut graph = pattern_core::sim::TaskGraph::new();
    for _ in 0..rng.random_range(1..6) {
        let (from, to) = (rng.random_range(0..nodes), rng.random_range(0..nodes));
        let step = graph.compute(from, rng.random_range(0.0..100.0), &[]);
        graph.transfer(from, to, rng.random_range(0.0..100.0), &[step]);
    }
    if let Ok(r) = Simulation::graph(&graph, &machine).run()
        && (r.makespan().is_nan() || r.makespan() < 0.0)
    {
        return Err(format!("a makespan of {}", r.makespan()));
    }
    let design =
        Design::parse("a = 10; b = 30; pipe(a, tpool[3](b))").map_err(|e| e.to_string())?;
    if let Ok(p) = design.queueing(&machine, &[]) {
        let bound = 30.0 / 3.0 * (1.0 - 1e-9) / machine.node_speed(0);
        if p.time_per_element.is_nan() || p.time_per_element < bound {
            return Err(format!(
                "a queueing time of {} below the pool's bound",
                p.time_per_element
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exempt(text: &str, at: &[(&str, f64)]) -> bool {
        let e = Expr::parse(text).unwrap();
        assert!(e.eval(at).is_err(), "{text}");
        overflows_only(&e, at)
    }

    /// A zero that is an underflow of nonzero values stands for a tiny
    /// value of its sign: the function has a value where that one has.
    #[test]
    fn underflows_of_nonzero_values_are_exempt_and_no_more() {
        let y = [("y", 503.87), ("n", 537.9), ("x", 800.6)];
        assert!(exempt("ln(((1/y)^8)^1024)", &y));
        assert!(exempt("n/(8.144896939588002e-297^x)", &y));
        assert!(exempt("log(y, (1/x)^1024)", &y));
        assert!(exempt("log2(((p + 1)^9)^64)", &[("p", 800.0)]));
        assert!(exempt(
            "56/(p^0.5/min(63/p*5e-324, y))",
            &[("p", 851.4), ("y", 47.2)]
        ));
        // A tiny negative value has no logarithm, a cancelled sum is 0,
        // and a literal zero is no underflow.
        assert!(!exempt("ln(-((1/y)^8)^1024)", &y));
        assert!(!exempt("ln(y - y)", &y));
        assert!(!exempt("n/(0*y)", &y));
        assert!(!exempt("ln(-y)", &y));
        assert!(!exempt("1/min(y, 0*x)", &y));
        assert!(!exempt("1/max((1/y)^1024, -y*0)", &y));
        // A sum that rounding alone cancelled has a value of the sign of
        // its exact sum; one that truly cancels has none.
        assert!(exempt("1/(x - 1e-134 - x)", &y));
        assert!(exempt("ln(x + 1e-134 - x)", &y));
        assert!(!exempt("ln(x - 1e-134 - x)", &y));
        assert!(!exempt("1/(x + 2 - 2 - x)", &y));
        assert!(!exempt("ln(y/2 + y/2 - y)", &y));
    }
}
