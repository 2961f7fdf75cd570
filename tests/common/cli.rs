//! Running the `pattern` binary in the command line's tests, and the
//! paper's atoms their figures are derived from.
// Each test crate uses its own part of these.
#![allow(dead_code)]

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_pattern");

/// Table 1's atoms (ns per element).
pub fn qsort(x: f64) -> f64 {
    1034.17 * x * x.log2()
}
pub fn inc(x: f64) -> f64 {
    536.185 * x
}
pub const NOP: f64 = 5422.97;

/// `examples/data/stages.design`: max(qsort/a, inc/b, nop/c).
pub fn stages_time(x: f64, (a, b, c): (u64, u64, u64)) -> f64 {
    (qsort(x) / a as f64)
        .max(inc(x) / b as f64)
        .max(NOP / c as f64)
}

/// The path of a file under `examples/data/`.
pub fn data(name: &str) -> String {
    format!("{}/examples/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

pub fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .output()
        .expect("the binary runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 output")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8 errors")
}

/// Runs with `--json`, expects success and nothing on standard error (no
/// progress bar off a terminal), returns the document.
pub fn json(args: &[&str]) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let o = run(&all);
    assert!(o.status.success(), "{args:?} failed: {}", stderr(&o));
    assert_eq!(stderr(&o), "", "{args:?}");
    serde_json::from_str(&stdout(&o)).expect("valid JSON")
}

/// Runs, expects exit code 1, returns standard error.
pub fn fails(args: &[&str]) -> String {
    let o = run(args);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    stderr(&o)
}

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

pub fn close(what: &str, got: f64, want: f64, rel: f64) {
    assert!(
        (got - want).abs() <= rel * want.abs(),
        "{what}: {got} against {want} (relative tolerance {rel})"
    );
}

/// The value printed after `label` on a line of a text report.
pub fn field(text: &str, label: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` in\n{text}"));
    line.trim_start()[label.len()..]
        .split_whitespace()
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number after `{label}` in `{line}`"))
}

/// A file of `contents` in a directory of this test run, named `name`.
pub fn temp_file(name: &str, contents: &str) -> String {
    let dir = std::env::temp_dir().join(format!("pattern-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

/// Runs with `input` on standard input.
pub fn run_stdin(args: &[&str], input: &str) -> Output {
    let mut child = (Command::new(BIN).args(args))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}
