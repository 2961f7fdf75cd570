//! `pattern`: design-time performance modeling from the command line (the
//! library's `run` on this process' arguments and streams).

use std::process::ExitCode;

fn main() -> ExitCode {
    // Not locked: progress bars draw on standard error from their own thread.
    let (mut stdout, mut stderr) = (std::io::stdout(), std::io::stderr());
    let code = pattern::run(std::env::args_os(), &mut stdout, &mut stderr);
    ExitCode::from(code)
}
