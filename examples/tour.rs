//! The flagship tour of `pattern`: the paper's atomic cost models parsed,
//! simplified to PMNF, evaluated and classified by growth; real functions
//! annotated with `#[cost]` and composed with `design!` into a design type
//! whose budget the compiler checks; designs written as terms of patterns
//! and lowered to their throughput, latency and resources; a refactoring
//! checked with the laws; a multi-processor design priced on the Cray T3E;
//! threads beyond the cores as a queueing network (seed 002); a flow graph
//! simulated on a cluster, its transfers sharing links (seed 003); a
//! design chosen: the exact thread counts under a budget against
//! RPL-shell's greedy rules, a crossover in closed form, the building block
//! to speed up first; one machine for every semantics, on which the three
//! lay a mapReduce out alike; annotations checked against their functions'
//! timings; and the errors a user sees. Run with `cargo
//! run --release --example tour`.
use pattern_core::comm::MachineProfile;
use pattern_core::compare::{Domain, compare};
use pattern_core::explore::allocation::{Allocator, GreedyRule, Pricing, greedy_gap};
use pattern_core::explore::crossover::{Span, design_crossovers};
use pattern_core::explore::sensitivity::speed_up_ranking;
use pattern_core::machine::Machine;
use pattern_core::paper::TABLE_1;
use pattern_core::queue::{MpiModel, MpiWorkload, Network};
use pattern_core::semantics::Throughput;
use pattern_core::sim::{Simulation, TaskGraph};
use pattern_core::{Design, Expr, cost, cost_budget, cost_of, cost_summary, design};

/// Sorts a block of elements.
#[cost("1034.17 * x * log2(x)")]
fn qsort(v: &mut [i32]) {
    v.sort_unstable();
}

/// Increments every element ten times.
#[cost("536.185 * x")]
fn inc(v: &mut [i32]) {
    for _ in 0..10 {
        v.iter_mut().for_each(|e| *e = e.wrapping_add(1));
    }
}

design!(
    /// qsort on a pool of 4 threads feeding inc.
    type Sorter = pipe(tpool[4](qsort), inc)
);
design!(type Pool = tpool[2](seq(qsort, inc)));

// Held to a budget of 6 s per element of 10^6 ints: the build fails if a
// change to the design or its atoms breaks it.
cost_budget!(Sorter, x = 1e6, max = 6e9);

cost_summary! {
    const SUMMARY = [Sorter, Pool] at x = [1024, 262144, 1e6];
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("Atomic models (seed 001, Table 1), in ns");
    println!(
        "{:<14} {:<20} {:<12} {:>16} {:>18}",
        "task", "model", "class", "x = 1024", "x = 262144"
    );
    for (name, text) in TABLE_1 {
        let model = Expr::parse(text)?.simplify();
        let class = model.growth("x").map_or("?".to_string(), |g| g.to_string());
        let compiled = model.compile(&["x"])?;
        println!(
            "{:<14} {:<20} {:<12} {:>16.1} {:>18.1}",
            name,
            model.to_string(),
            class,
            compiled.eval(&[1024.0]),
            compiled.eval(&[262144.0]),
        );
    }

    println!("\nA model fitted by Extra-P, pasted as printed:");
    let fitted = Expr::parse("-1487600.12 + 1039.05 * x^(1) * log2(x)^(1)")?;
    println!("  {fitted:#}\n  → {}", fitted.simplify());
    println!("  LaTeX: {}", fitted.simplify().latex());

    println!("\nSymbolic counts: qsort on a pool of n threads, Hadoop's shuffle on m nodes");
    let pool = Expr::parse("1034.17 * x * log2(x) / n")?;
    let shuffle = Expr::parse("(m*n - 1)/(m*n) * 12288 * x / 0.125")?;
    for (name, e) in [("tpool_n(qsort)", &pool), ("shuffle", &shuffle)] {
        let s = e.simplify();
        println!(
            "  {name:<15} {s}   vars {:?}, class in x {}",
            s.vars(),
            s.growth("x").map_or("?".into(), |g| g.to_string())
        );
    }
    let at = [("x", 262144.0), ("n", 4.0), ("m", 4.0)];
    println!(
        "  at x = 262144, n = 4, m = 4: {:.4e} ns and {:.4e} ns",
        pool.eval(&at)?,
        shuffle.eval(&at)?
    );

    println!("\nThe pipeline's asymptotic choice: max(qsort, inc, nop)");
    let pipe = Expr::parse("max(1034.17*x*log2(x), 536.185*x, 5422.97)")?;
    println!(
        "  pointwise {}\n  dominant  {}",
        pipe.simplify(),
        pipe.dominant("x")
    );

    println!("\nDesigns: terms of patterns over the atoms, lowered by the composition operators");
    let defs = "qsort = 1034.17*x*log2(x); inc = 536.185*x; nop = 5422.97;";
    for term in [
        "seq(qsort, inc, nop)",
        "pipe(tpool[4](qsort), inc, nop)",
        "tpool[2](seq(qsort, inc))",
        "pipe(tpool[n](qsort), tpool[n](inc))",
    ] {
        let d = Design::parse(&format!("{defs} {term}"))?;
        let r = d.resources();
        println!("  {term}");
        println!("    throughput  {}", d.model());
        println!("    paper's     {}", d.model_asymptotic());
        println!("    latency     {}", d.latency());
        println!("    threads     {}", r.threads);
    }
    let hadoop = Design::parse(
        "map = 3.529e7; reduce = 9376*x; shuffle = (m*n - 1)/(m*n) * 12288 * x / 0.125;
         mapreduce[m = m, n = n, d = x, k = 768](map, shuffle, reduce)",
    )?;
    println!(
        "  Hadoop's histogram (eqs. 5, 7) on m nodes of n threads: {}",
        hadoop.model()
    );
    for (m, n) in [(1.0, 1.0), (4.0, 12.0), (24.0, 24.0)] {
        let at = [("x", 24.0 * m), ("m", m), ("n", n)];
        println!(
            "    m = {m:>2}, n = {n:>2}, x = {:>3}: {:.3e} ns",
            24.0 * m,
            hadoop.model().eval(&at)?
        );
    }

    println!("\nAnnotated functions, composed with design!, checked by the compiler:");
    let mut block: Vec<i32> = (0..8).rev().collect();
    qsort(&mut block);
    inc(&mut block);
    println!("  qsort and inc run as written: {block:?}");
    println!(
        "  #[cost] recorded {} = {}",
        cost_of!(qsort).name,
        cost_of!(qsort).expr()
    );
    println!(
        "  Sorter = {} = {}",
        Sorter::term(),
        Sorter::model().simplify()
    );
    println!("  Pool   = {} = {}", Pool::term(), Pool::model().simplify());
    println!(
        "  Sorter at x = 1e6: {:.4e} ns per element (const; cost_budget! holds it under 6e9)",
        Sorter::cost_at(1e6)
    );
    println!("\n{SUMMARY}");

    println!("\nA refactoring checked with the laws (seed 001 §5):");
    let defs = "qsort = 1034.17*x*log2(x); inc = 536.185*x;";
    let before = Design::parse(&format!("{defs} pipe(qsort, inc)"))?;
    let after = Design::parse(&format!("{defs} tpool[2](seq(qsort, inc))"))?;
    let verdict = compare(&before, &after, &Domain::new())?;
    println!("  {} → {}: {verdict}", before.term(), after.term());

    println!("\nMulti-processor tasks on the Cray T3E (seed 004), microseconds:");
    let grid = Design::parse(
        "solve = 2e6 / p + allgather(p, 8 * 4096 / p);
         on[64](par[16, 48](solve, solve))",
    )?;
    let t3e = MachineProfile::t3e();
    let concurrent = grid.model_by(&Throughput::new().machine(&t3e))?;
    let alone = Design::parse("solve = 2e6 / p + allgather(p, 8 * 4096 / p); on[16](solve)")?;
    println!("  {} = {:.1} μs", grid.term(), concurrent.eval(&[])?);
    println!(
        "  the 16-processor group alone: {:.1} μs (no contention from the other group)",
        alone
            .model_by(&Throughput::new().machine(&t3e))?
            .eval(&[])?
    );

    println!(
        "\nThreads beyond the cores (seed 002): the design as a closed queueing network, MVA:"
    );
    let pool = Design::parse("qsort = 1034.17*x*log2(x); tpool[n](qsort)")?;
    let two_cores = Machine::new(1, 2).with_waiting(|w| w.handoff_ns(470.0).take_ns(115.0));
    for n in [1.0, 2.0, 4.0, 8.0] {
        let at = [("x", 16384.0), ("n", n)];
        println!(
            "  tpool[{n}](qsort) on 2 cores, x = 16384: operators {:>5.1} ms, queueing {:>5.1} ms",
            pool.model().eval(&at)? / 1e6,
            pool.queueing(&two_cores, &at)?.time_per_element / 1e6
        );
    }
    let net = Network::new()
        .multi_server("cpu", 300, 1.0)
        .queue("disk", 0.002)
        .delay("think", 0.1);
    let s = net.mva(400)?;
    println!(
        "  300 servers, 400 jobs (the textbook recursion gives a negative throughput here): X = {:.4}, bottleneck {}",
        s.throughput(),
        s.bottleneck()
    );
    let cluster = MpiModel {
        machine: Machine::new(4, 8),
        workload: MpiWorkload {
            sends: "2000*ln(n) + 8000".parse()?,
            message: "3e5*n^-0.6".parse()?,
            compute: 0.85,
            communicate: 0.15,
        },
        startup: 5e-6,
        per_word: 8e-9,
        cpu_constant: 3600.0,
        net_constant: 1.4,
    };
    let (stop, times) = cluster.saturation(64, 0.05)?;
    println!(
        "  an MPI code on 4 nodes of 8 cores: {:.0} s on 1 process, {:.1} s on {stop}; more stops paying there",
        times[0],
        times[stop - 1]
    );

    println!(
        "\nA flow graph simulated on 4 nodes of 2 cores (seed 003): node 0 scatters 8 MB blocks,"
    );
    println!(
        "  the others compute 2 ms on each and send it back; the scatter shares node 0's link:"
    );
    let mut g = TaskGraph::new();
    let prepare = g.compute(0, 1e6, &[]);
    let mut back = Vec::new();
    for node in 1..4 {
        let block = g.transfer(0, node, 8e6, &[prepare]);
        let work: Vec<_> = (0..2).map(|_| g.compute(node, 2e6, &[block])).collect();
        back.push(g.transfer(node, 0, 8e6, &work));
    }
    let merge = g.compute(0, 1e6, &back);
    let cluster = Machine::new(4, 2).latency(50_000.0).bandwidth(12.5);
    let r = Simulation::graph(&g, &cluster).run()?;
    println!(
        "  makespan {:.2} ms (each block alone on a link: {:.2} ms); node 0's link busy {:.0} % out, {:.0} % in",
        r.finish(merge) / 1e6,
        cluster.transfer_time(0, 1, 8e6) / 1e6,
        100.0 * r.link_utilization()[0].0,
        100.0 * r.link_utilization()[0].1
    );
    let efficiency: Vec<String> = r
        .dynamic_efficiency(r.makespan() / 6.0)
        .iter()
        .map(|(_, e)| format!("{:.0} %", 100.0 * e))
        .collect();
    println!(
        "  dynamic efficiency over sixths of the run: {}",
        efficiency.join(", ")
    );

    let stages = Design::parse("inc = 13000; pipe(inc, inc, inc)")?;
    let per_element = |p: &Machine| -> Result<f64, Box<dyn std::error::Error>> {
        Ok(Simulation::new(&stages, p)
            .elements(2000)
            .run()?
            .time_per_element())
    };
    println!(
        "  pipe of 3 stages of 13 µs on 2 cores: {:.1} µs per element with the cores shared, {:.1} µs pinned as the executor pins threads (one core holds two stages)",
        per_element(&Machine::new(1, 2))? / 1e3,
        per_element(&Machine::new(1, 2).with_waiting(|w| w.pinned(true)))? / 1e3
    );

    println!("\nChoosing a design: threads under a budget, crossovers, what to speed up first:");
    let stages = Design::parse(
        "qsort = 1034.17*x*log2(x); inc = 536.185*x; nop = 5422.97;
         pipe(tpool[a](qsort), tpool[b](inc), tpool[c](nop))",
    )?;
    let at = [("x", 1024.0)];
    let allocator = Allocator::new(&stages, 16).at(&at);
    let best = allocator.solve()?;
    let counts: Vec<String> = (best.allocation.counts.iter())
        .map(|(n, c)| format!("{n} = {c}"))
        .collect();
    println!(
        "  {} on 16 threads, x = 1024: best {} ({:.0} ns per element, {} evaluations)",
        stages.term(),
        counts.join(", "),
        best.allocation.time_per_element,
        best.evaluations
    );
    for rule in [GreedyRule::PipeBalance, GreedyRule::MaxResources] {
        let g = greedy_gap(&allocator, rule)?;
        println!(
            "  RPL-shell's {rule:?}: {} threads, {:.3}× the optimal time{}",
            g.greedy.threads,
            g.gap,
            if g.within_budget {
                ""
            } else {
                ", over the budget"
            }
        );
    }
    let defs = "qsort = 1034.17*x*log2(x); inc = 536.185*x;";
    let sorting = Design::parse(&format!("{defs} tpool[4](qsort)"))?;
    let incrementing = Design::parse(&format!("{defs} tpool[2](seq(inc, inc))"))?;
    let found = design_crossovers(
        &[sorting.clone(), incrementing.clone()],
        Span::new("x", 1.0, 1e12),
        &[],
    )?;
    for p in &found.points {
        println!(
            "  {} against {}: {:?} at x = {:.10} ({})",
            sorting.term(),
            incrementing.term(),
            p.kind,
            p.at,
            if p.closed_form {
                "closed form"
            } else {
                "numeric"
            }
        );
    }
    let first = speed_up_ranking(
        &stages,
        &[("x", 1024.0), ("a", 4.0), ("b", 2.0), ("c", 1.0)],
    )?;
    if let Some(top) = first.first() {
        println!(
            "  at a = 4, b = 2, c = 1, speed up {} first: twice as fast saves {:.0} ns per element",
            top.atom, top.gain
        );
    }

    one_machine()?;
    contracts()?;

    println!("\nErrors name what went wrong and where:");
    if let Err(e) = Expr::parse("1034.17 * x * log2(x") {
        println!("{e}");
    }
    if let Err(e) = Expr::parse("1034.17 * x * log2(x)")?.eval(&[("x", 0.0)]) {
        println!("  {e}");
    }
    for bad in [
        "qsort = 1034.17*x*log2(x);\npipe(qsort, sort)",
        "h = 1; s = x;\ntpool[4](mapreduce[n = 2, d = x, k = 768](h, s, h))",
        "qsort = x;\ntpool[0](qsort)",
    ] {
        if let Err(e) = Design::parse(bad) {
            println!("{e}");
        }
    }
    Ok(())
}

/// The paper's qsort, inc and nop annotated with this machine's models
/// (the paper's were its machine's), and a sort deliberately annotated
/// linear.
mod here {
    use pattern_core::cost;

    /// Sorts a shuffled block.
    #[cost("0.75 * x * log2(x)")]
    pub fn qsort(mut v: Vec<i32>) -> Vec<i32> {
        v.sort_unstable();
        v
    }

    /// The same sort, annotated as if it were one pass: the class too low.
    #[cost("11 * x")]
    pub fn qsort_linear(v: Vec<i32>) -> Vec<i32> {
        qsort(v)
    }

    /// Increments every element ten times.
    #[cost("0.68 * x")]
    pub fn inc(mut v: Vec<i32>) -> Vec<i32> {
        for _ in 0..10 {
            v.iter_mut().for_each(|e| *e = e.wrapping_add(1));
            std::hint::black_box(&mut v);
        }
        v
    }

    /// Returns its input.
    #[cost("2")]
    pub fn nop(v: Vec<i32>) -> Vec<i32> {
        v
    }
}

/// Annotations as contracts: each annotation of `here` checked against
/// the function's timings (the harness, the fitter, a tolerance of 25 %).
fn contracts() -> Result<(), Box<dyn std::error::Error>> {
    use pattern_core::check_cost;
    use rand::{SeedableRng, seq::SliceRandom};
    println!("\nAnnotations as contracts: #[cost] checked against the function's timings, ±25 %:");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut shuffled = |x: usize| {
        let mut v: Vec<i32> = (0..x as i32).collect();
        v.shuffle(&mut rng);
        v
    };
    let doublings = |from: u32, to: u32| (from..=to).map(|k| 1usize << k).collect::<Vec<_>>();
    let reports = [
        check_cost!(here::qsort, &mut shuffled, sizes = doublings(10, 18))?,
        check_cost!(here::inc, |x| vec![1i32; x], sizes = doublings(13, 18))?,
        check_cost!(here::nop, |x| vec![1i32; x], sizes = doublings(10, 16))?,
    ];
    for r in &reports {
        println!(
            "  {:<6} {:<18} {}: measured/annotated {:.2} to {:.2}; fitted {}",
            r.function, r.annotated, r.verdict, r.ratios.min, r.ratios.max, r.fitted
        );
    }
    let wrong = check_cost!(here::qsort_linear, &mut shuffled, sizes = doublings(10, 18))?;
    println!("  the sort annotated linear, caught:");
    // Down to the annotation to paste; the table of sizes is left out.
    let text = wrong.to_string();
    for line in text.lines() {
        println!("    {line}");
        if line.contains("to paste") {
            break;
        }
    }
    Ok(())
}

/// One machine, one answer: a mapReduce laid out on 8 nodes of 8 cores by
/// each semantics, and what the operators alone would choose.
fn one_machine() -> Result<(), Box<dyn std::error::Error>> {
    println!(
        "\nOne machine for every semantics: a mapReduce's m nodes of n workers on 8 nodes of 8 cores, x = 10^6:"
    );
    let job = Design::parse(
        "map = 3*x + 40; reduce = 2*x + 500; shuffle = 0.5*x + 7*o + 900;
         mapreduce[m = m, n = n, d = x/8, k = 64](map, shuffle, reduce)",
    )?;
    let cluster = Machine::new(8, 8).latency(1e3).bandwidth(1.25);
    let at = [("x", 1e6)];
    let blind = Allocator::new(&job, 64).at(&at).solve()?.allocation;
    let on_blind = job.assumptions(&cluster, &blind.bindings())?;
    println!(
        "  the operators on no machine: m = {}, n = {} ({})",
        blind.count("m").unwrap_or(0),
        blind.count("n").unwrap_or(0),
        on_blind.join("; ")
    );
    for pricing in [
        Pricing::Operators,
        Pricing::Queueing(cluster.clone()),
        Pricing::simulation(&cluster, 20),
    ] {
        let best = Allocator::new(&job, 64)
            .machine(&cluster)
            .at(&at)
            .pricing(pricing.clone())
            .solve()?
            .allocation;
        println!(
            "  {:<10} on the machine: m = {}, n = {}, {:.0} ns per element",
            pricing.name(),
            best.count("m").unwrap_or(0),
            best.count("n").unwrap_or(0),
            best.time_per_element
        );
    }
    Ok(())
}
