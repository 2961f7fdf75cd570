//! A design's time per element predicted on a machine (the queueing
//! semantics), the "annotation" a design's contract holds its runs to.

use super::error::ContractError;
use crate::Design;
use crate::machine::Machine;

/// The design's time per element on `machine` at size `x`, positive.
pub(super) fn predicted_at(
    design: &Design,
    machine: &Machine,
    x: usize,
    function: &str,
) -> Result<f64, ContractError> {
    let predicted =
        design
            .queueing(machine, &[("x", x as f64)])
            .map_err(|e| ContractError::Prediction {
                function: function.to_string(),
                message: e.to_string(),
            })?;
    let value = predicted.time_per_element;
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(ContractError::AnnotationValue {
            function: function.to_string(),
            x,
            value,
        })
    }
}
