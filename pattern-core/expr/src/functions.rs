//! The names a call may have: the built-in functions, the built-in
//! profiles' machine functions, and the names refused as another
//! language's maths.

/// The names of the built-in functions, as the parser reads them.
pub const FUNCTIONS: [&str; 8] = ["log2", "ln", "log", "sqrt", "ceil", "floor", "max", "min"];

/// The machine (communication) functions of the built-in profiles. The
/// parser reads a call of any name that is not in [`FUNCTIONS`] as a
/// machine function kept symbolic ([`crate::Expr::Apply`]) until a machine profile
/// resolves it (a profile may define its own, `alltoall(p, b)`), except a
/// name that is a function of another language's maths (`log10`, `exp2`,
/// `pow`, `abs`, ...) or one letter away from one of [`FUNCTIONS`]
/// (`lg2`, `sqr`): those are parse errors listing the functions there are.
pub const MACHINE_FUNCTIONS: [&str; 12] = [
    "allgather",
    "allgather_p",
    "allgatherv",
    "bcast",
    "bcast_p",
    "gather",
    "multibcast",
    "multibcast_p",
    "reduce",
    "scatter",
    "send",
    "send_p",
];

/// Names a user may try for maths this grammar writes otherwise; refused
/// at parse time rather than read as a machine function.
const FOREIGN_MATHS: [&str; 40] = [
    "exp",
    "exp2",
    "expm1",
    "exp10",
    "log10",
    "log1p",
    "lg",
    "lb",
    "ld",
    "pow",
    "powf",
    "powi",
    "abs",
    "fabs",
    "sin",
    "cos",
    "tan",
    "sinh",
    "cosh",
    "tanh",
    "asin",
    "acos",
    "atan",
    "atan2",
    "cbrt",
    "hypot",
    "round",
    "trunc",
    "sign",
    "signum",
    "mod",
    "fmod",
    "ceiling",
    "sum",
    "prod",
    "mean",
    "avg",
    "gamma",
    "erf",
    "factorial",
];

/// Whether a call of `name` (not one of [`FUNCTIONS`]) is a mistake for
/// maths rather than a machine function: see [`MACHINE_FUNCTIONS`].
pub(crate) fn is_mistaken_function(name: &str) -> bool {
    if MACHINE_FUNCTIONS.contains(&name) {
        return false;
    }
    FOREIGN_MATHS.contains(&name)
        || FUNCTIONS
            .iter()
            .any(|f| f.len() >= 3 && one_edit_apart(f, name))
}

/// Whether `a` becomes `b` by one insertion, deletion or substitution.
fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    if long.len() - short.len() > 1 {
        return false;
    }
    let start = short
        .iter()
        .zip(long.iter())
        .take_while(|(x, y)| x == y)
        .count();
    if short.len() == long.len() {
        start < short.len() && short[start + 1..] == long[start + 1..]
    } else {
        short[start..] == long[start + 1..]
    }
}
