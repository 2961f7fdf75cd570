//! Communication costs of distributed-memory programs (seed 004 §3): the
//! runtime formulas of MPI-style operations, their coefficients per machine,
//! and the contention factor for operations that run concurrently in
//! different processor groups.
//!
//! In a cost expression a communication is a call of a *machine function*,
//! `allgather(p, b)` (p processors, b bytes), kept symbolic until it is
//! resolved against a [`MachineProfile`]:
//!
//! ```
//! use pattern_core::Expr;
//! use pattern_core::comm::{Context, MachineProfile};
//!
//! let t3e = MachineProfile::t3e();
//! let step = Expr::parse("bcast(p, b)").unwrap();
//! let us = t3e.resolve(&step, &Context::isolated()).unwrap();
//! // MPI_Bcast on the T3E: 7.723·log2(p) + 0.0039·log2(p)·b microseconds.
//! let at = us.eval(&[("p", 64.0), ("b", 1000.0)]).unwrap();
//! assert!((at - (7.723 * 6.0 + 0.0039 * 6.0 * 1000.0)).abs() < 1e-9);
//! ```

mod collective;

pub use collective::Hockney;

use crate::Expr;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The shape of a runtime formula (seed 004, Table 1); `p` processors,
/// `b` bytes, times in the profile's unit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "formula", rename_all = "snake_case")]
pub enum CommFormula {
    /// `τ + t_c·b`: a single transfer; called as `send(b)`.
    Linear {
        /// Startup time τ.
        tau: f64,
        /// Byte-transfer time t_c.
        t_c: f64,
    },
    /// `τ·log2(p) + t_c·log2(p)·b`: broadcast and reduce over a tree of
    /// logarithmic depth; called as `bcast(p, b)`.
    Logarithmic {
        /// Startup time τ.
        tau: f64,
        /// Byte-transfer time t_c.
        t_c: f64,
    },
    /// `τ1 + τ2·p + t_c·p·b`: multi-broadcast, gather, scatter; called as
    /// `allgather(p, b)`.
    LinearInP {
        /// Constant startup τ1.
        tau1: f64,
        /// Startup per processor τ2.
        tau2: f64,
        /// Byte-transfer time t_c.
        t_c: f64,
    },
}

impl CommFormula {
    /// How many arguments the call takes: 1 (`b`) or 2 (`p, b`).
    pub fn arity(&self) -> usize {
        match self {
            CommFormula::Linear { .. } => 1,
            _ => 2,
        }
    }

    /// The formula for `p` processors and `b` bytes, its byte-transfer time
    /// multiplied by `contention` where given (the startup is unchanged).
    pub fn expr(&self, p: &Expr, b: &Expr, contention: Option<&Expr>) -> Expr {
        let t_c = |t_c: f64| match contention {
            Some(c) => t_c * c.clone(),
            None => Expr::num(t_c),
        };
        match self {
            CommFormula::Linear { tau, t_c: tc } => *tau + t_c(*tc) * b.clone(),
            CommFormula::Logarithmic { tau, t_c: tc } => {
                let log_p = p.clone().log2();
                *tau * log_p.clone() + t_c(*tc) * log_p * b.clone()
            }
            CommFormula::LinearInP {
                tau1,
                tau2,
                t_c: tc,
            } => *tau1 + *tau2 * p.clone() + t_c(*tc) * p.clone() * b.clone(),
        }
    }
}

/// Where a communication runs: alone, or concurrently with the
/// communications of other processor groups (then the profile's contention
/// factor applies, with `processors` the processors of the whole program).
#[derive(Clone, Debug, PartialEq)]
pub struct Context {
    /// Whether other groups communicate at the same time.
    pub concurrent: bool,
    /// All processors of the program, the `p` of the contention factor.
    pub processors: Expr,
}

impl Context {
    /// A communication with no concurrent transmissions (pure data
    /// parallelism): no contention.
    pub fn isolated() -> Context {
        Context {
            concurrent: false,
            processors: Expr::var("p"),
        }
    }

    /// A communication concurrent with others' on a program of `processors`.
    pub fn concurrent(processors: Expr) -> Context {
        Context {
            concurrent: true,
            processors,
        }
    }
}

/// Why a communication could not be resolved, or a profile not loaded.
#[derive(Debug, thiserror::Error)]
pub enum CommError {
    /// The profile has no such function.
    #[error("unknown machine function `{name}` on {machine} (it has: {known})")]
    UnknownFunction {
        /// The name called.
        name: String,
        /// The profile's name.
        machine: String,
        /// The functions it has.
        known: String,
    },
    /// A call with the wrong number of arguments.
    #[error("`{name}` takes {expected} argument(s) ({form}), found {found}")]
    Arity {
        /// The function.
        name: String,
        /// How many it takes.
        expected: usize,
        /// Its form, such as `allgather(p, b)`.
        form: String,
        /// How many were given.
        found: usize,
    },
    /// A concurrent communication on a profile without a contention factor.
    #[error(
        "{machine} has no contention factor, needed for `{name}` running concurrently with other groups"
    )]
    NoContention {
        /// The function.
        name: String,
        /// The profile's name.
        machine: String,
    },
    /// A profile file that could not be read.
    #[error("cannot read the machine profile {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A profile file that is not a valid profile (with line and column).
    #[error("invalid machine profile {path}: {source}")]
    Format {
        /// The file.
        path: String,
        /// The cause, with its position.
        source: serde_json::Error,
    },
}

/// The communication costs of one machine: a runtime formula per function,
/// and the contention factor `C(p, n)` (`p` all processors, `n` message
/// size) for concurrent transmissions. Loaded from JSON, or built in for the
/// machines of seed 004.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineProfile {
    /// The machine's name.
    pub name: String,
    /// The unit of the coefficients (`us` for seed 004's tables).
    pub unit: String,
    /// The functions by name (`send`, `bcast`, `allgather`, ...).
    pub functions: BTreeMap<String, CommFormula>,
    /// `C(p, n)`, multiplying the byte-transfer time of concurrent
    /// communications.
    #[serde(default)]
    pub contention: Option<Expr>,
}

fn linear(tau: f64, t_c: f64) -> CommFormula {
    CommFormula::Linear { tau, t_c }
}

fn logarithmic(tau: f64, t_c: f64) -> CommFormula {
    CommFormula::Logarithmic { tau, t_c }
}

fn linear_in_p(tau1: f64, tau2: f64, t_c: f64) -> CommFormula {
    CommFormula::LinearInP { tau1, tau2, t_c }
}

fn contention(text: &str) -> Option<Expr> {
    Some(Expr::parse(text).expect("a built-in contention factor parses"))
}

impl MachineProfile {
    /// The Beowulf cluster CLiC (528 Pentium III, fast Ethernet, LAM MPI):
    /// seed 004 Tables 2 and 3 (μs), and `C_CLiC(p, n) = 0.0045·p·p·log2(p)·(log2(n) + log2(p))`.
    pub fn clic() -> MachineProfile {
        MachineProfile {
            name: "CLiC".into(),
            unit: "us".into(),
            functions: [
                ("send", linear(-7.526, 0.10607)),
                ("send_p", linear(145.021, 0.08804)),
                ("bcast", logarithmic(-3420.688, 0.3409)),
                ("bcast_p", logarithmic(564.125, 0.0939)),
                ("reduce", logarithmic(-119.871, 0.1223)),
                ("multibcast", linear_in_p(-33270.8, 21801.5, 1.031)),
                ("multibcast_p", linear_in_p(-9724.2, 8385.5, 0.690)),
                ("allgather", linear_in_p(9175.3, -7542.0, 3.182)),
                ("allgather_p", linear_in_p(-669.9, 543.3, 2.806)),
                ("allgatherv", linear_in_p(-709.6, -957.0, 5.443)),
                ("gather", linear_in_p(-316.2, 654.5, 0.095)),
                ("scatter", linear_in_p(24.6, 1439.5, 0.086)),
            ]
            .into_iter()
            .map(|(n, f)| (n.to_string(), f))
            .collect(),
            contention: contention("0.0045 * p * p * log2(p) * (log2(n) + log2(p))"),
        }
    }

    /// The Cray T3E-1200: seed 004 Tables 2 and 3 (μs), and
    /// `C_T3E(p, n) = 0.04·p·log2(log2(p))·log2(n)`.
    pub fn t3e() -> MachineProfile {
        MachineProfile {
            name: "Cray T3E".into(),
            unit: "us".into(),
            functions: [
                ("send", linear(13.965, 0.00267)),
                ("send_p", linear(9.748, 0.00533)),
                ("bcast", logarithmic(7.723, 0.0039)),
                ("bcast_p", logarithmic(7.007, 0.0050)),
                ("reduce", logarithmic(168.516, 0.0093)),
                ("multibcast", linear_in_p(-3.72, 42.60, 0.028)),
                ("multibcast_p", linear_in_p(-24.20, -0.81, 0.036)),
                ("allgather", linear_in_p(6.04, -0.75, 0.019)),
                ("allgather_p", linear_in_p(7.72, 13.23, 0.018)),
                ("allgatherv", linear_in_p(11.83, 17.47, 0.019)),
                ("gather", linear_in_p(31.08, -118.51, 0.006)),
                ("scatter", linear_in_p(-0.48, 5.45, 0.003)),
            ]
            .into_iter()
            .map(|(n, f)| (n.to_string(), f))
            .collect(),
            contention: contention("0.04 * p * log2(log2(p)) * log2(n)"),
        }
    }

    /// The Cray T3D: seed 004 gives its contention factor
    /// `C_T3D(p, n) = 0.07·p·log2(log2(log2(p)))·log2(n)` but no
    /// coefficient tables; add functions with [`MachineProfile::with_function`].
    pub fn t3d() -> MachineProfile {
        MachineProfile {
            name: "Cray T3D".into(),
            unit: "us".into(),
            functions: BTreeMap::new(),
            contention: contention("0.07 * p * log2(log2(log2(p))) * log2(n)"),
        }
    }

    /// The profile with one more function (or one replaced).
    pub fn with_function(mut self, name: &str, formula: CommFormula) -> MachineProfile {
        self.functions.insert(name.to_string(), formula);
        self
    }

    /// Reads a profile from a JSON file (see `examples/data/` for the form).
    pub fn from_json_file(path: impl AsRef<Path>) -> Result<MachineProfile, CommError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| CommError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_json(&text).map_err(|e| match e {
            CommError::Format { source, .. } => CommError::Format {
                path: path.display().to_string(),
                source,
            },
            other => other,
        })
    }

    /// Reads a profile from JSON text.
    pub fn from_json(text: &str) -> Result<MachineProfile, CommError> {
        serde_json::from_str(text).map_err(|source| CommError::Format {
            path: "(text)".into(),
            source,
        })
    }

    /// The profile as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a profile serializes")
    }

    /// The time of one call: `name(args)` in `context`.
    pub fn call(&self, name: &str, args: &[Expr], context: &Context) -> Result<Expr, CommError> {
        let formula = self
            .functions
            .get(name)
            .ok_or_else(|| CommError::UnknownFunction {
                name: name.to_string(),
                machine: self.name.clone(),
                known: self
                    .functions
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
            })?;
        if args.len() != formula.arity() {
            return Err(CommError::Arity {
                name: name.to_string(),
                expected: formula.arity(),
                form: if formula.arity() == 1 {
                    format!("{name}(b)")
                } else {
                    format!("{name}(p, b)")
                },
                found: args.len(),
            });
        }
        let (p, b) = match args {
            [b] => (Expr::num(1.0), b.clone()),
            [p, b] => (p.clone(), b.clone()),
            _ => unreachable!("arity checked"),
        };
        let factor = if context.concurrent {
            let c = self
                .contention
                .as_ref()
                .ok_or_else(|| CommError::NoContention {
                    name: name.to_string(),
                    machine: self.name.clone(),
                })?;
            Some(c.subs_all(&[("p", context.processors.clone()), ("n", b.clone())]))
        } else {
            None
        };
        Ok(formula.expr(&p, &b, factor.as_ref()))
    }

    /// Replaces every machine function called in `e` by its formula.
    pub fn resolve(&self, e: &Expr, context: &Context) -> Result<Expr, CommError> {
        e.resolve_applications(&mut |name, args| self.call(name, args, context).map(Some))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(e: &Expr, p: f64, b: f64) -> f64 {
        e.eval(&[("p", p), ("b", b)]).unwrap()
    }

    fn call(profile: &MachineProfile, name: &str, concurrent: Option<f64>) -> Expr {
        let args = if name.starts_with("send") {
            vec![Expr::var("b")]
        } else {
            vec![Expr::var("p"), Expr::var("b")]
        };
        let context = match concurrent {
            Some(all) => Context::concurrent(Expr::num(all)),
            None => Context::isolated(),
        };
        profile.call(name, &args, &context).unwrap()
    }

    /// Every coefficient of Tables 2 and 3 at p = 64, b = 1000, against the
    /// formulas of Table 1 computed by hand.
    #[test]
    fn every_published_coefficient_set() {
        let (p, b) = (64.0, 1000.0);
        let log_p = 6.0;
        let table2 = [
            ("send", -7.526, 0.10607, 13.965, 0.00267),
            ("send_p", 145.021, 0.08804, 9.748, 0.00533),
            ("bcast", -3420.688, 0.3409, 7.723, 0.0039),
            ("bcast_p", 564.125, 0.0939, 7.007, 0.0050),
            ("reduce", -119.871, 0.1223, 168.516, 0.0093),
        ];
        for (name, tau_clic, tc_clic, tau_t3e, tc_t3e) in table2 {
            let hand = |tau: f64, tc: f64| {
                if name.starts_with("send") {
                    tau + tc * b
                } else {
                    tau * log_p + tc * log_p * b
                }
            };
            assert!(
                (at(&call(&MachineProfile::clic(), name, None), p, b) - hand(tau_clic, tc_clic))
                    .abs()
                    < 1e-9,
                "CLiC {name}"
            );
            assert!(
                (at(&call(&MachineProfile::t3e(), name, None), p, b) - hand(tau_t3e, tc_t3e)).abs()
                    < 1e-9,
                "T3E {name}"
            );
        }
        let table3 = [
            (
                "multibcast",
                [-33270.8, 21801.5, 1.031],
                [-3.72, 42.60, 0.028],
            ),
            (
                "multibcast_p",
                [-9724.2, 8385.5, 0.690],
                [-24.20, -0.81, 0.036],
            ),
            ("allgather", [9175.3, -7542.0, 3.182], [6.04, -0.75, 0.019]),
            ("allgather_p", [-669.9, 543.3, 2.806], [7.72, 13.23, 0.018]),
            ("allgatherv", [-709.6, -957.0, 5.443], [11.83, 17.47, 0.019]),
            ("gather", [-316.2, 654.5, 0.095], [31.08, -118.51, 0.006]),
            ("scatter", [24.6, 1439.5, 0.086], [-0.48, 5.45, 0.003]),
        ];
        for (name, clic, t3e) in table3 {
            let hand = |c: [f64; 3]| c[0] + c[1] * p + c[2] * p * b;
            assert!(
                (at(&call(&MachineProfile::clic(), name, None), p, b) - hand(clic)).abs() < 1e-6,
                "CLiC {name}"
            );
            assert!(
                (at(&call(&MachineProfile::t3e(), name, None), p, b) - hand(t3e)).abs() < 1e-9,
                "T3E {name}"
            );
        }
        // The example of the issue: MPI_Bcast on the T3E at p = 64, b = 1000.
        assert!(
            (at(&call(&MachineProfile::t3e(), "bcast", None), 64.0, 1000.0) - 69.738).abs() < 1e-9
        );
    }

    #[test]
    fn contention_multiplies_only_the_byte_transfer_time() {
        let t3e = MachineProfile::t3e();
        // allgather on a group of 16, concurrently, on a program of 64.
        let concurrent = call(&t3e, "allgather", Some(64.0));
        let isolated = call(&t3e, "allgather", None);
        let (p, b) = (16.0, 4096.0f64);
        let c = 0.04 * 64.0 * (64f64.log2()).log2() * b.log2();
        let hand = 6.04 - 0.75 * p + c * 0.019 * p * b;
        assert!((at(&concurrent, p, b) - hand).abs() < 1e-6 * hand);
        assert!((at(&isolated, p, b) - (6.04 - 0.75 * p + 0.019 * p * b)).abs() < 1e-9);
        // The startup is unchanged: the difference is all byte-transfer time.
        let difference = at(&concurrent, p, b) - at(&isolated, p, b);
        assert!((difference - (c - 1.0) * 0.019 * p * b).abs() < 1e-6 * difference);
        // T3D and CLiC factors by hand.
        let c_t3d = MachineProfile::t3d()
            .contention
            .unwrap()
            .eval(&[("p", 256.0), ("n", 1024.0)])
            .unwrap();
        assert!((c_t3d - 0.07 * 256.0 * 3f64.log2() * 10.0).abs() < 1e-9);
        let c_clic = MachineProfile::clic()
            .contention
            .unwrap()
            .eval(&[("p", 32.0), ("n", 1024.0)])
            .unwrap();
        assert!((c_clic - 0.0045 * 32.0 * 32.0 * 5.0 * 15.0).abs() < 1e-9);
    }

    #[test]
    fn resolving_expressions_and_errors() {
        let t3e = MachineProfile::t3e();
        let e = Expr::parse("2 * allgather(p, 8 * n) + send(64)").unwrap();
        let r = t3e.resolve(&e, &Context::isolated()).unwrap();
        assert!(r.applied_functions().is_empty());
        let v = r.eval(&[("p", 8.0), ("n", 100.0)]).unwrap();
        let hand = 2.0 * (6.04 - 0.75 * 8.0 + 0.019 * 8.0 * 800.0) + 13.965 + 0.00267 * 64.0;
        assert!((v - hand).abs() < 1e-9);

        let err = t3e
            .resolve(
                &Expr::parse("alltoall(p, b)").unwrap(),
                &Context::isolated(),
            )
            .unwrap_err();
        assert!(
            err.to_string().starts_with(
                "unknown machine function `alltoall` on Cray T3E (it has: allgather, allgather_p"
            ),
            "{err}"
        );
        let err = t3e
            .resolve(&Expr::parse("send(p, b)").unwrap(), &Context::isolated())
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "`send` takes 1 argument(s) (send(b)), found 2"
        );
        let bare = MachineProfile {
            contention: None,
            ..MachineProfile::t3e()
        };
        let err = bare
            .resolve(
                &Expr::parse("bcast(p, b)").unwrap(),
                &Context::concurrent(Expr::num(8.0)),
            )
            .unwrap_err();
        assert!(matches!(err, CommError::NoContention { .. }));
    }

    #[test]
    fn profiles_load_from_json_with_positioned_errors() {
        let json = MachineProfile::clic().to_json();
        assert!(json.contains("\"formula\": \"linear_in_p\""), "{json}");
        assert_eq!(
            MachineProfile::from_json(&json).unwrap(),
            MachineProfile::clic()
        );
        let own = r#"{
            "name": "lab cluster", "unit": "us",
            "functions": { "send": { "formula": "linear", "tau": 2.5, "t_c": 0.001 } },
            "contention": "1 + 0.01 * p"
        }"#;
        let lab = MachineProfile::from_json(own).unwrap();
        let t = lab
            .resolve(
                &Expr::parse("send(1000)").unwrap(),
                &Context::concurrent(Expr::num(10.0)),
            )
            .unwrap();
        assert!((t.eval(&[]).unwrap() - (2.5 + 1.1 * 0.001 * 1000.0)).abs() < 1e-12);
        let err = MachineProfile::from_json("{\n \"name\": \"x\",\n \"unit\": 3 }").unwrap_err();
        assert!(err.to_string().contains("line 3"), "{err}");
        let err = MachineProfile::from_json(
            r#"{"name": "x", "unit": "us", "functions": {}, "contention": "p +"}"#,
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("expected a number, a name or `(`"),
            "{err}"
        );
        let missing = MachineProfile::from_json_file("/nonexistent/profile.json").unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("cannot read the machine profile /nonexistent/profile.json")
        );
    }
}
