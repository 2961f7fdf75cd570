//! Why a machine is not one.

use std::path::Path;

/// A machine out of range, or a machine file that is not one: a clear
/// error naming the key (and, in a file, the line and column).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MachineError {
    /// No node at all.
    #[error("a machine has at least one node")]
    NoNodes,
    /// A group of no nodes, or of nodes without cores.
    #[error(
        "node group {group} has {count} node(s) of {cores} core(s): at least one node of at least one core"
    )]
    NoCores {
        /// The group's position in the machine's list.
        group: usize,
        /// Its nodes.
        count: usize,
        /// Their cores.
        cores: usize,
    },
    /// A value out of its range.
    #[error("`{key}` is {value}: {expected}")]
    Invalid {
        /// The key, as in a file (`network.latency_ns`).
        key: String,
        /// Its value.
        value: f64,
        /// What it must be.
        expected: &'static str,
    },
    /// More nodes or cores than can be counted.
    #[error("the machine has more nodes or cores than can be counted")]
    TooLarge,
    /// A machine file that is not valid JSON or not a machine.
    #[error("{}line {line}, column {column}{}: {message}", file.as_ref().map(|f| format!("{f}: ")).unwrap_or_default(), key.as_ref().map(|k| format!(", at `{k}`")).unwrap_or_default())]
    Format {
        /// The file, when read from one.
        file: Option<String>,
        /// The line (from 1).
        line: usize,
        /// The column (from 1).
        column: usize,
        /// The path of the key (`nodes[0].cores`), where there is one.
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// A machine file that cannot be read.
    #[error("cannot read the machine file {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
}

impl MachineError {
    /// The same error, said of the file `path` (a format error names it).
    pub fn in_file(self, path: &Path) -> MachineError {
        match self {
            MachineError::Format {
                line,
                column,
                key,
                message,
                ..
            } => MachineError::Format {
                file: Some(path.display().to_string()),
                line,
                column,
                key,
                message,
            },
            other => other,
        }
    }
}
