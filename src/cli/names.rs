//! The names an option gives (`--at x=10,n=4`, `--var`, `--domain`, an
//! axis, a count to sweep) checked against the designs it is for: an
//! unknown name is an error with the nearest known one ("did you mean"),
//! and a symbolic count is bound to a whole number from 1 to 2^53, never
//! to `-1` or `2.5`.

use super::args::Point;
use super::error::CliError;
use pattern_core::grammar::{Count, Term};
use pattern_core::{Design, Expr};
use std::collections::BTreeSet;

/// The variable `--var` names unless told otherwise.
pub const DEFAULT_VAR: &str = "x";

/// The largest count a model holds exactly (the checker's limit).
const MAX_COUNT: f64 = 9_007_199_254_740_992.0;

/// The variables and symbolic counts of some designs (or of an expression).
#[derive(Clone, Debug, Default)]
pub struct Known {
    /// Every name a model may depend on: the atoms' variables, the counts,
    /// `p` under processor patterns.
    names: BTreeSet<String>,
    /// The symbolic counts among them.
    counts: BTreeSet<String>,
}

impl Known {
    /// The names of `designs`, together.
    pub fn of(designs: &[&Design]) -> Known {
        let mut known = Known::default();
        for design in designs {
            known.add_term(design.term());
        }
        known
    }

    /// The variables of a bare expression (it has no counts).
    pub fn of_expr(model: &Expr) -> Known {
        Known {
            names: model.vars(),
            counts: BTreeSet::new(),
        }
    }

    fn add_term(&mut self, term: &Term) {
        for node in term.preorder() {
            // The variables a node's own models name, and `p` where it
            // places tasks on processors; its counts below.
            match node {
                Term::Atom(atom) => self.names.extend(atom.model.vars()),
                Term::On(..) | Term::Groups(..) | Term::Par(..) => {
                    self.names.insert("p".into());
                }
                Term::MapReduce {
                    params, shuffle, ..
                } => {
                    self.names.extend(params.d.vars());
                    self.names.extend(params.k.vars());
                    self.names.extend(shuffle.model.vars());
                }
                Term::Redist(e, _, _) => self.names.extend(e.vars()),
                Term::Seq(..) | Term::Pipe(..) | Term::Tpool(..) => {}
            }
            for c in node.counts() {
                if let Count::Symbol(name) = c {
                    self.names.insert(name.clone());
                    self.counts.insert(name.clone());
                }
            }
        }
    }

    /// An error unless `var`, given to `--var`, is a variable of the
    /// designs; the default, `x`, is taken whatever the designs.
    pub fn check_var(&self, var: &str) -> Result<(), CliError> {
        if var == DEFAULT_VAR {
            return Ok(());
        }
        self.check_name("--var", var)
    }

    /// Whether `name` is a symbolic count.
    pub fn is_count(&self, name: &str) -> bool {
        self.counts.contains(name)
    }

    /// An error unless `name`, given to `option`, is a variable or count
    /// of the designs.
    pub fn check_name(&self, option: &str, name: &str) -> Result<(), CliError> {
        if self.names.contains(name) {
            return Ok(());
        }
        Err(CliError::Invalid(unknown(
            option,
            name,
            &self.names,
            "a variable or count",
        )))
    }

    /// An error unless `name`, given to `option`, is a symbolic count.
    pub fn check_count(&self, option: &str, name: &str) -> Result<(), CliError> {
        if self.counts.contains(name) {
            return Ok(());
        }
        Err(CliError::Invalid(unknown(
            option,
            name,
            &self.counts,
            "a count",
        )))
    }

    /// An error unless every name of `point`, given to `option`, is known,
    /// and every count in it is a whole number from 1 to 2^53.
    pub fn check_point(&self, option: &str, point: &Point) -> Result<(), CliError> {
        for (name, value) in &point.0 {
            self.check_name(option, name)?;
            if self.is_count(name) {
                check_count_value(option, name, *value)?;
            }
        }
        Ok(())
    }
}

/// An error unless `at` binds every variable of the designs' models and,
/// with `counts`, every symbolic count, but those in `except` (which the
/// command varies or chooses itself).
pub fn require_bound(
    designs: &[&Design],
    at: &Point,
    counts: bool,
    except: &[&str],
) -> Result<(), CliError> {
    let known = Known::of(designs);
    let mut needed: BTreeSet<String> = BTreeSet::new();
    for design in designs {
        needed.extend(design.model().vars());
    }
    if counts {
        needed.extend(known.counts.iter().cloned());
    } else {
        needed.retain(|n| !known.is_count(n));
    }
    let missing = needed
        .iter()
        .find(|n| !except.contains(&n.as_str()) && !at.0.iter().any(|(b, _)| b == *n));
    match missing {
        Some(name) => {
            let what = if known.is_count(name) {
                "count"
            } else {
                "variable"
            };
            Err(CliError::Invalid(format!(
                "the {what} `{name}` needs a value: give it with --at {name}=.."
            )))
        }
        None => Ok(()),
    }
}

/// The point of `--at` (none: empty), checked against `designs`.
pub fn checked_at(at: Option<&Point>, designs: &[&Design]) -> Result<Point, CliError> {
    let point = at.cloned().unwrap_or_default();
    Known::of(designs).check_point("--at", &point)?;
    Ok(point)
}

/// An error unless `value`, bound to the count `name` at `option`, is a
/// whole number from 1 to 2^53.
pub fn check_count_value(option: &str, name: &str, value: f64) -> Result<(), CliError> {
    if (1.0..=MAX_COUNT).contains(&value) && value.fract() == 0.0 {
        return Ok(());
    }
    Err(CliError::Invalid(format!(
        "{option}: the count `{name}` is {value}: a count is a whole number from 1 to 2^53"
    )))
}

/// The message for an unknown name: what it is not, what there is, and the
/// nearest name when one is close.
fn unknown(option: &str, name: &str, known: &BTreeSet<String>, what: &str) -> String {
    let list: Vec<&str> = known.iter().map(String::as_str).collect();
    let has = if list.is_empty() {
        "it has none".to_string()
    } else {
        format!("it has {}", list.join(", "))
    };
    let mut message = format!("{option}: `{name}` is not {what} of the design ({has})");
    if let Some(near) = nearest(name, &list) {
        message.push_str(&format!("; did you mean `{near}`?"));
    }
    message
}

/// The known name nearest to `name`: the same but for case, else within
/// an edit distance of a third of its length (at least 1, and less than
/// the length: one letter is not a misspelling of another).
pub fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    if let Some(same) = known.iter().find(|k| k.eq_ignore_ascii_case(name)) {
        return Some(same);
    }
    let limit = (name.chars().count() / 3).max(1);
    known
        .iter()
        .map(|k| (edit_distance(name, k), *k))
        .filter(|(d, _)| *d <= limit && *d < name.chars().count())
        .min()
        .map(|(_, k)| k)
}

/// Levenshtein's distance between `a` and `b`, in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let replaced = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = replaced.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::args::point;

    fn design(text: &str) -> Design {
        Design::parse(text).unwrap()
    }

    #[test]
    fn names_of_a_design() {
        let d = design("s1 = 2*x; s2 = y; pipe(tpool[a](s1), groups[g](s2))");
        let known = Known::of(&[&d]);
        assert_eq!(
            known.names.iter().collect::<Vec<_>>(),
            ["a", "g", "p", "x", "y"]
        );
        assert!(known.is_count("a") && known.is_count("g") && !known.is_count("x"));
    }

    #[test]
    fn unknown_names_are_errors_with_the_nearest() {
        let d = design("s1 = 2*x; s2 = x; pipe(tpool[a](s1), tpool[b](s2))");
        let known = Known::of(&[&d]);
        assert!(
            known
                .check_point("--at", &point("x=10,a=3").unwrap())
                .is_ok()
        );
        let e = known
            .check_point("--at", &point("x=10,A=3").unwrap())
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--at: `A` is not a variable or count of the design (it has a, b, x); did you mean `a`?"
        );
        let e = known.check_name("--var", "zzz").unwrap_err();
        assert_eq!(
            e.to_string(),
            "--var: `zzz` is not a variable or count of the design (it has a, b, x)"
        );
        let e = known.check_count("--count", "x").unwrap_err();
        assert!(
            e.to_string().starts_with("--count: `x` is not a count"),
            "{e}"
        );
    }

    #[test]
    fn counts_are_whole_numbers_from_one() {
        let d = design("s = x; tpool[n](s)");
        let known = Known::of(&[&d]);
        for bad in ["-1", "2.5", "0", "1e17"] {
            let e = known
                .check_point("--at", &point(&format!("x=1,n={bad}")).unwrap())
                .unwrap_err();
            assert!(e.to_string().contains("the count `n` is"), "{e}");
        }
        for good in ["1", "4", "9007199254740992"] {
            let p = point(&format!("x=-3.5,n={good}")).unwrap();
            assert!(known.check_point("--at", &p).is_ok(), "{good}");
        }
    }

    #[test]
    fn unbound_names_are_named_with_the_option() {
        let d = design("s1 = 2*x; s2 = x; pipe(tpool[a](s1), tpool[b](s2))");
        let at = point("x=10,a=2").unwrap();
        let e = require_bound(&[&d], &at, true, &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the count `b` needs a value: give it with --at b=.."
        );
        assert!(require_bound(&[&d], &at, true, &["b"]).is_ok());
        assert!(require_bound(&[&d], &point("a=1").unwrap(), false, &["x"]).is_ok());
        let e = require_bound(&[&d], &point("a=1").unwrap(), false, &[]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the variable `x` needs a value: give it with --at x=.."
        );
    }

    #[test]
    fn nearest_names() {
        assert_eq!(nearest("A", &["a", "b"]), Some("a"));
        assert_eq!(nearest("thread", &["threads", "x"]), Some("threads"));
        assert_eq!(nearest("q", &["threads", "x"]), None);
        assert_eq!(nearest("nn", &["n", "x"]), Some("n"));
        assert_eq!(nearest("qqqqqq", &["threads", "x"]), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "ab"), 2);
    }
}
