//! Why a design could not be run.

use crate::TermError;

/// Why [`super::Executor::run`] could not run a design. Bad input (an atom
/// without a kernel, an unbound count, a pattern the executor does not
/// support, a kernel that panics) gives one of these, never a panic or a
/// hang.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ExecError {
    /// The design is not well-formed.
    #[error(transparent)]
    Term(#[from] TermError),
    /// An atom of the design has no kernel in the registry.
    #[error("no kernel is registered for the atom `{name}` (registered: {registered})")]
    MissingKernel {
        /// The atom's name.
        name: String,
        /// The registered names, comma-separated.
        registered: String,
    },
    /// An atom's kernel is of the wrong kind for where the atom stands: an
    /// element kernel as the map of a mapReduce, a map kernel as a stage, ...
    #[error("`{name}` stands where {expected} is needed, but its kernel is {found}")]
    WrongKernel {
        /// The atom's name.
        name: String,
        /// What the position needs.
        expected: &'static str,
        /// What is registered.
        found: &'static str,
    },
    /// A count of the design is a symbol that was not bound.
    #[error(
        "the count `{name}` in `{pattern}` is symbolic: bind it with `Executor::bind(\"{name}\", value)`"
    )]
    UnboundCount {
        /// The symbol.
        name: String,
        /// The pattern, as text.
        pattern: String,
    },
    /// A pattern the executor cannot run as written.
    #[error("cannot run `{pattern}`: {reason}")]
    Unsupported {
        /// The pattern, as text.
        pattern: String,
        /// Why.
        reason: String,
    },
    /// A kernel panicked; the run was stopped.
    #[error("the kernel of `{atom}` panicked: {message}")]
    KernelPanicked {
        /// The atom whose kernel panicked.
        atom: String,
        /// The panic's message.
        message: String,
    },
    /// The operating system refused a thread.
    #[error("could not start a thread: {0}")]
    Spawn(String),
    /// An option is out of range: the message names it, the value given and
    /// the limit.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// A map kernel emitted a key outside the keys the design declares.
    #[error(
        "the map kernel of `{atom}` emitted the key {key}, outside the {keys} keys the design declares (0..{keys})"
    )]
    KeyOutOfRange {
        /// The map atom.
        atom: String,
        /// The key emitted.
        key: usize,
        /// The keys declared, `k(x)` for the job's `x`.
        keys: usize,
    },
    /// The run passed its deadline ([`super::Executor::deadline`]); the
    /// threads still in a kernel are left to finish on their own.
    #[error("the run passed its deadline of {after:?}; still running: {}", running.join(", "))]
    DeadlineExceeded {
        /// The deadline.
        after: std::time::Duration,
        /// The atoms whose kernels were still running, each once.
        running: Vec<String>,
    },
}
