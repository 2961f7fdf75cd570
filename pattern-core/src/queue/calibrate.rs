//! Fitting seed 002's two constants to profiled runs.
//!
//! The seed fits `CPU_Constant` and `Net_Constant` with Gauss-Newton,
//! feeding each guess through MVA. Here the same least-squares problem is
//! solved with Levenberg-Marquardt (the `levenberg-marquardt` crate: a
//! damped Gauss-Newton that also converges from a poor start), over the
//! logarithms of the constants (they stay positive) and on relative
//! residuals `T_model/T_measured − 1` (a run of 100 s and one of 10 s count
//! alike). The Jacobian is taken by central differences: each residual is
//! an MVA solution.

use super::cluster::{ClusterError, MpiModel};
use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{DMatrix, DVector, Dyn, Owned, U2, Vector2};

/// One profiled run: where its processes ran and how long it took.
#[derive(Clone, Debug, PartialEq)]
pub struct MpiRun {
    /// Processes per node.
    pub placement: Vec<usize>,
    /// The measured run time.
    pub time: f64,
}

/// What calibration found.
#[derive(Clone, Debug, PartialEq)]
pub struct Calibration {
    /// The model with the fitted constants.
    pub model: MpiModel,
    /// Root mean square of the relative residuals at the fit.
    pub rms_error: f64,
    /// Residual evaluations the solver made.
    pub evaluations: usize,
}

struct Problem<'a> {
    model: MpiModel,
    runs: &'a [MpiRun],
    /// `ln CPU_Constant`, `ln Net_Constant`.
    params: Vector2<f64>,
}

impl Problem<'_> {
    fn with(&self, params: &Vector2<f64>) -> MpiModel {
        let mut m = self.model.clone();
        m.cpu_constant = params[0].exp();
        m.net_constant = params[1].exp();
        m
    }

    fn residuals_at(&self, params: &Vector2<f64>) -> Option<DVector<f64>> {
        let model = self.with(params);
        let r: Option<Vec<f64>> = self
            .runs
            .iter()
            .map(|run| {
                let t = model.predict(&run.placement).ok()?.time;
                Some(t / run.time - 1.0).filter(|r| r.is_finite())
            })
            .collect();
        r.map(DVector::from_vec)
    }
}

impl LeastSquaresProblem<f64, Dyn, U2> for Problem<'_> {
    type ResidualStorage = Owned<f64, Dyn>;
    type JacobianStorage = Owned<f64, Dyn, U2>;
    type ParameterStorage = Owned<f64, U2>;

    fn set_params(&mut self, params: &Vector2<f64>) {
        self.params = *params;
    }

    fn params(&self) -> Vector2<f64> {
        self.params
    }

    fn residuals(&self) -> Option<DVector<f64>> {
        self.residuals_at(&self.params)
    }

    fn jacobian(&self) -> Option<nalgebra::OMatrix<f64, Dyn, U2>> {
        let h = 1e-6;
        let mut j = DMatrix::zeros(self.runs.len(), 2);
        for p in 0..2 {
            let (mut up, mut down) = (self.params, self.params);
            up[p] += h;
            down[p] -= h;
            let column = (self.residuals_at(&up)? - self.residuals_at(&down)?) / (2.0 * h);
            j.set_column(p, &column);
        }
        Some(nalgebra::OMatrix::<f64, Dyn, U2>::from_iterator_generic(
            Dyn(self.runs.len()),
            U2,
            j.iter().copied(),
        ))
    }
}

impl MpiModel {
    /// Fits `cpu_constant` and `net_constant` to profiled runs (at least
    /// two, on placements that load the CPUs and the network differently),
    /// starting from the model's own values (any positive guess: the CPU
    /// constant is first scaled to the first run).
    ///
    /// ```
    /// use pattern_core::machine::Machine;
    /// use pattern_core::queue::{MpiModel, MpiRun, MpiWorkload};
    ///
    /// let truth = MpiModel {
    ///     machine: Machine::new(2, 4),
    ///     workload: MpiWorkload {
    ///         sends: "100*ln(n) + 400".parse().unwrap(),
    ///         message: "40000/n + 2000".parse().unwrap(),
    ///         compute: 0.9,
    ///         communicate: 0.1,
    ///     },
    ///     startup: 0.0,
    ///     per_word: 8e-9,
    ///     cpu_constant: 120.0,
    ///     net_constant: 1.5,
    /// };
    /// let runs: Vec<MpiRun> = [[1, 0], [2, 0], [2, 2], [4, 4]]
    ///     .iter()
    ///     .map(|p| MpiRun { placement: p.to_vec(), time: truth.predict(p).unwrap().time })
    ///     .collect();
    /// let guess = MpiModel { cpu_constant: 1.0, net_constant: 1.0, ..truth.clone() };
    /// let fit = guess.calibrate(&runs)?;
    /// assert!((fit.model.cpu_constant / 120.0 - 1.0).abs() < 1e-6);
    /// assert!((fit.model.net_constant / 1.5 - 1.0).abs() < 1e-6);
    /// # Ok::<(), pattern_core::queue::ClusterError>(())
    /// ```
    pub fn calibrate(&self, runs: &[MpiRun]) -> Result<Calibration, ClusterError> {
        if runs.len() < 2 {
            return Err(ClusterError::Calibration(format!(
                "two constants need at least 2 runs, {} given",
                runs.len()
            )));
        }
        if let Some(bad) = runs.iter().find(|r| !(r.time.is_finite() && r.time > 0.0)) {
            return Err(ClusterError::InvalidValue {
                what: "a measured time",
                value: bad.time,
            });
        }
        // Every placement must be one the model can solve.
        for run in runs {
            self.network(&run.placement)?;
        }
        let positive = |v: f64| if v.is_finite() && v > 0.0 { v } else { 1.0 };
        let mut start = self.clone();
        start.cpu_constant = positive(self.cpu_constant);
        start.net_constant = positive(self.net_constant);
        let first = start.predict(&runs[0].placement)?.time;
        if first > 0.0 {
            start.cpu_constant *= runs[0].time / first;
        }
        let problem = Problem {
            params: Vector2::new(start.cpu_constant.ln(), start.net_constant.ln()),
            model: start,
            runs,
        };
        let (problem, report) = LevenbergMarquardt::new()
            .with_xtol(1e-12)
            .with_ftol(1e-14)
            .minimize(problem);
        if !report.termination.was_successful() {
            return Err(ClusterError::Calibration(format!(
                "Levenberg-Marquardt stopped: {:?}",
                report.termination
            )));
        }
        let residuals = problem
            .residuals()
            .ok_or_else(|| ClusterError::Calibration("the fit left the model's domain".into()))?;
        Ok(Calibration {
            model: problem.with(&problem.params),
            rms_error: (residuals.norm_squared() / runs.len() as f64).sqrt(),
            evaluations: report.number_of_evaluations,
        })
    }
}
