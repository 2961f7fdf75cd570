//! What a value of a machine file may be: each reader refuses a value out
//! of its range with a message that says the range (serde_json adds the
//! line and column, the file reader the key).

use serde::de::{Deserialize, Deserializer, Error as _};

/// A finite number of ns `>= 0`.
pub(crate) fn ns<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(D::Error::custom(format!(
            "{v} is not a time: a finite number of ns >= 0"
        )))
    }
}

/// A finite number of ns `>= 0`, or `null`.
pub(crate) fn optional_ns<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    match Option::<f64>::deserialize(d)? {
        Some(v) if !(v.is_finite() && v >= 0.0) => Err(D::Error::custom(format!(
            "{v} is not a time: a finite number of ns >= 0, or null for ever"
        ))),
        v => Ok(v),
    }
}

/// A finite number `> 0` (a speed, a bandwidth).
pub(crate) fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(D::Error::custom(format!(
            "{v} is out of range: a finite number > 0"
        )))
    }
}

/// A whole number `>= 1` (cores, nodes).
pub(crate) fn at_least_one<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let v = usize::deserialize(d)?;
    if v >= 1 {
        Ok(v)
    } else {
        Err(D::Error::custom("0 is out of range: at least 1"))
    }
}
