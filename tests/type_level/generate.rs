//! Writes the random designs of `tests/type_level_random.rs`
//! (`tests/type_level/designs.in`): random designs over every pattern, each
//! as a type of the type-level algebra (`pattern_core::dsl`) and as the
//! design text that `Design::parse` reads, with random points at which the
//! test compares the const model of the type with the runtime model of the
//! text. Types cannot be made at run time, so the designs are written ahead,
//! from a seed, and checked in; the test checks that the file is what this
//! generator writes.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write as _;

/// The seed of the checked-in designs.
pub const SEED: u64 = 14;
/// How many designs are checked in.
pub const DESIGNS: usize = 300;
const POINTS: usize = 4;
/// The named counts (marker types implementing `CountName`).
const SYMBOLS: [(&str, &str); 3] = [("SymQ", "q"), ("SymR", "r"), ("SymG", "g")];
/// The variables bound at every point, in this order.
const VARIABLES: [&str; 5] = ["x", "p", "q", "r", "g"];

/// A cost model, written both as a `ConstExpr` and as text.
enum M {
    Num(f64),
    Var(&'static str),
    Add(Box<M>, Box<M>),
    Mul(Box<M>, Box<M>),
    Div(Box<M>, Box<M>),
    Pow(Box<M>, Box<M>),
    Log2(Box<M>),
    Sqrt(Box<M>),
    Ceil(Box<M>),
    Max(Box<M>, Box<M>),
    Min(Box<M>, Box<M>),
}

fn num(v: f64) -> M {
    M::Num(v)
}
fn var(v: &'static str) -> M {
    M::Var(v)
}
fn add(a: M, b: M) -> M {
    M::Add(Box::new(a), Box::new(b))
}
fn mul(a: M, b: M) -> M {
    M::Mul(Box::new(a), Box::new(b))
}
fn div(a: M, b: M) -> M {
    M::Div(Box::new(a), Box::new(b))
}

impl M {
    /// The `ConstExpr` tree, as Rust source.
    fn rust(&self) -> String {
        let two =
            |name: &str, a: &M, b: &M| format!("ConstExpr::{name}(&{}, &{})", a.rust(), b.rust());
        let one = |name: &str, a: &M| format!("ConstExpr::{name}(&{})", a.rust());
        match self {
            M::Num(v) => format!("ConstExpr::Num({v:?})"),
            M::Var(v) => format!("ConstExpr::Var({v:?})"),
            M::Add(a, b) => two("Add", a, b),
            M::Mul(a, b) => two("Mul", a, b),
            M::Div(a, b) => two("Div", a, b),
            M::Pow(a, b) => two("Pow", a, b),
            M::Max(a, b) => two("Max", a, b),
            M::Min(a, b) => two("Min", a, b),
            M::Log2(a) => one("Log2", a),
            M::Sqrt(a) => one("Sqrt", a),
            M::Ceil(a) => one("Ceil", a),
        }
    }

    /// The design syntax's text, parenthesized as the tree.
    fn text(&self) -> String {
        match self {
            M::Num(v) => format!("{v:?}"),
            M::Var(v) => v.to_string(),
            M::Add(a, b) => format!("({} + {})", a.text(), b.text()),
            M::Mul(a, b) => format!("({} * {})", a.text(), b.text()),
            M::Div(a, b) => format!("({} / {})", a.text(), b.text()),
            M::Pow(a, b) => format!("({} ^ {})", a.text(), b.text()),
            M::Max(a, b) => format!("max({}, {})", a.text(), b.text()),
            M::Min(a, b) => format!("min({}, {})", a.text(), b.text()),
            M::Log2(a) => format!("log2({})", a.text()),
            M::Sqrt(a) => format!("sqrt({})", a.text()),
            M::Ceil(a) => format!("ceil({})", a.text()),
        }
    }
}

/// A coefficient with four significant digits, read the same way by the
/// Rust compiler and by the expression parser.
fn coefficient(rng: &mut ChaCha8Rng) -> f64 {
    let v: f64 = 10f64.powf(rng.random_range(-1.0..4.0));
    format!("{v:.4e}").parse().expect("a number")
}

/// A positive model of an atom in `x` and `p`: one to three terms, each a
/// coefficient times a shape.
fn atom_model(rng: &mut ChaCha8Rng) -> M {
    let terms = rng.random_range(1..=3);
    let mut model = None;
    for _ in 0..terms {
        let shape = match rng.random_range(0..12) {
            0 => num(1.0),
            1 => var("x"),
            2 => mul(var("x"), M::Log2(Box::new(var("x")))),
            3 => M::Sqrt(Box::new(var("x"))),
            4 => M::Pow(Box::new(var("x")), Box::new(num(1.5))),
            5 => div(num(1.0), var("p")),
            6 => M::Log2(Box::new(var("p"))),
            7 => div(var("x"), var("p")),
            8 => M::Ceil(Box::new(div(var("x"), var("p")))),
            9 => div(mul(var("x"), M::Log2(Box::new(var("p")))), var("p")),
            10 => M::Max(Box::new(var("x")), Box::new(var("p"))),
            _ => M::Min(
                Box::new(mul(num(3.0), var("x"))),
                Box::new(mul(var("p"), var("p"))),
            ),
        };
        let term = mul(num(coefficient(rng)), shape);
        model = Some(match model {
            None => term,
            Some(m) => add(m, term),
        });
    }
    model.expect("one term or more")
}

/// A shuffle's model in `x` (elements per key), `o` (keys), `m` and `n`.
fn shuffle_model(rng: &mut ChaCha8Rng) -> M {
    let per_worker = div(
        mul(mul(num(coefficient(rng)), var("x")), var("o")),
        mul(var("m"), var("n")),
    );
    match rng.random_range(0..3) {
        0 => per_worker,
        1 => add(per_worker, mul(num(coefficient(rng)), var("o"))),
        _ => add(
            mul(
                num(coefficient(rng)),
                M::Log2(Box::new(add(mul(var("m"), var("n")), num(1.0)))),
            ),
            mul(num(coefficient(rng)), var("x")),
        ),
    }
}

/// `d(x)` (elements per key) or `k(x)` (keys): positive functions of `x`.
fn size_model(rng: &mut ChaCha8Rng) -> M {
    match rng.random_range(0..5) {
        0 => var("x"),
        1 => num(rng.random_range(1..1000) as f64),
        2 => add(div(var("x"), num(rng.random_range(2..64) as f64)), num(1.0)),
        3 => M::Sqrt(Box::new(var("x"))),
        _ => M::Ceil(Box::new(div(var("x"), num(rng.random_range(2..32) as f64)))),
    }
}

/// A redistribution cost in `x` and `p`.
fn redist_model(rng: &mut ChaCha8Rng) -> M {
    match rng.random_range(0..3) {
        0 => mul(num(coefficient(rng)), div(var("x"), var("p"))),
        1 => add(
            num(coefficient(rng)),
            mul(num(coefficient(rng)), M::Log2(Box::new(var("p")))),
        ),
        _ => mul(
            mul(num(coefficient(rng)), var("x")),
            M::Log2(Box::new(add(var("p"), num(1.0)))),
        ),
    }
}

#[derive(Clone, Copy)]
enum Count {
    Fixed(u64),
    Symbol(usize),
}

impl Count {
    fn ty(self) -> String {
        match self {
            Count::Fixed(k) => format!("Fixed<{k}>"),
            Count::Symbol(i) => SYMBOLS[i].0.to_string(),
        }
    }
    fn text(self) -> String {
        match self {
            Count::Fixed(k) => k.to_string(),
            Count::Symbol(i) => SYMBOLS[i].1.to_string(),
        }
    }
    fn fixed(self) -> Option<u64> {
        match self {
            Count::Fixed(k) => Some(k),
            Count::Symbol(_) => None,
        }
    }
}

enum Node {
    Atom(usize),
    Seq(Box<Node>, Box<Node>),
    Pipe(Box<Node>, Box<Node>),
    Tpool(Count, Box<Node>),
    MapReduce {
        m: Count,
        n: Count,
        d: usize,
        k: usize,
        map: Box<Node>,
        shuffle: usize,
        reduce: Box<Node>,
    },
    On(Count, Box<Node>),
    Par(Vec<(Count, Node)>),
    Groups(Count, Box<Node>),
    Redist(usize, Box<Node>, Box<Node>),
}

/// Where a node is generated: the processors of the enclosing group where
/// known, and whether it is inside a task pool (no mapReduce there).
#[derive(Clone, Copy)]
struct Context {
    processors: Option<u64>,
    in_tpool: bool,
}

const ATOMS: usize = 24;
const SHUFFLES: usize = 6;
const SIZES: usize = 6;
const REDISTS: usize = 6;

struct Generator {
    rng: ChaCha8Rng,
}

impl Generator {
    fn symbol_or(&mut self, fixed: impl FnOnce(&mut ChaCha8Rng) -> u64) -> Count {
        if self.rng.random_bool(0.3) {
            Count::Symbol(self.rng.random_range(0..SYMBOLS.len()))
        } else {
            Count::Fixed(fixed(&mut self.rng))
        }
    }

    fn node(&mut self, depth: u32, cx: Context) -> Node {
        if depth == 0 || self.rng.random_bool(0.2) {
            return Node::Atom(self.rng.random_range(0..ATOMS));
        }
        let d = depth - 1;
        loop {
            match self.rng.random_range(0..8) {
                0 => return Node::Seq(Box::new(self.node(d, cx)), Box::new(self.node(d, cx))),
                1 => return Node::Pipe(Box::new(self.node(d, cx)), Box::new(self.node(d, cx))),
                2 => {
                    let n = self.symbol_or(|r| r.random_range(1..=8));
                    let inside = Context {
                        in_tpool: true,
                        ..cx
                    };
                    return Node::Tpool(n, Box::new(self.node(d, inside)));
                }
                3 if !cx.in_tpool => {
                    let m = self.symbol_or(|r| r.random_range(1..=6));
                    let n = self.symbol_or(|r| r.random_range(1..=12));
                    // Map and reduce are kept small: eq. 5 repeats the
                    // reduce's model.
                    let inner = d.min(1);
                    return Node::MapReduce {
                        m,
                        n,
                        d: self.rng.random_range(0..SIZES),
                        k: self.rng.random_range(0..SIZES),
                        map: Box::new(self.node(inner, cx)),
                        shuffle: self.rng.random_range(0..SHUFFLES),
                        reduce: Box::new(self.node(inner, cx)),
                    };
                }
                4 => {
                    let most = cx.processors.unwrap_or(128);
                    let p = self.symbol_or(|r| r.random_range(1..=most));
                    let inside = Context {
                        processors: p.fixed().or(cx.processors),
                        ..cx
                    };
                    return Node::On(p, Box::new(self.node(d, inside)));
                }
                5 => {
                    let parts = self.rng.random_range(2..=3);
                    let mut left = cx.processors;
                    let mut sizes = Vec::new();
                    for i in 0..parts {
                        // Fixed sizes must add up to at most the enclosing
                        // group; a named size makes the sum unknown.
                        let room = left.map(|l| l.saturating_sub((parts - 1 - i) as u64));
                        let size = match room {
                            Some(0) => Count::Symbol(self.rng.random_range(0..SYMBOLS.len())),
                            Some(r) => self.symbol_or(|g| g.random_range(1..=r.min(64))),
                            None => self.symbol_or(|g| g.random_range(1..=64)),
                        };
                        if let (Some(l), Count::Fixed(k)) = (left, size) {
                            left = Some(l - k);
                        }
                        sizes.push(size);
                    }
                    let all_fixed: Option<u64> = sizes.iter().map(|s| s.fixed()).sum();
                    if let (Some(needed), Some(available)) = (all_fixed, cx.processors) {
                        assert!(needed <= available);
                    }
                    let parts = sizes
                        .into_iter()
                        .map(|size| {
                            let inside = Context {
                                processors: size.fixed(),
                                ..cx
                            };
                            (size, self.node(d, inside))
                        })
                        .collect();
                    return Node::Par(parts);
                }
                6 => {
                    // Counts that do not divide a power of two too: the
                    // normal form keeps floor(p/s) exact.
                    let choices: Vec<u64> = [1, 2, 3, 4, 6, 8]
                        .into_iter()
                        .filter(|&s| cx.processors.is_none_or(|p| s <= p))
                        .collect();
                    let s = self.symbol_or(|r| choices[r.random_range(0..choices.len())]);
                    let inside = Context {
                        processors: match (s.fixed(), cx.processors) {
                            (Some(s), Some(p)) => Some(p / s),
                            _ => None,
                        },
                        ..cx
                    };
                    return Node::Groups(s, Box::new(self.node(d, inside)));
                }
                7 => {
                    let cost = self.rng.random_range(0..REDISTS);
                    return Node::Redist(
                        cost,
                        Box::new(self.node(d, cx)),
                        Box::new(self.node(d, cx)),
                    );
                }
                _ => continue,
            }
        }
    }
}

impl Node {
    fn ty(&self) -> String {
        match self {
            Node::Atom(i) => format!("A{i}"),
            Node::Seq(a, b) => format!("Seq<{}, {}>", a.ty(), b.ty()),
            Node::Pipe(a, b) => format!("Pipe<{}, {}>", a.ty(), b.ty()),
            Node::Tpool(n, t) => format!("TpoolOver<{}, {}>", n.ty(), t.ty()),
            Node::MapReduce {
                m,
                n,
                d,
                k,
                map,
                shuffle,
                reduce,
            } => format!(
                "MapReduceOver<{}, {}, D{d}, K{k}, {}, Sh{shuffle}, {}>",
                m.ty(),
                n.ty(),
                map.ty(),
                reduce.ty()
            ),
            Node::On(p, t) => format!("On<{}, {}>", p.ty(), t.ty()),
            Node::Par(parts) => {
                let mut list = "()".to_string();
                for (size, part) in parts.iter().rev() {
                    list = format!("(Part<{}, {}>, {list})", size.ty(), part.ty());
                }
                format!("Par<{list}>")
            }
            Node::Groups(s, t) => format!("Groups<{}, {}>", s.ty(), t.ty()),
            Node::Redist(c, a, b) => format!("Redist<R{c}, {}, {}>", a.ty(), b.ty()),
        }
    }

    /// The design text of the term; `seq` and `pipe` chains nested to the
    /// right are written n-ary when `flat` says so, as the parser reads them.
    fn text(&self, models: &Models, rng: &mut ChaCha8Rng) -> String {
        match self {
            Node::Atom(i) => format!("a{i}"),
            Node::Seq(..) | Node::Pipe(..) => {
                let name = if matches!(self, Node::Seq(..)) {
                    "seq"
                } else {
                    "pipe"
                };
                let mut parts = Vec::new();
                let mut node = self;
                loop {
                    match (self, node) {
                        (Node::Seq(..), Node::Seq(a, b)) | (Node::Pipe(..), Node::Pipe(a, b)) => {
                            parts.push(a.text(models, rng));
                            let same = matches!(
                                (self, &**b),
                                (Node::Seq(..), Node::Seq(..)) | (Node::Pipe(..), Node::Pipe(..))
                            );
                            if same && rng.random_bool(0.5) {
                                node = b;
                            } else {
                                parts.push(b.text(models, rng));
                                break;
                            }
                        }
                        _ => unreachable!("the loop follows one kind"),
                    }
                }
                format!("{name}({})", parts.join(", "))
            }
            Node::Tpool(n, t) => format!("tpool[{}]({})", n.text(), t.text(models, rng)),
            Node::MapReduce {
                m,
                n,
                d,
                k,
                map,
                shuffle,
                reduce,
            } => {
                let mut params = vec![
                    format!("n = {}", n.text()),
                    format!("d = {}", models.sizes[*d].text()),
                    format!("k = {}", models.sizes[*k].text()),
                ];
                // m defaults to 1.
                if !matches!(m, Count::Fixed(1)) || rng.random_bool(0.5) {
                    params.push(format!("m = {}", m.text()));
                }
                let at = rng.random_range(0..params.len());
                params.swap(0, at);
                format!(
                    "mapreduce[{}]({}, sh{shuffle}, {})",
                    params.join(", "),
                    map.text(models, rng),
                    reduce.text(models, rng)
                )
            }
            Node::On(p, t) => format!("on[{}]({})", p.text(), t.text(models, rng)),
            Node::Par(parts) => {
                let sizes: Vec<String> = parts.iter().map(|(s, _)| s.text()).collect();
                let terms: Vec<String> = parts.iter().map(|(_, t)| t.text(models, rng)).collect();
                format!("par[{}]({})", sizes.join(", "), terms.join(", "))
            }
            Node::Groups(s, t) => format!("groups[{}]({})", s.text(), t.text(models, rng)),
            Node::Redist(c, a, b) => format!(
                "seq[redist = {}]({}, {})",
                models.redists[*c].text(),
                a.text(models, rng),
                b.text(models, rng)
            ),
        }
    }

    /// The atoms and shuffles the node uses.
    fn uses(&self, atoms: &mut Vec<usize>, shuffles: &mut Vec<usize>) {
        match self {
            Node::Atom(i) => atoms.push(*i),
            Node::Seq(a, b) | Node::Pipe(a, b) | Node::Redist(_, a, b) => {
                a.uses(atoms, shuffles);
                b.uses(atoms, shuffles);
            }
            Node::Tpool(_, t) | Node::On(_, t) | Node::Groups(_, t) => t.uses(atoms, shuffles),
            Node::MapReduce {
                map,
                shuffle,
                reduce,
                ..
            } => {
                map.uses(atoms, shuffles);
                shuffles.push(*shuffle);
                reduce.uses(atoms, shuffles);
            }
            Node::Par(parts) => parts.iter().for_each(|(_, t)| t.uses(atoms, shuffles)),
        }
    }
}

struct Models {
    atoms: Vec<M>,
    shuffles: Vec<M>,
    sizes: Vec<M>,
    redists: Vec<M>,
}

/// The source of `designs` random designs from `seed`.
pub fn generate(seed: u64, designs: usize) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let models = Models {
        atoms: (0..ATOMS).map(|_| atom_model(&mut rng)).collect(),
        shuffles: (0..SHUFFLES).map(|_| shuffle_model(&mut rng)).collect(),
        sizes: (0..SIZES).map(|_| size_model(&mut rng)).collect(),
        redists: (0..REDISTS).map(|_| redist_model(&mut rng)).collect(),
    };
    let mut out = String::new();
    let w = &mut out;
    writeln!(
        w,
        "// Generated by tests/type_level/generate.rs from seed {seed}: do not edit."
    )
    .unwrap();
    writeln!(w, "/// The seed the designs were generated from.").unwrap();
    writeln!(w, "pub const SEED: u64 = {seed};").unwrap();
    writeln!(w, "/// The variables of every point, in order.").unwrap();
    writeln!(
        w,
        "pub const VARIABLES: [&str; {}] = {VARIABLES:?};",
        VARIABLES.len()
    )
    .unwrap();
    let cost_model = |w: &mut String, ty: String, name: String, model: &M, shuffle_free: bool| {
        writeln!(
            w,
            "pub struct {ty};\nimpl CostModel for {ty} {{\n    const NAME: &'static str = {name:?};\n    const MODEL: ConstExpr = {};\n}}",
            model.rust()
        )
        .unwrap();
        if shuffle_free {
            writeln!(w, "impl ShuffleFree for {ty} {{}}").unwrap();
        }
    };
    for (i, m) in models.atoms.iter().enumerate() {
        cost_model(w, format!("A{i}"), format!("a{i}"), m, true);
    }
    for (i, m) in models.shuffles.iter().enumerate() {
        cost_model(w, format!("Sh{i}"), format!("sh{i}"), m, false);
    }
    for (i, m) in models.sizes.iter().enumerate() {
        cost_model(w, format!("D{i}"), format!("d{i}"), m, false);
        cost_model(w, format!("K{i}"), format!("k{i}"), m, false);
    }
    for (i, m) in models.redists.iter().enumerate() {
        cost_model(w, format!("R{i}"), format!("r{i}"), m, false);
    }
    for (ty, name) in SYMBOLS {
        writeln!(
            w,
            "pub struct {ty};\nimpl CountName for {ty} {{\n    const NAME: &'static str = {name:?};\n}}"
        )
        .unwrap();
    }
    let mut generator = Generator { rng };
    let mut cases = String::new();
    for i in 0..designs {
        let top = Context {
            processors: None,
            in_tpool: false,
        };
        let depth = generator.rng.random_range(1..=4);
        let node = generator.node(depth, top);
        let (mut atoms, mut shuffles) = (Vec::new(), Vec::new());
        node.uses(&mut atoms, &mut shuffles);
        atoms.sort_unstable();
        atoms.dedup();
        shuffles.sort_unstable();
        shuffles.dedup();
        let mut text = String::new();
        for a in atoms {
            writeln!(text, "a{a} = {};", models.atoms[a].text()).unwrap();
        }
        for s in shuffles {
            writeln!(text, "sh{s} = {};", models.shuffles[s].text()).unwrap();
        }
        text.push_str(&node.text(&models, &mut generator.rng));
        writeln!(w, "pub type Design{i} = {};", node.ty()).unwrap();
        let rng = &mut generator.rng;
        let points: Vec<[f64; 5]> = (0..POINTS)
            .map(|_| {
                [
                    10f64.powf(rng.random_range(0.0..6.0)),
                    rng.random_range(1..=256) as f64,
                    rng.random_range(1..=32) as f64,
                    rng.random_range(1..=32) as f64,
                    rng.random_range(1..=32) as f64,
                ]
            })
            .collect();
        let at = |p: &[f64; 5]| {
            let pairs: Vec<String> = VARIABLES
                .iter()
                .zip(p)
                .map(|(name, v)| format!("({name:?}, {v:?})"))
                .collect();
            format!("&[{}]", pairs.join(", "))
        };
        let point_list: Vec<String> = points.iter().map(|p| format!("{p:?}")).collect();
        let const_values: Vec<String> = points
            .iter()
            .map(|p| format!("cost_with::<Design{i}>({})", at(p)))
            .collect();
        // One const item per design: the compiler bounds the work of each
        // const evaluation, not of the whole table.
        writeln!(
            w,
            "const AT_COMPILE_TIME_{i}: [f64; {POINTS}] = [{}];",
            const_values.join(", ")
        )
        .unwrap();
        writeln!(
            cases,
            "    Case {{\n        ty: {:?},\n        text: {text:?},\n        cost: cost_with::<Design{i}>,\n        term: <Design{i} as Pattern>::term,\n        points: &[{}],\n        at_compile_time: &AT_COMPILE_TIME_{i},\n    }},",
            node.ty(),
            point_list.join(", ")
        )
        .unwrap();
    }
    writeln!(
        w,
        "/// The designs, with their const (compile-time) values at each point.\npub const CASES: &[Case] = &[\n{cases}];"
    )
    .unwrap();
    out
}
