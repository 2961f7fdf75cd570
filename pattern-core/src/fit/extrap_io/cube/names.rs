//! Parameters from the names of the runs' directories, by Extra-P's rule:
//! the text after the first `.` and before the first `.r` (the repetition)
//! alternates names and values (`x10y1z25`, `x20,5.y20,5`), `,` is a
//! decimal point and a value's trailing `.` a separator; every run must
//! name the same parameters in the same order, and those of one value in
//! all runs are dropped.

use crate::fit::extrap_io::ExtrapError;

/// The parameters of one directory name: `(name, value)` in order.
pub(super) fn parse(dir: &str) -> Result<Vec<(String, f64)>, String> {
    let start = dir.find('.').map_or(0, |i| i + 1);
    let end = dir.find(".r").unwrap_or(dir.len());
    let text = dir.get(start..end).unwrap_or("");
    let is_value = |c: char| c.is_ascii_digit() || c == '.' || c == ',';
    // Alternate runs of value characters and of others.
    let mut tokens: Vec<(bool, &str)> = Vec::new();
    let (mut from, mut kind) = (0, None);
    for (i, c) in text.char_indices() {
        let v = is_value(c);
        if let Some(k) = kind.filter(|&k| k != v) {
            tokens.push((k, &text[from..i]));
            from = i;
        }
        kind = Some(v);
    }
    if let Some(k) = kind {
        tokens.push((k, &text[from..]));
    }
    if !tokens.iter().any(|&(v, _)| v) {
        return Err(format!("no parameter value in `{dir}` (the part `{text}`)"));
    }
    if tokens.first().is_some_and(|&(v, _)| v) {
        return Err(format!(
            "`{text}` in `{dir}` starts with a value, not a parameter name"
        ));
    }
    if tokens.last().is_some_and(|&(v, _)| !v) {
        return Err(format!("`{text}` in `{dir}` ends with a name, not a value"));
    }
    let mut parameters = Vec::with_capacity(tokens.len() / 2);
    for pair in tokens.chunks_exact(2) {
        let (name, raw) = (pair[0].1, pair[1].1);
        let number = raw.replace(',', ".");
        let number = number.trim_end_matches('.');
        match number.parse::<f64>() {
            Ok(v) if v.is_finite() => parameters.push((name.to_string(), v)),
            _ => return Err(format!("`{raw}` in `{dir}` is not a number")),
        }
    }
    Ok(parameters)
}

/// The parameters that vary between the runs, and each run's coordinate
/// in them.
pub(super) fn parameters(dirs: &[&str]) -> Result<(Vec<String>, Vec<Vec<f64>>), ExtrapError> {
    let mut runs = Vec::with_capacity(dirs.len());
    for dir in dirs {
        runs.push(parse(dir).map_err(ExtrapError::Invalid)?);
    }
    let Some(first) = runs.first() else {
        return Err(ExtrapError::Invalid("no runs".into()));
    };
    let names: Vec<&str> = first.iter().map(|(n, _)| n.as_str()).collect();
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(ExtrapError::Invalid(format!(
                "parameter `{n}` appears twice in `{}`",
                dirs[0]
            )));
        }
    }
    for (run, dir) in runs.iter().zip(dirs) {
        if !run
            .iter()
            .map(|(n, _)| n.as_str())
            .eq(names.iter().copied())
        {
            let these: Vec<&str> = run.iter().map(|(n, _)| n.as_str()).collect();
            return Err(ExtrapError::Invalid(format!(
                "the runs must name the same parameters in the same order: `{dir}` has {these:?}, `{}` has {names:?}",
                dirs[0]
            )));
        }
    }
    let varies: Vec<bool> = (0..names.len())
        .map(|k| runs.iter().any(|r| r[k].1 != runs[0][k].1))
        .collect();
    if !varies.contains(&true) {
        return Err(ExtrapError::Invalid(format!(
            "no parameter varies between the runs (parameters {names:?} in the names of {} directories)",
            dirs.len()
        )));
    }
    let kept = |k: &usize| varies[*k];
    let parameters = (0..names.len()).filter(kept).map(|k| names[k].to_string());
    let coordinates = runs
        .iter()
        .map(|r| (0..names.len()).filter(kept).map(|k| r[k].1).collect())
        .collect();
    Ok((parameters.collect(), coordinates))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(dir: &str) -> Vec<(String, f64)> {
        parse(dir).unwrap()
    }

    fn pairs(p: &[(&str, f64)]) -> Vec<(String, f64)> {
        p.iter().map(|&(n, v)| (n.to_string(), v)).collect()
    }

    #[test]
    fn extrap_allowed_formats_parse() {
        let xyz = |x, y, z| pairs(&[("x", x), ("y", y), ("z", z)]);
        assert_eq!(parsed("mm.x1.1y1.1z1.1"), xyz(1.1, 1.1, 1.1));
        assert_eq!(parsed("mm.x10y1z1.r1"), xyz(10.0, 1.0, 1.0));
        assert_eq!(parsed("mm.x1y1z1"), xyz(1.0, 1.0, 1.0));
        assert_eq!(parsed("mm.x20,5.y20,5.z1,5.r1"), xyz(20.5, 20.5, 1.5));
        assert_eq!(parsed("mm.x21.5,y21,5,z1.15.r1"), xyz(21.5, 21.5, 1.15));
        assert_eq!(parsed("mm.x22.5.y22.5.z1.25.r1"), xyz(22.5, 22.5, 1.25));
        assert_eq!(parsed("mm.x25.y25.z1.r1"), xyz(25.0, 25.0, 1.0));
        assert_eq!(parsed("x10y1z1"), xyz(10.0, 1.0, 1.0));
        // Score-P style names, and a repetition number past 9.
        assert_eq!(
            parsed("lulesh.p64.size30.r12"),
            pairs(&[("p", 64.0), ("size", 30.0)])
        );
        assert_eq!(parsed("app.p8"), pairs(&[("p", 8.0)]));
    }

    #[test]
    fn extrap_negative_examples_are_errors() {
        // `wrong1` is a parameter `wrong` (Extra-P's negative example fails
        // only against the other runs' names); a trailing name is wrong.
        assert_eq!(
            parsed("mm.x1y1wrong1"),
            pairs(&[("x", 1.0), ("y", 1.0), ("wrong", 1.0)])
        );
        let e = parse("mm.x1y1abc").unwrap_err();
        assert!(e.contains("ends with a name"), "{e}");
        let e = parse("mm.10x").unwrap_err();
        assert!(e.contains("starts with a value"), "{e}");
        let e = parse("scorep-abc").unwrap_err();
        assert!(e.contains("no parameter value"), "{e}");
        let e = parse("mm.x1.2.3").unwrap_err();
        assert!(e.contains("`1.2.3`"), "{e}");
        // `.r` before the first `.`'s end: nothing between them.
        let e = parse("a.r1").unwrap_err();
        assert!(e.contains("no parameter value"), "{e}");
        let e = parse("m.x.,").unwrap_err();
        assert!(e.contains("not a number"), "{e}");
        let huge = format!("m.x{}", "9".repeat(400));
        assert!(parse(&huge).unwrap_err().contains("not a number"));
    }

    #[test]
    fn constant_parameters_are_dropped_and_names_must_agree() {
        let (names, coords) =
            parameters(&["mm.x1y1z1.r1", "mm.x10y1z1.r1", "mm.x10y1z1.r2", "x25y1z1"]).unwrap();
        assert_eq!(names, ["x"]);
        assert_eq!(coords, [vec![1.0], vec![10.0], vec![10.0], vec![25.0]]);
        let (names, coords) = parameters(&["a.p2n10", "a.p4n20"]).unwrap();
        assert_eq!(names, ["p", "n"]);
        assert_eq!(coords, [vec![2.0, 10.0], vec![4.0, 20.0]]);
        let e = parameters(&["mm.x1y1z1", "mm.y1x1z1"]).unwrap_err();
        assert!(
            matches!(&e, ExtrapError::Invalid(m) if m.contains("same order")),
            "{e}"
        );
        let e = parameters(&["mm.x1y1", "mm.x1y1.r2"]).unwrap_err();
        assert!(
            matches!(&e, ExtrapError::Invalid(m) if m.contains("no parameter varies")),
            "{e}"
        );
        let e = parameters(&["mm.x1x2", "mm.x2x3"]).unwrap_err();
        assert!(
            matches!(&e, ExtrapError::Invalid(m) if m.contains("appears twice")),
            "{e}"
        );
        assert!(matches!(parameters(&[]), Err(ExtrapError::Invalid(_))));
    }
}
