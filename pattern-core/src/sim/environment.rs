//! Where a design's steps run: the environments the simulator's planner
//! adds, one per level of `on`, `par` and `groups` (the group size `p`
//! there and the shift of node numbers, as expressions of the level above)
//! or of joining parts. A step's expressions are those of its environment;
//! evaluated once from the top, the environments give each step its
//! bindings, its first node and the size of its group, in time linear in
//! the design however deep it is.

use super::SimError;
use crate::Expr;

/// No environment above (yet): the design's bindings.
pub(crate) const TOP: usize = usize::MAX;

/// Where a fragment's steps run, relative to the level above: `p` there is
/// `size` and node numbers are shifted by `offset` (both expressions of
/// the level above), or nothing changes.
#[derive(Clone, Debug)]
pub(crate) struct Env {
    pub(crate) parent: usize,
    pub(crate) place: Option<(Expr, Expr)>,
}

/// The environments, evaluated: per environment, its bindings (an index
/// into `bound`, or the design's own), its shift of node numbers and the
/// size of the group it is on, if any.
pub(crate) struct Places<'a> {
    binding: Vec<Option<usize>>,
    bound: Vec<Vec<(&'a str, f64)>>,
    shift: Vec<f64>,
    width: Vec<Option<f64>>,
}

impl<'a> Places<'a> {
    /// The environments `envs` evaluated from the top (a parent comes
    /// after its children in the arena) at the design's bindings `at`.
    pub(crate) fn of(envs: &[Env], at: &'a [(&'a str, f64)]) -> Result<Places<'a>, SimError> {
        let n = envs.len();
        let mut places = Places {
            binding: vec![None; n],
            bound: Vec::new(),
            shift: vec![0.0; n],
            width: vec![None; n],
        };
        for e in (0..n).rev() {
            let parent = envs[e].parent;
            let (binding, shift, width) = match parent {
                TOP => (None, 0.0, None),
                p => (places.binding[p], places.shift[p], places.width[p]),
            };
            let Some((size, offset)) = &envs[e].place else {
                (places.binding[e], places.shift[e], places.width[e]) = (binding, shift, width);
                continue;
            };
            let above = places.bindings_at(binding, at);
            let value = |e: &Expr, what: &str| -> Result<f64, SimError> {
                match e.eval(above) {
                    Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
                    Ok(v) => Err(SimError::Model {
                        atom: format!("the group of {size} processors"),
                        message: format!("its {what} is {v}: a finite number >= 0"),
                    }),
                    Err(err) => Err(SimError::Model {
                        atom: format!("the group of {size} processors"),
                        message: err.to_string(),
                    }),
                }
            };
            let (size, offset) = (value(size, "size")?, value(offset, "first processor")?);
            let mut here: Vec<(&'a str, f64)> =
                above.iter().filter(|(v, _)| *v != "p").copied().collect();
            here.push(("p", size));
            places.bound.push(here);
            places.binding[e] = Some(places.bound.len() - 1);
            places.shift[e] = shift + offset;
            places.width[e] = Some(size);
        }
        Ok(places)
    }

    fn bindings_at<'s>(
        &'s self,
        binding: Option<usize>,
        at: &'s [(&'a str, f64)],
    ) -> &'s [(&'a str, f64)] {
        match binding {
            Some(b) => &self.bound[b],
            None => at,
        }
    }

    /// The bindings of a step in `env`.
    pub(crate) fn bindings<'s>(
        &'s self,
        env: usize,
        at: &'s [(&'a str, f64)],
    ) -> &'s [(&'a str, f64)] {
        match env {
            TOP => at,
            e => self.bindings_at(self.binding[e], at),
        }
    }

    pub(crate) fn shift(&self, env: usize) -> f64 {
        if env == TOP { 0.0 } else { self.shift[env] }
    }

    pub(crate) fn width(&self, env: usize) -> Option<f64> {
        if env == TOP { None } else { self.width[env] }
    }
}
