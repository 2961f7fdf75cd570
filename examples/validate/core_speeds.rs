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
//! `i mod cores` ([`Cores::core_of_thread`]); the library's one definition
//! of a design's threads ([`Footprint`]) counts them.

#[cfg(doc)]
use pattern_core::exec::{Cores, Executor};
use pattern_core::grammar::{Atom, Count, MapReduceParams, Scope, Semantics, fold};
use pattern_core::semantics::{Footprint, Resources, Throughput};
use pattern_core::{EvalError, Expr, Term};
use std::convert::Infallible;
use std::rc::Rc;

fn threads(r: &Resources, env: &[(&str, f64)]) -> Result<usize, EvalError> {
    let value = r.threads.eval(env)?;
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
/// times the design's model. It is a semantics of the library's fold,
/// combined with the throughput and footprint semantics.
pub fn time_at_core_speeds(
    term: &Term,
    env: &[(&str, f64)],
    slowdown: &[f64],
) -> Result<f64, EvalError> {
    let slowdown: Rc<[f64]> = if slowdown.is_empty() {
        Rc::from([1.0])
    } else {
        Rc::from(slowdown)
    };
    let env: Rc<[(String, f64)]> = env.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let placed = fold(term, &mut CoreSpeeds { env, slowdown })?;
    (placed.at)(0)
}

/// The time of a part when its first thread is thread `first`.
type AtThread = Rc<dyn Fn(usize) -> Result<f64, EvalError>>;

/// A part: its model and footprint, and its time by the thread it starts on.
#[derive(Clone)]
struct Placed {
    model: Expr,
    resources: Resources,
    at: AtThread,
}

struct CoreSpeeds {
    env: Rc<[(String, f64)]>,
    slowdown: Rc<[f64]>,
}

fn bindings(env: &[(String, f64)]) -> Vec<(&str, f64)> {
    env.iter().map(|(k, v)| (k.as_str(), *v)).collect()
}

fn never<T>(r: Result<T, Infallible>) -> T {
    r.unwrap_or_else(|never| match never {})
}

impl CoreSpeeds {
    fn speed(&self) -> impl Fn(usize) -> f64 + 'static {
        let slowdown = self.slowdown.clone();
        move |thread| slowdown[thread % slowdown.len()]
    }

    fn threads(&self, r: &Resources) -> Result<usize, EvalError> {
        threads(r, &bindings(&self.env))
    }

    /// A pattern whose threads share its work: its model times the mean
    /// slowdown of the cores it uses.
    fn shared(&self, model: Expr, resources: Resources) -> Result<Placed, EvalError> {
        let threads = self.threads(&resources)?;
        let (env, speed) = (self.env.clone(), self.speed());
        let m = model.clone();
        let at: AtThread = Rc::new(move |first| {
            let mean = (first..first + threads).map(&speed).sum::<f64>() / threads as f64;
            Ok(m.eval(&bindings(&env))? * mean)
        });
        Ok(Placed {
            model,
            resources,
            at,
        })
    }
}

impl Semantics for CoreSpeeds {
    type Value = Placed;
    type Error = EvalError;

    fn atom(&mut self, atom: &Atom, scope: &Scope) -> Result<Placed, EvalError> {
        let (env, speed) = (self.env.clone(), self.speed());
        let model = atom.model.clone();
        let at: AtThread = Rc::new(move |first| Ok(model.eval(&bindings(&env))? * speed(first)));
        Ok(Placed {
            model: never(Throughput::new().atom(atom, scope)),
            resources: never(Footprint.atom(atom, scope)),
            at,
        })
    }

    fn seq(&mut self, parts: Vec<Placed>, scope: &Scope) -> Result<Placed, EvalError> {
        let ats: Vec<AtThread> = parts.iter().map(|p| p.at.clone()).collect();
        let (models, resources) = split(parts);
        Ok(Placed {
            model: never(Throughput::new().seq(models, scope)),
            resources: never(Footprint.seq(resources, scope)),
            // One after the other, on the same threads.
            at: Rc::new(move |first| ats.iter().map(|at| at(first)).sum()),
        })
    }

    fn pipe(&mut self, stages: Vec<Placed>, scope: &Scope) -> Result<Placed, EvalError> {
        let mut placed = Vec::with_capacity(stages.len());
        let mut offset = 0usize;
        for stage in &stages {
            placed.push((offset, stage.at.clone()));
            offset = offset.saturating_add(self.threads(&stage.resources)?);
        }
        let (models, resources) = split(stages);
        Ok(Placed {
            model: never(Throughput::new().pipe(models, scope)),
            resources: never(Footprint.pipe(resources, scope)),
            // Each stage on its own threads; the slower decides.
            at: Rc::new(move |first| {
                placed
                    .iter()
                    .map(|(offset, at)| at(first + offset))
                    .try_fold(f64::NEG_INFINITY, |acc, t| Ok(acc.max(t?)))
            }),
        })
    }

    fn tpool(&mut self, n: &Count, body: Placed, scope: &Scope) -> Result<Placed, EvalError> {
        let workers = threads(
            &Resources {
                threads: n.to_expr(),
                nodes: Expr::num(1.0),
                threads_per_node: n.to_expr(),
            },
            &bindings(&self.env),
        )?;
        let each = self.threads(&body.resources)?;
        let at_body = body.at.clone();
        Ok(Placed {
            model: never(Throughput::new().tpool(n, body.model, scope)),
            resources: never(Footprint.tpool(n, body.resources, scope)),
            // The workers' rates add up.
            at: Rc::new(move |first| {
                let mut rate = 0.0;
                for w in 0..workers {
                    rate += 1.0 / at_body(first + w * each)?;
                }
                Ok(1.0 / rate)
            }),
        })
    }

    fn map_reduce(
        &mut self,
        params: &MapReduceParams,
        map: Placed,
        shuffle: &Atom,
        reduce: Placed,
        scope: &Scope,
    ) -> Result<Placed, EvalError> {
        let model =
            never(Throughput::new().map_reduce(params, map.model, shuffle, reduce.model, scope));
        let resources =
            never(Footprint.map_reduce(params, map.resources, shuffle, reduce.resources, scope));
        self.shared(model, resources)
    }

    fn on(&mut self, p: &Count, body: Placed, scope: &Scope) -> Result<Placed, EvalError> {
        let model = never(Throughput::new().on(p, body.model, scope));
        self.shared(model, never(Footprint.on(p, body.resources, scope)))
    }

    fn par(
        &mut self,
        sizes: &[Count],
        parts: Vec<Placed>,
        scope: &Scope,
    ) -> Result<Placed, EvalError> {
        let (models, resources) = split(parts);
        let model = never(Throughput::new().par(sizes, models, scope));
        self.shared(model, never(Footprint.par(sizes, resources, scope)))
    }

    fn groups(&mut self, s: &Count, body: Placed, scope: &Scope) -> Result<Placed, EvalError> {
        let model = never(Throughput::new().groups(s, body.model, scope));
        self.shared(model, never(Footprint.groups(s, body.resources, scope)))
    }

    fn redist(
        &mut self,
        cost: &Expr,
        a: Placed,
        b: Placed,
        scope: &Scope,
    ) -> Result<Placed, EvalError> {
        let model = never(Throughput::new().redist(cost, a.model, b.model, scope));
        self.shared(
            model,
            never(Footprint.redist(cost, a.resources, b.resources, scope)),
        )
    }
}

fn split(parts: Vec<Placed>) -> (Vec<Expr>, Vec<Resources>) {
    parts.into_iter().map(|p| (p.model, p.resources)).unzip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pattern_core::Design;

    /// How many threads the executor runs for `term` at once, with the counts
    /// bound in `env`: the library's one definition of a design's threads
    /// ([`Footprint`]), evaluated.
    pub fn threads_of(term: &Term, env: &[(&str, f64)]) -> Result<usize, EvalError> {
        threads(&Footprint::of(term), env)
    }

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
            let model = Design::from_term(t.clone())
                .unwrap()
                .model()
                .eval(&env)
                .unwrap();
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
