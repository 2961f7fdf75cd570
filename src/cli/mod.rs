//! The subcommands of the `pattern` command line, one module each, and what
//! they share: reading inputs, the values of options, the error type and
//! the report.

pub mod args;
pub mod compare;
pub mod error;
pub mod fit;
pub mod model;
pub mod mva;
pub mod network;
pub mod output;
pub mod simulate;

use error::CliError;
use pattern_core::Design;
use std::io::Read;
use std::path::Path;

/// The text of `path`, or of standard input for `-`.
pub fn read_text(path: &Path) -> Result<String, CliError> {
    let shown = path.display().to_string();
    let read = if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map(|_| text)
    } else {
        std::fs::read_to_string(path)
    };
    read.map_err(|source| CliError::Read {
        path: shown,
        source,
    })
}

/// The design in the file `path` (`-`: standard input).
pub fn read_design(path: &Path) -> Result<Design, CliError> {
    let text = read_text(path)?;
    Design::parse(&text).map_err(|source| CliError::Design {
        path: path.display().to_string(),
        source,
    })
}

/// Writes an output file.
pub fn write_file(path: &Path, contents: &str) -> Result<(), CliError> {
    std::fs::write(path, contents).map_err(|source| CliError::Write {
        path: path.display().to_string(),
        source,
    })
}
