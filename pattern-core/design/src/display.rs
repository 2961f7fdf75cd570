//! `Display` (the design syntax) and `Debug` of [`Term`] without recursion:
//! each node is expanded into the pieces it prints, and the pieces are
//! written from an explicit stack, so a term of any depth prints on any
//! thread's stack.

use crate::term::{Count, Term};
use pattern_expr::Expr;
use std::fmt;

/// A piece of the text of a term.
enum Piece<'t> {
    /// Literal text.
    Text(&'t str),
    /// A sub-term, expanded when it is reached.
    Term(&'t Term),
    /// A value's `Display`.
    Show(&'t dyn fmt::Display),
    /// An expression's plain form (`{:#}`), which parses back.
    Plain(&'t Expr),
    /// A value's `Debug`.
    Debug(&'t dyn fmt::Debug),
}

/// Writes `root`, expanding each term with `expand` (which appends the
/// pieces of one node, in order).
fn write<'t>(
    f: &mut fmt::Formatter<'_>,
    root: &'t Term,
    expand: fn(&'t Term, &mut Vec<Piece<'t>>),
) -> fmt::Result {
    let mut stack = vec![Piece::Term(root)];
    let mut node = Vec::new();
    while let Some(piece) = stack.pop() {
        match piece {
            Piece::Text(s) => f.write_str(s)?,
            Piece::Show(v) => write!(f, "{v}")?,
            Piece::Plain(e) => write!(f, "{e:#}")?,
            Piece::Debug(v) => write!(f, "{v:?}")?,
            Piece::Term(t) => {
                expand(t, &mut node);
                stack.extend(node.drain(..).rev());
            }
        }
    }
    Ok(())
}

/// `a, b, c` with the pieces of each item between.
fn list<'t, T>(out: &mut Vec<Piece<'t>>, items: &'t [T], piece: fn(&'t T) -> Piece<'t>) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(Piece::Text(", "));
        }
        out.push(piece(item));
    }
}

fn count(c: &Count) -> Piece<'_> {
    Piece::Show(c)
}

/// The design syntax of one node.
fn syntax<'t>(t: &'t Term, out: &mut Vec<Piece<'t>>) {
    match t {
        Term::Atom(a) => out.push(Piece::Text(&a.name)),
        Term::Seq(..) | Term::Pipe(..) => {
            let seq = matches!(t, Term::Seq(..));
            out.push(Piece::Text(if seq { "seq(" } else { "pipe(" }));
            // A right-nested chain of the same pattern prints as one call.
            let mut node = t;
            while let (true, Term::Seq(a, b)) | (false, Term::Pipe(a, b)) = (seq, node) {
                out.push(Piece::Term(a));
                out.push(Piece::Text(", "));
                node = b;
            }
            out.push(Piece::Term(node));
            out.push(Piece::Text(")"));
        }
        Term::Tpool(n, body) | Term::On(n, body) | Term::Groups(n, body) => {
            out.push(Piece::Text(match t {
                Term::Tpool(..) => "tpool[",
                Term::On(..) => "on[",
                _ => "groups[",
            }));
            out.extend([
                Piece::Show(n),
                Piece::Text("]("),
                Piece::Term(body),
                Piece::Text(")"),
            ]);
        }
        Term::Par(sizes, parts) => {
            out.push(Piece::Text("par["));
            list(out, sizes, count);
            out.push(Piece::Text("]("));
            list(out, parts, Piece::Term);
            out.push(Piece::Text(")"));
        }
        Term::Redist(cost, a, b) => out.extend([
            Piece::Text("seq[redist = "),
            Piece::Plain(cost),
            Piece::Text("]("),
            Piece::Term(a),
            Piece::Text(", "),
            Piece::Term(b),
            Piece::Text(")"),
        ]),
        Term::MapReduce {
            params,
            map,
            shuffle,
            reduce,
        } => out.extend([
            Piece::Text("mapreduce[m = "),
            Piece::Show(&params.m),
            Piece::Text(", n = "),
            Piece::Show(&params.n),
            Piece::Text(", d = "),
            Piece::Plain(&params.d),
            Piece::Text(", k = "),
            Piece::Plain(&params.k),
            Piece::Text("]("),
            Piece::Term(map),
            Piece::Text(", "),
            Piece::Text(&shuffle.name),
            Piece::Text(", "),
            Piece::Term(reduce),
            Piece::Text(")"),
        ]),
    }
}

/// The `Debug` form of one node: what `#[derive(Debug)]` prints on one line.
fn debug<'t>(t: &'t Term, out: &mut Vec<Piece<'t>>) {
    match t {
        Term::Atom(a) => out.extend([Piece::Text("Atom("), Piece::Debug(a), Piece::Text(")")]),
        Term::Seq(a, b) | Term::Pipe(a, b) => out.extend([
            Piece::Text(if matches!(t, Term::Seq(..)) {
                "Seq("
            } else {
                "Pipe("
            }),
            Piece::Term(a),
            Piece::Text(", "),
            Piece::Term(b),
            Piece::Text(")"),
        ]),
        Term::Tpool(n, body) | Term::On(n, body) | Term::Groups(n, body) => out.extend([
            Piece::Text(match t {
                Term::Tpool(..) => "Tpool(",
                Term::On(..) => "On(",
                _ => "Groups(",
            }),
            Piece::Debug(n),
            Piece::Text(", "),
            Piece::Term(body),
            Piece::Text(")"),
        ]),
        Term::Par(sizes, parts) => {
            out.extend([Piece::Text("Par("), Piece::Debug(sizes), Piece::Text(", [")]);
            list(out, parts, Piece::Term);
            out.push(Piece::Text("])"));
        }
        Term::Redist(cost, a, b) => out.extend([
            Piece::Text("Redist("),
            Piece::Debug(cost),
            Piece::Text(", "),
            Piece::Term(a),
            Piece::Text(", "),
            Piece::Term(b),
            Piece::Text(")"),
        ]),
        Term::MapReduce {
            params,
            map,
            shuffle,
            reduce,
        } => out.extend([
            Piece::Text("MapReduce { params: "),
            Piece::Debug(params),
            Piece::Text(", map: "),
            Piece::Term(map),
            Piece::Text(", shuffle: "),
            Piece::Debug(shuffle),
            Piece::Text(", reduce: "),
            Piece::Term(reduce),
            Piece::Text(" }"),
        ]),
    }
}

impl fmt::Display for Term {
    /// The design syntax: `pipe(tpool[4](qsort), inc, nop)`. Right-nested
    /// chains of `pipe` and `seq` print as one n-ary call, which is how the
    /// parser reads them back (a term nested deeper than
    /// [`crate::MAX_DEPTH`] prints, but does not parse back).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write(f, self, syntax)
    }
}

impl fmt::Debug for Term {
    /// The variants and their fields, as `#[derive(Debug)]` writes them, on
    /// one line (also with `{:#?}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write(f, self, debug)
    }
}

#[cfg(test)]
mod tests {
    use crate::term::Term;
    use crate::term::tests::{atom, hist};
    use pattern_expr::Expr;

    #[test]
    fn the_syntax_of_every_pattern() {
        let t = Term::Redist(
            Expr::parse("2*p").unwrap(),
            Box::new(Term::seq(
                Term::pipe(
                    atom("a"),
                    Term::pipe(Term::tpool(3u64, atom("b")), atom("c")),
                ),
                hist(),
            )),
            Box::new(Term::On(
                8u64.into(),
                Box::new(Term::Par(
                    vec![4u64.into(), "q".into()],
                    vec![Term::Groups(2u64.into(), Box::new(atom("c"))), atom("d")],
                )),
            )),
        );
        assert_eq!(
            t.to_string(),
            "seq[redist = 2*p](seq(pipe(a, tpool[3](b), c), mapreduce[m = 1, n = n, d = 768, k = x](map, shuffle, reduce)), on[8](par[4, q](groups[2](c), d)))"
        );
        let left = Term::seq(Term::seq(atom("a"), atom("b")), atom("c"));
        assert_eq!(left.to_string(), "seq(seq(a, b), c)");
    }

    #[test]
    fn debug_is_the_derived_form() {
        let t = Term::Par(
            vec![1u64.into()],
            vec![Term::pipe(atom("a"), Term::tpool("n", atom("b")))],
        );
        assert_eq!(
            format!("{t:?}"),
            r#"Par([Fixed(1)], [Pipe(Atom(Atom { name: "a", model: Var("x"), bytes: None }), Tpool(Symbol("n"), Atom(Atom { name: "b", model: Var("x"), bytes: None })))])"#
        );
        assert_eq!(format!("{t:#?}"), format!("{t:?}"));
        let r = Term::Redist(Expr::num(1.0), Box::new(atom("a")), Box::new(hist()));
        let text = format!("{r:?}");
        assert!(text.starts_with("Redist(Num(1.0), Atom("), "{text}");
        assert!(
            text.contains(
                r#"MapReduce { params: MapReduceParams { m: Fixed(1), n: Symbol("n"), d: Num(768.0), k: Var("x") }, map: Atom("#
            ),
            "{text}"
        );
        assert!(text.ends_with(r#"shuffle: Atom { name: "shuffle", model: Num(0.0), bytes: None }, reduce: Atom(Atom { name: "reduce", model: Var("x"), bytes: None }) })"#), "{text}");
    }

    #[test]
    fn a_deep_term_prints_on_a_small_stack() {
        let (text, debug) = std::thread::Builder::new()
            .stack_size(128 * 1024)
            .spawn(|| {
                let mut t = atom("a");
                for _ in 0..100_000 {
                    t = Term::tpool(2u64, Term::seq(t, atom("b")));
                }
                (t.to_string().len(), format!("{t:?}").len())
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(text, 1 + 100_000 * "tpool[2](seq(, b))".len());
        assert!(debug > text);
    }
}
