//! What the `cli` target checks in the command line's output: the exit
//! code and its message, JSON that parses, times that are times, and for a
//! design whose figures are known (`Known`) every count as given and no
//! time below its bound.

use serde_json::Value;

/// Relative slack of a bound: the figures are computed in floating point.
const SLACK: f64 = 1e-9;

/// `a = C1; b = C2; pipe(a, tpool[K](b))` (`first` = C1, `pool` = C2) or
/// `a = C1; tpool[K](a)` (`first` = None, `pool` = C1).
#[derive(Debug, PartialEq)]
pub struct Known {
    first: Option<f64>,
    pool: f64,
    /// The count as written: a number or the name `k`.
    count: String,
}

impl Known {
    /// Reads the two shapes exactly as `cli::known_design` writes them (a
    /// mutated count, `tpool[ 1]`, is not the shape).
    pub fn parse(text: &str) -> Option<Known> {
        let known = Known::shape(text)?;
        let plain =
            !known.count.is_empty() && known.count.chars().all(|c| c.is_ascii_alphanumeric());
        plain.then_some(known)
    }

    fn shape(text: &str) -> Option<Known> {
        let num = |s: &str| s.trim().parse::<u32>().ok().map(f64::from);
        if let Some(rest) = text.strip_prefix("a = ") {
            let (c1, rest) = rest.split_once("; ")?;
            if let Some(rest) = rest.strip_prefix("b = ") {
                let (c2, term) = rest.split_once("; ")?;
                let count = term.strip_prefix("pipe(a, tpool[")?.strip_suffix("](b))")?;
                return Some(Known {
                    first: Some(num(c1)?),
                    pool: num(c2)?,
                    count: count.to_string(),
                });
            }
            let count = rest.strip_prefix("tpool[")?.strip_suffix("](a)")?;
            return Some(Known {
                first: None,
                pool: num(c1)?,
                count: count.to_string(),
            });
        }
        None
    }

    /// The threads of the design with `k` workers in the pool.
    fn threads(&self, k: u128) -> u128 {
        k + u128::from(self.first.is_some())
    }

    /// The least time per element with `k` workers on `cores` cores of
    /// speed 1: the slowest stage, and the work over the cores.
    fn bound(&self, k: f64, cores: Option<f64>) -> f64 {
        let work = self.first.unwrap_or(0.0) + self.pool;
        let stages = self.first.unwrap_or(0.0).max(self.pool / k);
        cores.map_or(stages, |c| stages.max(work / c))
    }

    /// The least latency: an element passes through every stage.
    fn latency(&self) -> f64 {
        self.first.unwrap_or(0.0) + self.pool
    }
}

/// The value of the last `flag VALUE` in the arguments.
fn option<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    let at = args.iter().rposition(|a| a == flag)?;
    args.get(at + 1).map(String::as_str)
}

/// The value of `name` in a point `x=3,k=4` given with `--at`.
fn at(args: &[String], name: &str) -> Option<String> {
    let point = option(args, "--at")?;
    point
        .split(',')
        .filter_map(|p| p.split_once('='))
        .filter(|(n, _)| n.trim() == name)
        .map(|(_, v)| v.trim().to_string())
        .next_back()
}

/// Checks the outcome of one command line.
pub fn check(
    args: &[String],
    files: &[(String, String)],
    code: u8,
    out: &str,
    err: &str,
) -> Result<(), String> {
    if code > 2 {
        return Err(format!("exit code {code}"));
    }
    if code != 0 && !err.trim_start().starts_with("error") {
        return Err(format!(
            "exit code {code} without an error message: {err:?}"
        ));
    }
    let asked_help = args
        .iter()
        .any(|a| ["--help", "-h", "--version", "-V"].contains(&a.as_str()));
    if code != 0 || asked_help || !args.iter().any(|a| a == "--json") {
        return Ok(());
    }
    let sub = args.first().map_or("", String::as_str);
    let to_file = args.iter().any(|a| a == "-o" || a == "--output");
    if !matches!(sub, "model" | "simulate" | "mva" | "best") || to_file {
        return Ok(());
    }
    let json: Value = serde_json::from_str(out)
        .map_err(|e| format!("`{sub} --json` printed what is not JSON ({e}): {out:.300}"))?;
    times(&json, "")?;
    // The design is the subcommand's first argument that names a file.
    let design = args[1..]
        .iter()
        .take_while(|a| !a.starts_with('-'))
        .find_map(|a| a.strip_prefix('@'))
        .and_then(|name| files.iter().find(|(n, _)| n == name))
        .and_then(|(_, text)| Known::parse(text));
    match design {
        Some(known) if option(args, "--machine").is_none() => {
            counts_and_bounds(sub, args, &known, &json)
        }
        _ => Ok(()),
    }
}

/// Every time in the JSON is a finite number, never negative.
fn times(json: &Value, key: &str) -> Result<(), String> {
    const TIMES: &[&str] = &[
        "time_per_element",
        "makespan",
        "response_time",
        "cycle_time",
        "residence_time",
        "p50",
        "p90",
        "p99",
        "p100",
    ];
    match json {
        Value::Object(map) => map.iter().try_for_each(|(k, v)| times(v, k)),
        Value::Array(items) => items.iter().try_for_each(|v| times(v, key)),
        Value::Null if TIMES.contains(&key) => Err(format!("the time `{key}` is not a number")),
        Value::Number(n) if TIMES.contains(&key) || key == "latency" => match n.as_f64() {
            Some(v) if v >= 0.0 => Ok(()),
            _ => Err(format!("the time `{key}` is {n}")),
        },
        _ => Ok(()),
    }
}

/// The checks of a known design: its count printed as given, its threads,
/// and its times not below their bounds.
fn counts_and_bounds(
    sub: &str,
    args: &[String],
    known: &Known,
    json: &Value,
) -> Result<(), String> {
    let shown = json["design"].as_str().unwrap_or("");
    if !shown.contains(&format!("tpool[{}]", known.count)) {
        return Err(format!(
            "the design with tpool[{}] printed as `{shown}`",
            known.count
        ));
    }
    // The workers: the literal count, or the value `--at` gives `k`.
    let literal = known.count.parse::<u128>().ok();
    let k = literal.or_else(|| at(args, "k").and_then(|v| v.parse::<u128>().ok()));
    let cores = option(args, "--cores").and_then(|c| c.parse::<f64>().ok());
    let cores = match option(args, "--nodes").map(|n| n.parse::<f64>()) {
        None => cores,
        Some(Ok(n)) => cores.map(|c| c * n),
        Some(Err(_)) => None,
    };
    let at_least = |what: &str, value: &Value, bound: f64| match value.as_f64() {
        Some(v) if v >= bound * (1.0 - SLACK) => Ok(()),
        _ => Err(format!("{what} {value} below its bound {bound}")),
    };
    match sub {
        "model" => {
            if let (Some(k), Some(threads)) = (literal, json["threads"].as_str()) {
                let expected = known.threads(k).to_string();
                if threads != expected {
                    return Err(format!(
                        "threads printed {threads}, the design has {expected}"
                    ));
                }
            }
            for point in json["points"].as_array().into_iter().flatten() {
                let k = literal
                    .map(|k| k as f64)
                    .or_else(|| point["at"]["k"].as_f64());
                if let Some(k) = k.filter(|&k| k >= 1.0) {
                    at_least(
                        "the time per element",
                        &point["time_per_element"],
                        known.bound(k, None),
                    )?;
                    if k < 9.0e15
                        && point["threads"].as_f64() != Some(known.threads(k as u128) as f64)
                    {
                        return Err(format!("threads {} at k = {k}", point["threads"]));
                    }
                }
                at_least("the latency", &point["latency"], known.latency())?;
            }
        }
        "simulate" => {
            let given = option(args, "--elements").map_or(Ok(1000), str::parse::<u64>);
            if let Ok(given) = given
                && json["elements"].as_u64() != Some(given)
            {
                return Err(format!(
                    "{} elements printed, {given} given",
                    json["elements"]
                ));
            }
            let varied = option(args, "--variation").is_some_and(|v| v.parse() != Ok(0.0));
            if let (Some(k), false) = (k.filter(|&k| k >= 1), varied) {
                let bound = known.bound(k as f64, cores);
                at_least("the time per element", &json["time_per_element"], bound)?;
                at_least(
                    "the median latency",
                    &json["latency"]["p50"],
                    known.latency(),
                )?;
            }
        }
        "mva" => {
            if let Some(k) = k.filter(|&k| k >= 1) {
                at_least(
                    "the time per element",
                    &json["time_per_element"],
                    known.bound(k as f64, cores),
                )?;
            }
        }
        _ => best(args, known, json, cores)?,
    }
    Ok(())
}

/// `best`: the budget printed as given, the counts within it (and a count
/// fixed by `--at` as given), the time not below the counts' bound.
fn best(args: &[String], known: &Known, json: &Value, cores: Option<f64>) -> Result<(), String> {
    if let Some(budget) = option(args, "--budget").and_then(|b| b.parse::<u64>().ok()) {
        if json["budget"].as_u64() != Some(budget) {
            return Err(format!("budget {} printed, {budget} given", json["budget"]));
        }
        if json["best"]["threads"].as_u64().is_some_and(|t| t > budget) {
            return Err(format!(
                "{} threads over the budget {budget}",
                json["best"]["threads"]
            ));
        }
    }
    if known.count != "k" {
        return Ok(());
    }
    let Some(k) = json["best"]["counts"]["k"].as_u64() else {
        return Ok(());
    };
    if let Some(fixed) = at(args, "k").and_then(|v| v.parse::<u64>().ok())
        && fixed != k
    {
        return Err(format!("k = {k} chosen, --at fixed it to {fixed}"));
    }
    if json["best"]["threads"].as_u64().map(u128::from) != Some(known.threads(u128::from(k))) {
        return Err(format!("{} threads with k = {k}", json["best"]["threads"]));
    }
    let bound = known.bound(k as f64, cores);
    match json["best"]["time_per_element"].as_f64() {
        Some(v) if v >= bound * (1.0 - SLACK) => Ok(()),
        other => Err(format!(
            "a best time of {other:?} below its bound {bound} at k = {k}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_designs_read() {
        assert_eq!(
            Known::parse("a = 20; b = 100; pipe(a, tpool[k](b))"),
            Some(Known {
                first: Some(20.0),
                pool: 100.0,
                count: "k".into()
            })
        );
        let pool = Known::parse("a = 30; tpool[3](a)").unwrap();
        assert_eq!(
            (pool.threads(3), pool.bound(3.0, None), pool.latency()),
            (3, 10.0, 30.0)
        );
        assert_eq!(Known::parse("a = 30; tpool[3](a) "), None);
        assert_eq!(Known::parse("a = 30; tpool[ 3](a)"), None);
        let pipe = Known::parse("a = 20; b = 100; pipe(a, tpool[7](b))").unwrap();
        assert_eq!(pipe.threads(u128::from(u64::MAX)), 1 << 64);
        assert_eq!(pipe.bound(10.0, Some(2.0)), 60.0);
    }

    fn args(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn broken_outputs_are_found() {
        let files = [(
            "d.design".to_string(),
            "a = 20; b = 100; pipe(a, tpool[4](b))".to_string(),
        )];
        let model = args("model @d.design --json --at x=1");
        let good = r#"{"design": "pipe(a, tpool[4](b))", "threads": "5",
            "points": [{"at": {"x": 1}, "threads": 5.0, "time_per_element": 25.0, "latency": 120.0}]}"#;
        assert_eq!(check(&model, &files, 0, good, ""), Ok(()));
        for bad in [
            good.replace("25.0", "24.0"),
            good.replace("120.0", "119.0"),
            good.replace("\"5\"", "\"4\""),
            good.replace("tpool[4]", "tpool[4.0]"),
            good.replace("25.0", "null"),
            good.replace("{\"design\"", "{{\"design\""),
        ] {
            assert!(check(&model, &files, 0, &bad, "").is_err(), "{bad}");
        }
        assert!(check(&model, &files, 1, "", "").is_err());
        assert!(check(&model, &files, 101, "", "error: x").is_err());
        assert_eq!(check(&model, &files, 1, "", "error: x"), Ok(()));
        let simulate = args("simulate @d.design --json --elements 7 --cores 1");
        let run = r#"{"design": "pipe(a, tpool[4](b))", "elements": 7,
            "time_per_element": 120.0, "latency": {"p50": 120.0}}"#;
        assert_eq!(check(&simulate, &files, 0, run, ""), Ok(()));
        assert!(check(&simulate, &files, 0, &run.replace("7,", "8,"), "").is_err());
        assert!(check(&simulate, &files, 0, &run.replace("120.0,", "119.0,"), "").is_err());
    }
}
