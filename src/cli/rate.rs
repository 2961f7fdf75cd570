//! `pattern mva DESIGN --rate 2000/s`: the design fed at a rate, as an open
//! network (`Queueing::at_rate`): the latency at that rate, the highest
//! rate it sustains and what limits it, each station's load.

use super::error::CliError;
use super::output::{Text, json_num, num};
use pattern_core::semantics::RatePrediction;
use serde_json::{Value, json};

/// Elements per ns of a rate written `N/unit` (`2000/s`, `3.5/ms`,
/// `1/us`, `0.001/ns`).
pub fn rate(text: &str) -> Result<f64, String> {
    let bad = || {
        format!(
            "`{text}` is not a rate: elements per unit of time, as 2000/s, 3.5/ms, 1/us or 0.001/ns"
        )
    };
    let (count, unit) = text.trim().split_once('/').ok_or_else(bad)?;
    // ns per unit: dividing by it rounds once (2000/s is 2e-6 exactly).
    let ns = match unit.trim() {
        "s" => 1e9,
        "ms" => 1e6,
        "us" | "µs" => 1e3,
        "ns" => 1.0,
        _ => return Err(bad()),
    };
    match count.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v / ns),
        _ => Err(bad()),
    }
}

/// The rate in elements per second, for people.
fn per_second(per_ns: f64) -> String {
    format!("{}/s", num(per_ns * 1e9))
}

/// The report's rows and the JSON of a prediction at a rate.
pub fn report(text: &mut Text, p: &RatePrediction) -> Value {
    const W: usize = 19;
    text.row(0, W, "rate", per_second(p.rate));
    text.row(0, W, "latency", num(p.latency));
    text.row(0, W, "highest rate", per_second(p.max_rate));
    text.row(0, W, "limited by", &p.limit);
    text.line("");
    let name_width = (p.stations.iter())
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(7);
    text.line(format!(
        "{:<name_width$}  {:>7}  {:>10}  {:>11}  {:>14}",
        "station", "servers", "demand", "utilization", "residence time"
    ));
    for s in &p.stations {
        text.line(format!(
            "{:<name_width$}  {:>7}  {:>10}  {:>11}  {:>14}",
            s.name,
            s.servers,
            num(s.demand),
            num(s.utilization),
            num(s.residence_time)
        ));
    }
    json!({
        "rate_per_ns": json_num(p.rate),
        "latency": json_num(p.latency),
        "max_rate_per_ns": json_num(p.max_rate),
        "limit": p.limit,
        "stations": p.stations.iter().map(|s| json!({
            "name": s.name,
            "servers": s.servers,
            "demand": json_num(s.demand),
            "utilization": json_num(s.utilization),
            "residence_time": json_num(s.residence_time),
        })).collect::<Vec<_>>(),
    })
}

/// The error of a rate the design does not sustain, in elements per second.
pub fn saturated(e: pattern_core::semantics::QueueingError) -> CliError {
    match e {
        pattern_core::semantics::QueueingError::Saturated {
            rate,
            max_rate,
            limit,
        } => CliError::Invalid(format!(
            "at {} the design saturates: it sustains at most {}, limited by {limit}",
            per_second(rate),
            per_second(max_rate)
        )),
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_in_every_unit() {
        assert_eq!(rate("2000/s"), Ok(2e-6));
        assert_eq!(rate(" 3.5 / ms"), Ok(3.5e-6));
        assert_eq!(rate("1/us"), Ok(1e-3));
        assert_eq!(rate("0.25/ns"), Ok(0.25));
        for bad in [
            "2000", "2000/h", "0/s", "-1/s", "nan/s", "inf/s", "/s", "x/s",
        ] {
            assert!(rate(bad).is_err(), "{bad}");
        }
    }
}
