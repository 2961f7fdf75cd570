//! The check of one annotated function: measure, fit, compare.

use super::error::ContractError;
use super::report::{Point, Report, round_significant};
use super::source::{Source, Timed, default_harness};
use super::verdict::{Breach, ClassOrder, Ratios, Verdict, ratio_breaches};
use crate::dsl::CostAnnotation;
use crate::fit::measure::{Harness, Measurement, Samples};
use crate::fit::{Fit, Fitter, HypothesisSpace, Rational64, TermClass, stats, within_noise};
use crate::{Expr, Growth};
use std::cmp::Ordering;

/// The contract of an annotated function: its `#[cost]` model against its
/// timings at a range of sizes. Build it from the annotation
/// (`cost_of!(f)`, so the model is never typed twice), give the sizes and
/// a tolerance, then [`Contract::measure`] the function with the harness
/// or [`Contract::check`] timings from any [`Source`]. The one-line form
/// for a test or a bench is [`check_cost!`](crate::check_cost).
///
/// ```
/// use pattern_core::contract::{Contract, Recorded};
/// use pattern_core::{cost, cost_of};
///
/// #[cost("2 * x + 100")]
/// fn sum(v: Vec<u64>) -> u64 {
///     v.iter().sum()
/// }
///
/// // Timings recorded before (a test needs no clock): 2.1·x + 90 ns.
/// let times: Vec<(usize, Vec<f64>)> = (1..=8)
///     .map(|k| (k * 1000, vec![2.1 * (k * 1000) as f64 + 90.0; 3]))
///     .collect();
/// let report = Contract::new(cost_of!(sum))
///     .sizes((1..=8).map(|k| k * 1000))
///     .tolerance(0.25)
///     .check(&mut Recorded::from_times("sum", &times))?;
/// assert!(report.holds(), "{report}");
/// assert_eq!(report.suggestion, r#"#[cost("2.1*x + 90")]"#);
/// # Ok::<(), pattern_core::contract::ContractError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Contract {
    pub(super) function: String,
    pub(super) model: Expr,
    sizes: Vec<usize>,
    tolerance: f64,
    harness: Harness,
    fitter: Fitter,
    attempts: usize,
    /// A design's prediction on a machine, in place of `model`'s values
    /// ([`Contract::of_design`]).
    #[cfg(feature = "queueing")]
    pub(super) on: Option<Box<(crate::Design, crate::machine::Machine)>>,
}

/// The tolerance unless given: within a factor 1.25 either way.
pub const DEFAULT_TOLERANCE: f64 = 0.25;

/// Measurements of a function unless given: a failed verdict is measured
/// twice more ([`Contract::attempts`]).
pub const DEFAULT_ATTEMPTS: usize = 3;

impl Contract {
    /// The contract of the function `cost_of!` read the annotation of.
    pub fn new(annotation: CostAnnotation) -> Contract {
        Contract::of_model(annotation.name, annotation.expr())
    }

    /// The contract of a model given at run time, in ns per call of size
    /// `x`, for a function named `function`.
    pub fn of_model(function: &str, model: Expr) -> Contract {
        Contract {
            function: function.to_string(),
            model: model.simplify(),
            sizes: Vec::new(),
            tolerance: DEFAULT_TOLERANCE,
            harness: default_harness(),
            fitter: Fitter::default(),
            attempts: DEFAULT_ATTEMPTS,
            #[cfg(feature = "queueing")]
            on: None,
        }
    }

    /// The sizes to measure (at least 3 distinct ones; their order does
    /// not matter). A range wide enough to tell the classes apart: the
    /// ratio of `x·log₂x` to `x` grows by a half from 2^10 to 2^15.
    pub fn sizes(mut self, sizes: impl IntoIterator<Item = usize>) -> Contract {
        self.sizes = sizes.into_iter().collect();
        self
    }

    /// The tolerance: the measured time must be within a factor
    /// `1 + tolerance` of the annotated one at every size, either way
    /// (default [`DEFAULT_TOLERANCE`]).
    pub fn tolerance(mut self, tolerance: f64) -> Contract {
        self.tolerance = tolerance;
        self
    }

    /// The harness [`Contract::measure`] times with (default:
    /// [`default_harness`](super::default_harness)).
    pub fn harness(mut self, harness: Harness) -> Contract {
        self.harness = harness;
        self
    }

    /// The fitter of the measured model (default: `Fitter::default()`,
    /// with the harness's clock resolution when it gives one).
    pub fn fitter(mut self, fitter: Fitter) -> Contract {
        self.fitter = fitter;
        self
    }

    /// How many times to measure before a verdict fails (default
    /// [`DEFAULT_ATTEMPTS`]; at least 1): a failed verdict is measured
    /// again, and the annotation holds if one measurement holds. Load from
    /// other processes only ever slows a function down, and it comes and
    /// goes; a wrong annotation fails every time (docs/contract.md has the
    /// figures). Timings that replay ([`Source::remeasures`] false) are
    /// judged once.
    pub fn attempts(mut self, attempts: usize) -> Contract {
        self.attempts = attempts.max(1);
        self
    }

    /// Times `call(input(x))` at the sizes with the harness (inputs built
    /// outside the timed region) and judges the annotation.
    pub fn measure<I, O>(
        &self,
        input: impl FnMut(usize) -> I,
        call: impl FnMut(I) -> O,
    ) -> Result<Report, ContractError> {
        let harness = self.harness.clone().label(&self.function);
        self.check(&mut Timed::new(harness, input, call))
    }

    /// Takes the timings from `source` and judges the annotation, measuring
    /// again after a failed verdict ([`Contract::attempts`]).
    pub fn check(&self, source: &mut impl Source) -> Result<Report, ContractError> {
        let sizes = self.checked_sizes()?;
        let annotated_class = self.annotated_class()?;
        let annotated = sizes
            .iter()
            .map(|&x| self.annotated_at(x))
            .collect::<Result<Vec<f64>, _>>()?;
        let attempts = if source.remeasures() {
            self.attempts
        } else {
            1
        };
        let mut attempt = 1;
        loop {
            let mut report = self.measure_once(source, &sizes, &annotated, &annotated_class)?;
            report.attempts = attempt;
            if report.holds() || attempt == attempts {
                return Ok(report);
            }
            attempt += 1;
        }
    }

    /// One measurement from `source`, fitted and judged.
    fn measure_once(
        &self,
        source: &mut impl Source,
        sizes: &[usize],
        annotated: &[f64],
        annotated_class: &Growth,
    ) -> Result<Report, ContractError> {
        let measurement = source.measure(sizes)?;
        let samples = samples_at(&measurement, sizes)?;
        let fitter = match measurement.resolution_ns() {
            Some(floor) => self.fitter.clone().resolution(Some(floor)),
            None => self.fitter.clone(),
        };
        let points: Vec<(f64, f64)> = samples
            .iter()
            .flat_map(|s| s.times_ns.iter().map(move |&t| (s.x as f64, t)))
            .collect();
        let fit = fitter.fit(&points)?;
        let fitted_class = fit.model().growth("x").ok_or_else(|| self.no_class())?;
        let class = match fitted_class.cmp(annotated_class) {
            Ordering::Less => ClassOrder::Lower,
            Ordering::Equal => ClassOrder::Same,
            Ordering::Greater => ClassOrder::Higher,
        };
        let within_noise = class == ClassOrder::Higher
            && annotated_within_noise(&fitter, &points, &fit, annotated_class);
        Ok(self.judge(
            &samples,
            annotated,
            &fit,
            (class, within_noise),
            annotated_class,
            &fitted_class,
        ))
    }

    /// The report of timings `samples`, the annotation's values there, the
    /// fit, the class order (and whether a higher one is within the noise)
    /// and both classes.
    fn judge(
        &self,
        samples: &[&Samples],
        annotated: &[f64],
        fit: &Fit,
        (class, class_within_noise): (ClassOrder, bool),
        annotated_class: &Growth,
        fitted_class: &Growth,
    ) -> Report {
        let points: Vec<Point> = samples
            .iter()
            .zip(annotated)
            .map(|(s, &a)| point(s, a, fit))
            .collect();
        let ratios: Vec<(usize, f64)> = points.iter().map(|p| (p.x, p.ratio)).collect();
        let mut breaches = Vec::new();
        if class == ClassOrder::Higher && !class_within_noise {
            breaches.push(Breach::ClassHigher {
                annotated: annotated_class.to_string(),
                measured: fitted_class.to_string(),
            });
        }
        breaches.extend(ratio_breaches(&ratios, self.tolerance));
        Report {
            function: self.function.clone(),
            annotated: self.annotated_text(),
            annotated_class: annotated_class.to_string(),
            fitted: rounded(fit).to_string(),
            fitted_class: fitted_class.to_string(),
            class,
            class_within_noise,
            suggestion: format!("#[cost(\"{}\")]", rounded(fit).to_ascii()),
            tolerance: self.tolerance,
            ratios: summary(&ratios),
            points,
            verdict: Verdict::of(breaches),
            attempts: 1,
        }
    }

    /// The sizes, ascending and distinct, checked, with the tolerance.
    fn checked_sizes(&self) -> Result<Vec<usize>, ContractError> {
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(ContractError::Tolerance(self.tolerance));
        }
        let mut sizes = self.sizes.clone();
        sizes.sort_unstable();
        sizes.dedup();
        if sizes.first() == Some(&0) {
            return Err(ContractError::ZeroSize);
        }
        if sizes.len() < 3 {
            return Err(ContractError::TooFewSizes(sizes.len()));
        }
        Ok(sizes)
    }

    /// The annotated model, or for a design the machine it is predicted on.
    fn annotated_text(&self) -> String {
        #[cfg(feature = "queueing")]
        if let Some(on) = &self.on {
            return format!(
                "queueing on {} (operators' model {})",
                on.1.summary(),
                self.model
            );
        }
        self.model.to_string()
    }

    /// The annotation's class in `x`, its variables checked.
    fn annotated_class(&self) -> Result<Growth, ContractError> {
        if let Some(var) = self.model.vars().into_iter().find(|v| v != "x") {
            return Err(ContractError::OtherVariable {
                function: self.function.clone(),
                var,
            });
        }
        self.model.growth("x").ok_or_else(|| self.no_class())
    }

    fn no_class(&self) -> ContractError {
        ContractError::NoClass(self.function.clone())
    }

    /// The annotation at `x` (a design's prediction on its machine),
    /// which must be positive.
    fn annotated_at(&self, x: usize) -> Result<f64, ContractError> {
        #[cfg(feature = "queueing")]
        if let Some(on) = &self.on {
            return super::predicted::predicted_at(&on.0, &on.1, x, &self.function);
        }
        let value = self.model.eval(&[("x", x as f64)]).unwrap_or(f64::NAN);
        if value.is_finite() && value > 0.0 {
            Ok(value)
        } else {
            Err(ContractError::AnnotationValue {
                function: self.function.clone(),
                x,
                value,
            })
        }
    }
}

/// The timings of `measurement` at `sizes`, in that order, checked.
fn samples_at<'a>(
    measurement: &'a Measurement,
    sizes: &[usize],
) -> Result<Vec<&'a Samples>, ContractError> {
    sizes
        .iter()
        .map(|&x| {
            let s = (measurement.sizes().iter())
                .find(|s| s.x == x)
                .ok_or(ContractError::MissingSize(x))?;
            if s.times_ns.is_empty() {
                return Err(ContractError::NoTimings(x));
            }
            match s.times_ns.iter().find(|t| !(t.is_finite() && **t >= 0.0)) {
                Some(&ns) => Err(ContractError::BadTiming { x, ns }),
                None => Ok(s),
            }
        })
        .collect()
}

/// Whether a model of the annotated class fits the points within the noise
/// of the chosen model: one of the search's alternatives, or the class
/// fitted alone (with a constant), its leave-one-out RSS within
/// [`within_noise`] of the chosen one's.
fn annotated_within_noise(
    fitter: &Fitter,
    points: &[(f64, f64)],
    fit: &Fit,
    annotated: &Growth,
) -> bool {
    let alternative = fit
        .alternatives()
        .iter()
        .any(|a| (a.model.growth("x")).is_some_and(|g| g.cmp(annotated) != Ordering::Greater));
    if alternative {
        return true;
    }
    let (Some(power), Some(log)) = (
        Rational64::approximate_float(annotated.power()),
        Rational64::approximate_float(annotated.log_power()),
    ) else {
        return false;
    };
    let class = TermClass::new(power, log);
    let space = if class.is_constant() {
        HypothesisSpace::new([])
    } else {
        HypothesisSpace::new([class])
    };
    let alone = fitter.clone().space(space).significance(None).fit(points);
    let (chosen, alone) = match alone {
        Ok(a) => (fit.stats().cv_rss, a.stats().cv_rss),
        Err(_) => return false,
    };
    alone.is_finite() && chosen.is_finite() && alone <= within_noise(fit.stats().points) * chosen
}

/// One size of the report.
fn point(s: &Samples, annotated_ns: f64, fit: &Fit) -> Point {
    let median_ns = s.median();
    let fold = |f: fn(f64, f64) -> f64, start| s.times_ns.iter().copied().fold(start, f);
    Point {
        x: s.x,
        median_ns,
        min_ns: fold(f64::min, f64::INFINITY),
        max_ns: fold(f64::max, f64::NEG_INFINITY),
        repetitions: s.times_ns.len(),
        annotated_ns,
        fitted_ns: fit.model().eval(&[("x", s.x as f64)]).unwrap_or(f64::NAN),
        ratio: median_ns / annotated_ns,
    }
}

/// Smallest, median, largest, first and last of the ratios (at least one).
fn summary(ratios: &[(usize, f64)]) -> Ratios {
    let values: Vec<f64> = ratios.iter().map(|r| r.1).collect();
    Ratios {
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        median: stats::median(&values),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        first: values.first().copied().unwrap_or(f64::NAN),
        last: values.last().copied().unwrap_or(f64::NAN),
    }
}

/// The fitted model with its coefficients to 4 significant digits (the
/// timings' noise is larger).
fn rounded(fit: &Fit) -> Expr {
    let terms = fit.terms().iter().map(|t| {
        t.factors.iter().fold(
            Expr::num(round_significant(t.coefficient, 4)),
            |e, (p, c)| e * c.expr(p),
        )
    });
    let constant = Expr::num(round_significant(fit.constant(), 4));
    terms.fold(constant, |e, t| e + t).simplify()
}
