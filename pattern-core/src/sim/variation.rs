//! Seeded random variation of step durations: each duration times a Gamma
//! variate of mean 1 and the given coefficient of variation (shape
//! `1/cv²`, scale `cv²`; `cv = 1` is the exponential distribution).

use super::SimError;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gamma};

pub(crate) struct Variation {
    rng: ChaCha8Rng,
    gamma: Option<Gamma<f64>>,
}

impl Variation {
    /// Durations varying with coefficient of variation `cv` (0: none),
    /// drawn from a generator seeded with `seed`.
    pub(crate) fn new(cv: f64, seed: u64) -> Result<Variation, SimError> {
        let invalid = || SimError::InvalidVariation { value: cv };
        if !(cv.is_finite() && cv >= 0.0) {
            return Err(invalid());
        }
        let gamma = if cv == 0.0 {
            None
        } else {
            let k = 1.0 / (cv * cv);
            Some(Gamma::new(k, cv * cv).map_err(|_| invalid())?)
        };
        Ok(Variation {
            rng: ChaCha8Rng::seed_from_u64(seed),
            gamma,
        })
    }

    /// `duration`, varied.
    pub(crate) fn apply(&mut self, duration: f64) -> f64 {
        match &self.gamma {
            Some(g) if duration > 0.0 => duration * g.sample(&mut self.rng),
            _ => duration,
        }
    }
}
