//! The paper's operators evaluated for cores that run at different speeds.
//!
//! On a shared virtual machine each core has its own speed at any moment:
//! on the 2-core CI machine the time of a memory-bound reference kernel
//! switched between about 40 µs and 60 µs on each core *independently* (one
//! core slow while the other was fast in about a third of the readings),
//! probably because other guests share the physical cores. A probe read on
//! one core then says nothing about a thread on the other. Pinned, the
//! executor's threads run on known cores ([`Executor::pin_threads`]), each
//! core's speed can be read where the work runs, and
//! [`time_at_core_speeds`] says what the design's time per element is when
//! core `k` runs `slowdown[k]` times slower than at the reference.
//!
//! The rule that places threads: the design's threads are numbered in the
//! order of its text (left to right; a pool's workers one after another; a
//! `seq`'s parts on the thread of the `seq`), and thread `i` runs on core
//! `i mod cores` ([`Cores::core_of_thread`]); [`threads_of`] counts them.

#[cfg(doc)]
use pattern_core::exec::{Cores, Executor};
use pattern_core::{Count, EvalError, Term};

/// How many threads the executor runs for `term` at once, with the counts
/// bound in `env`: an atom or a `seq` of atoms 1; `seq(a, b)` the larger of
/// its parts (they run one after the other); `pipe(a, b)` the sum;
/// `tpool[n](t)` `n` times `t`'s; a mapReduce its `n`.
pub fn threads_of(term: &Term, env: &[(&str, f64)]) -> Result<usize, EvalError> {
    Ok(match term {
        Term::Atom(_) => 1,
        Term::Seq(a, b) => threads_of(a, env)?.max(threads_of(b, env)?),
        Term::Pipe(a, b) => threads_of(a, env)?.saturating_add(threads_of(b, env)?),
        Term::Tpool(n, t) => count(n, env)?.saturating_mul(threads_of(t, env)?),
        Term::MapReduce { params, .. } => count(&params.n, env)?,
        // Processor groups are not threads; one stands for the whole.
        Term::On(..) | Term::Par(..) | Term::Groups(..) | Term::Redist(..) => 1,
    })
}

fn count(c: &Count, env: &[(&str, f64)]) -> Result<usize, EvalError> {
    let value = c.to_expr().eval(env)?;
    Ok(value.round().max(1.0) as usize)
}

/// The time per element of `term` (with the counts and `x` bound in `env`)
/// when the core at position `k` runs `slowdown[k]` times slower than the
/// speed its atoms' models were measured at, the threads placed by the
/// executor's rule ([`Cores::core_of_thread`]).
///
/// These are the paper's operators with each atom on its own core: an atom
/// costs its model times its core's slowdown; `seq` adds its parts (run on
/// the same threads, one after the other); `pipe` takes the slower stage;
/// `tpool[n](t)` adds the workers' rates, `1 / Σ 1/M_w[t]` (with equal
/// slowdowns, `M[t]/n`); a mapReduce (whose workers share the phases) and
/// the processor-group patterns take their model times the mean slowdown of
/// the cores they use. Invariant: with every slowdown `s`, the result is `s`
/// times the design's model ([`Term::model`]).
pub fn time_at_core_speeds(
    term: &Term,
    env: &[(&str, f64)],
    slowdown: &[f64],
) -> Result<f64, EvalError> {
    let slowdown = if slowdown.is_empty() {
        &[1.0][..]
    } else {
        slowdown
    };
    at_speeds(term, env, slowdown, 0)
}

fn at_speeds(
    term: &Term,
    env: &[(&str, f64)],
    slowdown: &[f64],
    first: usize,
) -> Result<f64, EvalError> {
    let speed_of = |thread: usize| slowdown[thread % slowdown.len()];
    Ok(match term {
        Term::Atom(a) => a.model.eval(env)? * speed_of(first),
        Term::Seq(a, b) => {
            at_speeds(a, env, slowdown, first)? + at_speeds(b, env, slowdown, first)?
        }
        Term::Pipe(a, b) => {
            let second = first + threads_of(a, env)?;
            at_speeds(a, env, slowdown, first)?.max(at_speeds(b, env, slowdown, second)?)
        }
        Term::Tpool(n, t) => {
            let workers = count(n, env)?;
            let each = threads_of(t, env)?;
            let mut rate = 0.0;
            for w in 0..workers {
                rate += 1.0 / at_speeds(t, env, slowdown, first + w * each)?;
            }
            1.0 / rate
        }
        other => {
            let threads = threads_of(other, env)?;
            let mean = (first..first + threads).map(speed_of).sum::<f64>() / threads as f64;
            other.model().eval(env)? * mean
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pattern_core::Design;

    fn term(text: &str) -> Term {
        Design::parse(text).unwrap().term().clone()
    }

    #[test]
    fn threads_follow_the_executor() {
        let t = term("a = 1; b = 2; seq(pipe(a, b), tpool[n](a))");
        assert_eq!(threads_of(&t, &[("n", 3.0)]).unwrap(), 3);
        let t = term("a = 1; b = 2; pipe(pipe(a, b), tpool[2](pipe(a, b)))");
        assert_eq!(threads_of(&t, &[]).unwrap(), 6);
        assert!(threads_of(&term("a = 1; tpool[n](a)"), &[]).is_err());
    }

    #[test]
    fn equal_slowdowns_scale_the_model() {
        for text in [
            "a = 3 * x; b = 5; seq(a, b)",
            "a = 3 * x; b = 5; pipe(seq(a, b), tpool[3](a))",
            "a = 3 * x; b = 5; tpool[2](pipe(a, seq(b, a)))",
            "a = 3 * x; b = 5; seq(pipe(a, b), tpool[4](b))",
        ] {
            let t = term(text);
            let env = [("x", 7.0)];
            let model = t.model().eval(&env).unwrap();
            for s in [1.0, 1.45] {
                let got = time_at_core_speeds(&t, &env, &[s, s]).unwrap();
                assert!(
                    (got - s * model).abs() < 1e-9 * model,
                    "{text}: {got} vs {model}"
                );
            }
        }
    }

    #[test]
    fn threads_take_their_cores_speed() {
        // pipe(tpool[2](a), b): a's workers are threads 0 and 1, b thread 2
        // (on core 0 again with two cores).
        let t = term("a = 10; b = 6; pipe(tpool[2](a), b)");
        let got = time_at_core_speeds(&t, &[], &[2.0, 1.0]).unwrap();
        // Workers at 1/20 + 1/10 = 0.15 per ns; b on core 0 takes 12.
        assert!((got - 12.0).abs() < 1e-12, "{got}");
        // One core: everything on it.
        let got = time_at_core_speeds(&t, &[], &[2.0]).unwrap();
        assert!((got - 12.0).abs() < 1e-12, "{got}");
        // No slowdowns given: the model itself.
        assert_eq!(time_at_core_speeds(&t, &[], &[]).unwrap(), 6.0);
    }

    #[test]
    fn threads_of_a_pipeline_of_pools() {
        let d = Design::parse("a = 1; b = 2; pipe(tpool[3](seq(a, b)), a)").unwrap();
        assert_eq!(threads_of(d.term(), &[]).unwrap(), 4);
    }

    #[test]
    fn stages_and_workers_at_their_cores_speed() {
        let d = Design::parse("a = 10; b = 4; pipe(a, b)").unwrap();
        // Stage a runs on core 0, stage b on core 1.
        assert_eq!(
            time_at_core_speeds(d.term(), &[], &[1.0, 1.0]).unwrap(),
            10.0
        );
        assert_eq!(
            time_at_core_speeds(d.term(), &[], &[1.5, 1.0]).unwrap(),
            15.0
        );
        assert_eq!(
            time_at_core_speeds(d.term(), &[], &[1.0, 3.0]).unwrap(),
            12.0
        );
        let pool = Design::parse("a = 10; tpool[2](a)").unwrap();
        // Two workers at rates 1/10 and 1/20: 1 / (0.1 + 0.05).
        let t = time_at_core_speeds(pool.term(), &[], &[1.0, 2.0]).unwrap();
        assert!((t - 20.0 / 3.0).abs() < 1e-12, "{t}");
    }
}
