//! The files a command reads and writes: designs and other inputs (`-` for
//! standard input, once), and output files, each error naming its path.

use super::error::CliError;
use pattern_core::Design;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether standard input was read already (`-` given twice would read
/// nothing the second time).
static STDIN_READ: AtomicBool = AtomicBool::new(false);

/// The text of `path`, or of standard input for `-` (once).
pub fn read_text(path: &Path) -> Result<String, CliError> {
    let shown = path.display().to_string();
    let read = if path.as_os_str() == "-" {
        if STDIN_READ.swap(true, Ordering::SeqCst) {
            return Err(CliError::Invalid(
                "`-` is given twice: standard input can be read once".into(),
            ));
        }
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

/// The designs in the files `paths`, each with its name in reports: the
/// file's stem (`paper_pipe`), or the path as given when two stems agree.
pub fn read_designs(paths: &[PathBuf]) -> Result<Vec<(String, Design)>, CliError> {
    let stem = |p: &PathBuf| {
        p.file_stem().map_or_else(
            || p.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        )
    };
    let stems: Vec<String> = paths.iter().map(stem).collect();
    let unique = (1..stems.len()).all(|i| !stems[..i].contains(&stems[i]));
    paths
        .iter()
        .zip(stems)
        .map(|(path, stem)| {
            let name = if unique {
                stem
            } else {
                path.display().to_string()
            };
            Ok((name, read_design(path)?))
        })
        .collect()
}

/// Writes an output file.
pub fn write_file(path: &Path, contents: &str) -> Result<(), CliError> {
    std::fs::write(path, contents).map_err(|source| CliError::Write {
        path: path.display().to_string(),
        source,
    })
}
