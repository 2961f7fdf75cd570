//! Sweeps: a compiled model over a grid of several variables, and checked
//! batches that name the first point and the sub-expression that is not
//! finite. Bad input is an error that names what is wrong, never a panic.

use crate::compile::CompiledExpr;
use crate::eval::EvalError;

/// At most this many points in one grid (each variable's column and the
/// values are held in memory: 8 bytes a point each).
pub const MAX_GRID_POINTS: usize = 1 << 26;

/// Why a sweep could not be made.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SweepError {
    /// An axis for a variable the compiled expression does not have.
    #[error(
        "the grid has an axis for `{name}`, which is not a variable of the model (its variables: {vars})"
    )]
    UnknownVariable {
        /// The axis' name.
        name: String,
        /// The variables of the compiled expression.
        vars: String,
    },
    /// A variable of the compiled expression with no axis.
    #[error("the variable `{name}` has no axis: give it values (one value is an axis too)")]
    MissingAxis {
        /// The variable.
        name: String,
    },
    /// Two axes for one variable.
    #[error("the variable `{name}` has two axes")]
    DuplicateAxis {
        /// The variable.
        name: String,
    },
    /// An axis with no values.
    #[error("the axis of `{name}` has no values")]
    EmptyAxis {
        /// The variable.
        name: String,
    },
    /// More points than [`MAX_GRID_POINTS`].
    #[error("the grid has {points} points, more than the {max} a sweep takes: split it")]
    TooLarge {
        /// The number of points (as text: it may not fit in a `usize`).
        points: String,
        /// The limit.
        max: usize,
    },
    /// Columns that do not match the variables or the output.
    #[error("a batch needs {vars} columns of {len} values, found {found}")]
    Columns {
        /// The variables.
        vars: usize,
        /// The points.
        len: usize,
        /// What was given, as text.
        found: String,
    },
    /// The first point where the model is not finite, with the
    /// sub-expression at fault.
    #[error("at point {index} of the sweep: {error}")]
    NotFinite {
        /// The point's index (row-major in a grid).
        index: usize,
        /// The evaluation error: the innermost non-finite sub-expression
        /// and the point's bindings.
        error: EvalError,
    },
}

/// A model evaluated over the Cartesian product of its variables' axes.
///
/// ```
/// use pattern_core::Expr;
///
/// let pool = Expr::parse("1034.17 * x * log2(x) / n").unwrap().compile(&["x", "n"]).unwrap();
/// let grid = pool.grid(&[("x", &[1024.0, 4096.0]), ("n", &[1.0, 2.0, 4.0])]).unwrap();
/// assert_eq!(grid.shape(), vec![2, 3]);
/// assert_eq!(grid.get(&[0, 2]), Some(1034.17 * 1024.0 * 10.0 / 4.0));
/// let (point, value) = grid.points().last().unwrap();
/// assert_eq!(point, vec![4096.0, 4.0]);
/// assert_eq!(value, 1034.17 * 4096.0 * 12.0 / 4.0);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    axes: Vec<(String, Vec<f64>)>,
    values: Vec<f64>,
}

impl Grid {
    /// The axes, in the order given: each variable and its values.
    pub fn axes(&self) -> &[(String, Vec<f64>)] {
        &self.axes
    }

    /// The number of values along each axis.
    pub fn shape(&self) -> Vec<usize> {
        self.axes.iter().map(|(_, v)| v.len()).collect()
    }

    /// The values, row-major: the last axis varies fastest.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The number of points.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the grid has no point (never, for a grid a sweep made).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value at one index per axis; `None` if an index is out of range
    /// or the number of indices is not the number of axes.
    pub fn get(&self, index: &[usize]) -> Option<f64> {
        if index.len() != self.axes.len() {
            return None;
        }
        let mut flat = 0usize;
        for (&i, (_, values)) in index.iter().zip(&self.axes) {
            if i >= values.len() {
                return None;
            }
            flat = flat * values.len() + i;
        }
        self.values.get(flat).copied()
    }

    /// Every point with its value, row-major.
    pub fn points(&self) -> impl Iterator<Item = (Vec<f64>, f64)> + '_ {
        self.values
            .iter()
            .enumerate()
            .map(|(flat, &v)| (self.point(flat), v))
    }

    /// The coordinates of the point at row-major index `flat`.
    fn point(&self, mut flat: usize) -> Vec<f64> {
        let mut p = vec![0.0; self.axes.len()];
        for (k, (_, values)) in self.axes.iter().enumerate().rev() {
            p[k] = values[flat % values.len()];
            flat /= values.len();
        }
        p
    }
}

impl CompiledExpr {
    /// The model over the grid of `axes`, one per variable of the compiled
    /// expression (in any order). Values that are not finite are kept; see
    /// [`CompiledExpr::grid_checked`].
    pub fn grid(&self, axes: &[(&str, &[f64])]) -> Result<Grid, SweepError> {
        let order = self.axis_order(axes)?;
        let shape: Vec<usize> = axes.iter().map(|(_, v)| v.len()).collect();
        let points = shape
            .iter()
            .try_fold(1usize, |n, &len| n.checked_mul(len))
            .filter(|&n| n <= MAX_GRID_POINTS)
            .ok_or_else(|| SweepError::TooLarge {
                points: shape
                    .iter()
                    .map(|&len| len as u128)
                    .product::<u128>()
                    .to_string(),
                max: MAX_GRID_POINTS,
            })?;
        // One column per variable of the model, in its order.
        let mut columns = vec![Vec::with_capacity(points); self.vars().len()];
        for flat in 0..points {
            let mut rest = flat;
            for (k, (_, values)) in axes.iter().enumerate().rev() {
                columns[order[k]].push(values[rest % values.len()]);
                rest /= values.len();
            }
        }
        let mut values = vec![0.0; points];
        let refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        self.eval_batch(&refs, &mut values);
        Ok(Grid {
            axes: axes
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_vec()))
                .collect(),
            values,
        })
    }

    /// [`CompiledExpr::grid`], failing at the first point (row-major) where
    /// the model is not finite, with the sub-expression at fault.
    ///
    /// ```
    /// use pattern_core::expr::SweepError;
    /// use pattern_core::Expr;
    ///
    /// let e = Expr::parse("x * log2(x - n)").unwrap().compile(&["x", "n"]).unwrap();
    /// let err = e.grid_checked(&[("x", &[8.0, 4.0]), ("n", &[2.0, 4.0])]).unwrap_err();
    /// assert!(matches!(err, SweepError::NotFinite { index: 3, .. }));
    /// assert_eq!(err.to_string(), "at point 3 of the sweep: `log₂(x - n)` is not finite (-inf) at x = 4, n = 4");
    /// ```
    pub fn grid_checked(&self, axes: &[(&str, &[f64])]) -> Result<Grid, SweepError> {
        let grid = self.grid(axes)?;
        if let Some(index) = grid.values.iter().position(|v| !v.is_finite()) {
            let point = grid.point(index);
            let order = self.axis_order(axes)?;
            let mut values = vec![0.0; self.vars().len()];
            for (k, &v) in point.iter().enumerate() {
                values[order[k]] = v;
            }
            return Err(self.not_finite(index, &values));
        }
        Ok(grid)
    }

    /// Evaluates at many points like [`CompiledExpr::eval_batch`], but
    /// checks its input and its output: the wrong number or length of
    /// columns is an error, and so is the first point where the model is not
    /// finite (its index and the sub-expression at fault).
    pub fn eval_batch_checked(
        &self,
        columns: &[&[f64]],
        out: &mut [f64],
    ) -> Result<(), SweepError> {
        if columns.len() != self.vars().len() || columns.iter().any(|c| c.len() != out.len()) {
            let lens: Vec<String> = columns.iter().map(|c| c.len().to_string()).collect();
            return Err(SweepError::Columns {
                vars: self.vars().len(),
                len: out.len(),
                found: format!("{} columns of lengths [{}]", columns.len(), lens.join(", ")),
            });
        }
        self.eval_batch(columns, out);
        if let Some(index) = out.iter().position(|v| !v.is_finite()) {
            let values: Vec<f64> = columns.iter().map(|c| c[index]).collect();
            return Err(self.not_finite(index, &values));
        }
        Ok(())
    }

    /// Evaluates a model of one variable at every value of `xs` (no check
    /// of finiteness: see [`CompiledExpr::grid_checked`]).
    ///
    /// ```
    /// use pattern_core::expr::SweepError;
    /// use pattern_core::Expr;
    ///
    /// let e = Expr::parse("3 * x").unwrap();
    /// assert_eq!(e.compile(&["x"]).unwrap().sweep(&[1.0, 2.0]), Ok(vec![3.0, 6.0]));
    /// let two = Expr::parse("x / n").unwrap().compile(&["x", "n"]).unwrap();
    /// assert!(matches!(two.sweep(&[1.0]), Err(SweepError::MissingAxis { .. })));
    /// ```
    pub fn sweep(&self, xs: &[f64]) -> Result<Vec<f64>, SweepError> {
        match self.vars() {
            [] => Ok(vec![self.eval(&[]); xs.len()]),
            [x] => {
                let grid = self.grid(&[(x.as_str(), xs)]).or_else(|e| match e {
                    SweepError::EmptyAxis { .. } => Ok(Grid {
                        axes: Vec::new(),
                        values: Vec::new(),
                    }),
                    other => Err(other),
                })?;
                Ok(grid.values)
            }
            [_, second, ..] => Err(SweepError::MissingAxis {
                name: second.clone(),
            }),
        }
    }

    /// For each axis, the position of its variable in `vars()`; checks that
    /// every variable has exactly one non-empty axis.
    fn axis_order(&self, axes: &[(&str, &[f64])]) -> Result<Vec<usize>, SweepError> {
        let mut order = Vec::with_capacity(axes.len());
        for (k, (name, values)) in axes.iter().enumerate() {
            let Some(i) = self.vars().iter().position(|v| v == name) else {
                return Err(SweepError::UnknownVariable {
                    name: name.to_string(),
                    vars: self.vars().join(", "),
                });
            };
            if axes[..k].iter().any(|(other, _)| other == name) {
                return Err(SweepError::DuplicateAxis {
                    name: name.to_string(),
                });
            }
            if values.is_empty() {
                return Err(SweepError::EmptyAxis {
                    name: name.to_string(),
                });
            }
            order.push(i);
        }
        if let Some(missing) = self
            .vars()
            .iter()
            .find(|v| !axes.iter().any(|(n, _)| n == *v))
        {
            return Err(SweepError::MissingAxis {
                name: missing.clone(),
            });
        }
        Ok(order)
    }

    /// The error at point `index`, whose values (in the order of `vars()`)
    /// give a non-finite result: the tree names the sub-expression.
    fn not_finite(&self, index: usize, values: &[f64]) -> SweepError {
        let error = match self.eval_checked(values) {
            Err(error) => error,
            // The compiled code and the tree disagree only in rounding.
            Ok(v) => EvalError::NonFinite {
                expr: "the compiled model".into(),
                value: v,
                point: self
                    .vars()
                    .iter()
                    .zip(values)
                    .map(|(n, v)| format!("{n} = {v}"))
                    .collect::<Vec<_>>()
                    .join(", "),
            },
        };
        SweepError::NotFinite { index, error }
    }
}

#[cfg(test)]
mod tests {
    use crate::Expr;

    use super::*;

    fn compiled(text: &str, vars: &[&str]) -> CompiledExpr {
        Expr::parse(text).unwrap().compile(vars).unwrap()
    }

    #[test]
    fn a_grid_is_row_major_in_the_axes_order() {
        let c = compiled("100 * x + n", &["x", "n"]);
        // Axes in another order than the variables.
        let g = c
            .grid(&[("n", &[1.0, 2.0]), ("x", &[10.0, 20.0, 30.0])])
            .unwrap();
        assert_eq!(g.shape(), vec![2, 3]);
        assert_eq!(
            g.values(),
            &[1001.0, 2001.0, 3001.0, 1002.0, 2002.0, 3002.0]
        );
        assert_eq!(g.get(&[1, 0]), Some(1002.0));
        assert_eq!(g.get(&[2, 0]), None);
        assert_eq!(g.get(&[0]), None);
        let points: Vec<(Vec<f64>, f64)> = g.points().collect();
        assert_eq!(points[4], (vec![2.0, 20.0], 2002.0));
        assert_eq!(g.len(), 6);
    }

    #[test]
    fn bad_axes_are_errors() {
        let c = compiled("x / n", &["x", "n"]);
        let xs = [1.0, 2.0];
        assert_eq!(
            c.grid(&[("x", &xs), ("y", &xs)]).unwrap_err().to_string(),
            "the grid has an axis for `y`, which is not a variable of the model (its variables: x, n)"
        );
        assert!(
            matches!(c.grid(&[("x", &xs)]), Err(SweepError::MissingAxis { name }) if name == "n")
        );
        assert!(matches!(
            c.grid(&[("x", &xs), ("x", &xs), ("n", &xs)]),
            Err(SweepError::DuplicateAxis { .. })
        ));
        assert!(matches!(
            c.grid(&[("x", &xs), ("n", &[])]),
            Err(SweepError::EmptyAxis { .. })
        ));
        let big = vec![1.0; 1 << 14];
        let err = c.grid(&[("x", &big), ("n", &big)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the grid has 268435456 points, more than the 67108864 a sweep takes: split it"
        );
    }

    #[test]
    fn checked_batches_name_the_first_point_and_sub_expression() {
        let c = compiled("x / (n - 2)", &["x", "n"]);
        let (xs, ns) = ([1.0, 2.0, 3.0], [1.0, 2.0, 2.0]);
        let mut out = [0.0; 3];
        let err = c.eval_batch_checked(&[&xs, &ns], &mut out).unwrap_err();
        let SweepError::NotFinite { index, error } = &err else {
            panic!("{err}")
        };
        assert_eq!(*index, 1);
        assert!(
            matches!(error, EvalError::NonFinite { point, .. } if point == "x = 2, n = 2"),
            "{error}"
        );
        let err = c.eval_batch_checked(&[&xs], &mut out).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a batch needs 2 columns of 3 values, found 1 columns of lengths [3]"
        );
        let mut ok = [0.0; 2];
        c.eval_batch_checked(&[&xs[..2], &[3.0, 4.0]], &mut ok)
            .unwrap();
        assert_eq!(ok, [1.0, 1.0]);
    }

    #[test]
    fn sweeps_of_one_variable() {
        let c = compiled("x * x", &["x"]);
        assert_eq!(c.sweep(&[1.0, 3.0]), Ok(vec![1.0, 9.0]));
        assert_eq!(c.sweep(&[]), Ok(vec![]));
        assert_eq!(compiled("7", &[]).sweep(&[1.0, 2.0]), Ok(vec![7.0, 7.0]));
    }
}
