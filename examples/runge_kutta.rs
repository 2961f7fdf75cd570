//! The iterated Runge–Kutta method of seed 004 §4 on the Cray T3E and the
//! CLiC cluster: the consecutive (pure data parallel) and the group (mixed
//! task and data parallel) implementations written as designs of
//! multi-processor tasks, their communications resolved against each
//! machine's profile (with contention inside the concurrent groups), and for
//! which p and n each one wins. Run with
//! `cargo run --release --example runge_kutta`.
use pattern_core::comm::MachineProfile;
use pattern_core::paper::{rk_consecutive, rk_group};
use pattern_core::semantics::Throughput;
use pattern_core::{Design, Expr};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("Iterated RK (RadauIIA, s = 4 stages, m = 6 iterations); one time step, μs.");
    println!(
        "consecutive: {}",
        Design::parse(&rk_consecutive("multibcast"))?.term()
    );
    println!(
        "group:       {}\n",
        Design::parse(&rk_group("multibcast"))?.term()
    );

    // Per machine: the time of one arithmetic operation (μs) and the
    // multi-broadcast variant whose coefficients stay positive over the
    // range (seed 004 Table 3: MultiBcast on the T3E, MultiBcast_P on the
    // CLiC). Two ODE classes: sparse (T_f fixed) and dense (T_f grows with n).
    let machines = [
        (MachineProfile::t3e(), 1.0 / 600.0, "multibcast"),
        (MachineProfile::clic(), 1.0 / 200.0, "multibcast_p"),
    ];
    let sizes = [242.0, 1922.0, 5202.0, 16562.0, 100_000.0];
    let processors = [8.0, 16.0, 32.0, 64.0, 128.0];
    for (machine, t_op, multibroadcast) in &machines {
        let consecutive = Design::parse(&rk_consecutive(multibroadcast))?;
        let group = Design::parse(&rk_group(multibroadcast))?;
        let dp = consecutive.model_by(&Throughput::new().machine(machine))?;
        let gp = group.model_by(&Throughput::new().machine(machine))?;
        for (class, t_f) in [
            ("sparse", Expr::num(20.0 * t_op)),
            ("dense", Expr::var("n") * *t_op),
        ] {
            println!(
                "{} ({multibroadcast}) — {class} ODE system (T_f = {:.3}): group time / consecutive time",
                machine.name, t_f
            );
            print!("{:>9}", "n \\ p");
            for p in processors {
                print!("{p:>12}");
            }
            println!();
            for n in sizes {
                print!("{n:>9}");
                for p in processors {
                    let tf = t_f.eval(&[("n", n)])?;
                    let at = [
                        ("n", n),
                        ("p", p),
                        ("s", 4.0),
                        ("m", 6.0),
                        ("t_op", *t_op),
                        ("T_f", tf),
                    ];
                    let (d, g) = (dp.eval(&at)?, gp.eval(&at)?);
                    let mark = if g < d { "group" } else { "consec" };
                    print!("{:>6.2} {mark:<5}", g / d);
                }
                println!();
            }
            println!();
        }
    }
    println!(
        "(< 1: the group implementation wins. Its multi-broadcasts run on groups of p/4, so they pay p/4 startups\n\
         instead of p, but their byte-transfer time is multiplied by the machine's contention factor C(p, b).)"
    );
    Ok(())
}
