//! The verdict: how the measured growth class and times compare with the
//! annotation's, against the user's tolerance.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The measured growth class against the annotated one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClassOrder {
    /// The same class.
    Same,
    /// The function grows more slowly than annotated: the annotation is
    /// pessimistic, which the class alone does not fail.
    Lower,
    /// The function grows faster than annotated: the annotation's
    /// predictions get worse with the size, without bound.
    Higher,
}

impl fmt::Display for ClassOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClassOrder::Same => "same",
            ClassOrder::Lower => "lower",
            ClassOrder::Higher => "higher",
        })
    }
}

/// The ratio measured / annotated (medians of the repetitions over the
/// annotation's value) over the sizes: its smallest, median and largest
/// value, and its value at the smallest and the largest size.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ratios {
    /// The smallest ratio.
    pub min: f64,
    /// The median ratio.
    pub median: f64,
    /// The largest ratio.
    pub max: f64,
    /// At the smallest size.
    pub first: f64,
    /// At the largest size.
    pub last: f64,
}

/// One way an annotation breaks its contract.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "breach")]
pub enum Breach {
    /// The measured class is higher than annotated, and no model of the
    /// annotated class fits the timings within their noise.
    ClassHigher {
        /// The annotated class, e.g. `O(x)`.
        annotated: String,
        /// The measured class, e.g. `O(x·log₂x)`.
        measured: String,
    },
    /// Slower than annotated beyond the tolerance: the largest ratio.
    Slower {
        /// The size of the largest ratio.
        x: usize,
        /// The ratio measured / annotated there.
        ratio: f64,
        /// How many sizes are beyond the tolerance this way.
        sizes: usize,
    },
    /// Faster than annotated beyond the tolerance: the smallest ratio.
    Faster {
        /// The size of the smallest ratio.
        x: usize,
        /// The ratio measured / annotated there.
        ratio: f64,
        /// How many sizes are beyond the tolerance this way.
        sizes: usize,
    },
}

impl fmt::Display for Breach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Breach::ClassHigher {
                annotated,
                measured,
            } => write!(
                f,
                "grows as {measured}, faster than the annotated {annotated}"
            ),
            Breach::Slower { x, ratio, sizes } => write!(
                f,
                "{ratio:.3}x the annotated time at x = {x} ({sizes} size{} too slow)",
                plural(*sizes)
            ),
            Breach::Faster { x, ratio, sizes } => write!(
                f,
                "{ratio:.3}x the annotated time at x = {x} ({sizes} size{} too fast)",
                plural(*sizes)
            ),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Whether the annotation holds: its class is not lower than the
/// function's (unless the timings cannot tell the two apart), and at
/// every size the measured time is within a factor `1 + tolerance` of the
/// annotated one, either way. A failed verdict names every breach.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// `breaches` is empty.
    pub holds: bool,
    /// What broke the contract, the class first.
    pub breaches: Vec<Breach>,
}

impl Verdict {
    /// The verdict of `breaches`.
    pub fn of(breaches: Vec<Breach>) -> Verdict {
        Verdict {
            holds: breaches.is_empty(),
            breaches,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.holds {
            return f.write_str("holds");
        }
        let why: Vec<String> = self.breaches.iter().map(ToString::to_string).collect();
        write!(f, "FAILS: {}", why.join("; "))
    }
}

/// The breaches of the ratios `(x, ratio)` against `tolerance`: the worst
/// ratio beyond `1 + tolerance` and the worst below `1 / (1 + tolerance)`.
pub(super) fn ratio_breaches(ratios: &[(usize, f64)], tolerance: f64) -> Vec<Breach> {
    let high = 1.0 + tolerance;
    let low = 1.0 / high;
    let mut out = Vec::new();
    let slow: Vec<&(usize, f64)> = ratios.iter().filter(|(_, r)| *r > high).collect();
    if let Some(&&(x, ratio)) = slow.iter().max_by(|a, b| a.1.total_cmp(&b.1)) {
        out.push(Breach::Slower {
            x,
            ratio,
            sizes: slow.len(),
        });
    }
    let fast: Vec<&(usize, f64)> = ratios.iter().filter(|(_, r)| *r < low).collect();
    if let Some(&&(x, ratio)) = fast.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
        out.push(Breach::Faster {
            x,
            ratio,
            sizes: fast.len(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_is_a_factor_either_way() {
        let r = [(1, 1.25), (2, 0.8), (3, 1.0)];
        assert!(ratio_breaches(&r, 0.25).is_empty());
        let r = [(1, 1.3), (2, 1.5), (3, 0.5), (4, 0.7), (5, 1.0)];
        assert_eq!(
            ratio_breaches(&r, 0.25),
            [
                Breach::Slower {
                    x: 2,
                    ratio: 1.5,
                    sizes: 2
                },
                Breach::Faster {
                    x: 3,
                    ratio: 0.5,
                    sizes: 2
                }
            ]
        );
        let v = Verdict::of(ratio_breaches(&r, 0.25));
        assert!(!v.holds);
        assert_eq!(
            v.to_string(),
            "FAILS: 1.500x the annotated time at x = 2 (2 sizes too slow); 0.500x the annotated time at x = 3 (2 sizes too fast)"
        );
        assert_eq!(Verdict::of(Vec::new()).to_string(), "holds");
    }
}
