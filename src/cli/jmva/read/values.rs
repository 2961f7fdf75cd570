//! The values of a JMVA file: attributes, numbers, populations, counts
//! and load-dependent lists, each checked where it is read.

use super::{Read, fault};
use crate::cli::jmva::{JmvaClass, JmvaStation};
use quick_xml::XmlVersion;
use quick_xml::events::BytesStart;

/// The largest population: 2^53, the largest whole number JMT's doubles
/// hold exactly.
const MAX_POPULATION: u64 = 1 << 53;

/// Relative difference within which two classes' service-time curves at a
/// load-dependent station are taken as one.
const SAME_CURVE: f64 = 1e-9;

/// `<tag name="...">`, or `<tag>`.
pub(super) fn label(tag: &str, key: &str, value: Option<&str>) -> String {
    match value {
        Some(v) => format!("<{tag} {key}=\"{v}\">"),
        None => format!("<{tag}>"),
    }
}

pub(super) fn attribute(e: &BytesStart, key: &str, offset: usize) -> Read<Option<String>> {
    let tag = e.name().as_ref().to_string();
    match e.try_get_attribute(key) {
        Ok(None) => Ok(None),
        Ok(Some(a)) => match a.normalized_value(XmlVersion::Implicit1_0) {
            Ok(v) => Ok(Some(v.into_owned())),
            Err(x) => fault(
                offset,
                &label(&tag, "", None),
                format!("attribute `{key}`: {x}"),
            ),
        },
        Err(x) => fault(
            offset,
            &label(&tag, "", None),
            format!("malformed attributes: {x}"),
        ),
    }
}

pub(super) fn required(e: &BytesStart, key: &str, offset: usize) -> Read<String> {
    match attribute(e, key, offset)? {
        Some(v) if !v.trim().is_empty() => Ok(v),
        Some(_) => fault(
            offset,
            &label(e.name().as_ref(), "", None),
            format!("`{key}` is empty"),
        ),
        None => fault(
            offset,
            &label(e.name().as_ref(), "", None),
            format!("has no `{key}` attribute"),
        ),
    }
}

/// A count attribute (`number`, `servers`): a whole number.
pub(super) fn count(e: &BytesStart, key: &str, offset: usize, what: &str) -> Read<Option<usize>> {
    match attribute(e, key, offset)? {
        None => Ok(None),
        Some(v) => match v.trim().parse::<usize>() {
            Ok(n) => Ok(Some(n)),
            Err(_) => fault(
                offset,
                what,
                format!("`{key}=\"{v}\"` is not a whole number"),
            ),
        },
    }
}

/// A number that is finite and not negative.
pub(super) fn non_negative(text: &str, what: &str, offset: usize, element: &str) -> Read<f64> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Ok(v) if v < 0.0 => fault(offset, element, format!("the {what} {v} is negative")),
        _ => fault(
            offset,
            element,
            format!("`{}` is not a {what} (a finite number ≥ 0)", text.trim()),
        ),
    }
}

/// A closed class's population: a whole number of jobs (`4`, or `4.0` as
/// older JMT files write it), at most 2^53.
pub(super) fn population(text: &str, offset: usize, element: &str) -> Read<usize> {
    let v = text.trim();
    let whole = v.parse::<u64>().ok().or_else(|| {
        let f = v.parse::<f64>().ok()?;
        (f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f <= MAX_POPULATION as f64)
            .then_some(f as u64)
    });
    match whole.filter(|&n| n <= MAX_POPULATION) {
        Some(n) => {
            usize::try_from(n).or_else(|_| fault(offset, element, "the population is too large"))
        }
        None => fault(
            offset,
            element,
            format!("the population `{v}` is not a whole number of jobs (0 to 2^53)"),
        ),
    }
}

/// The `number` a container declares against what it holds.
pub(super) fn check_number(
    at: Option<(usize, Option<usize>)>,
    held: usize,
    what: &str,
    of: &str,
) -> Read<()> {
    match at {
        Some((offset, Some(n))) if n != held => fault(
            offset,
            what,
            format!("says number=\"{n}\" but holds {held} {of}"),
        ),
        _ => Ok(()),
    }
}

/// A load-dependent list as it means the same: no times past the most
/// jobs there can be (`total`, at least one time kept), and no trailing
/// repeats of the last time (it repeats beyond the list anyway). JMT
/// writes one time per population; this keeps what differs.
pub(super) fn canonical_times(times: &mut Vec<f64>, total: usize) {
    times.truncate(total.max(1));
    while let [.., a, b] = times[..]
        && a == b
    {
        times.pop();
    }
}

/// A load-dependent station's classes must slow down alike with the jobs
/// there (the product form's rate `α(n)` is the station's, not a
/// class's): each class's times `S_c(n)` proportional to every other's,
/// and none 0 where the first is not (an infinite rate).
pub(super) fn one_curve(station: &JmvaStation, classes: &[JmvaClass]) -> Result<(), String> {
    for (c, times) in station.service.iter().enumerate() {
        let zero = |n: usize| times.iter().skip(n).position(|&t| t == 0.0);
        if times[0] == 0.0 {
            if let Some(n) = times.iter().position(|&t| t > 0.0) {
                return Err(format!(
                    "the class `{}` takes 0 with one job there but {} with {}: no rate fits (give S(1) > 0, or 0 throughout)",
                    classes[c].name,
                    times[n],
                    n + 1
                ));
            }
        } else if let Some(n) = zero(1) {
            return Err(format!(
                "the class `{}` takes 0 with {} jobs there: an infinite rate",
                classes[c].name,
                n + 2
            ));
        }
    }
    // Each list against the shortest, over its own length (the shortest's
    // last time repeated): linear in the lists, however many classes.
    let visiting = || (station.service.iter().enumerate()).filter(|(_, t)| t[0] > 0.0);
    let Some((f, base)) = visiting().min_by_key(|(_, t)| t.len()) else {
        return Ok(());
    };
    for (c, times) in visiting().filter(|&(c, _)| c != f) {
        for (n, &t) in times.iter().enumerate() {
            let (a, b) = (t / times[0], base[n.min(base.len() - 1)] / base[0]);
            if (a - b).abs() > SAME_CURVE * a.max(b) {
                // Named in the file's order.
                let ((x, rx), (y, ry)) = if f < c {
                    ((f, b), (c, a))
                } else {
                    ((c, a), (f, b))
                };
                return Err(format!(
                    "the classes `{}` and `{}` slow down differently with {} jobs there ({rx} and {ry} times their time alone): the solvers take one rate curve per station",
                    classes[x].name,
                    classes[y].name,
                    n + 1,
                ));
            }
        }
    }
    Ok(())
}
