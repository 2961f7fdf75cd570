//! Running one test body in a fresh process of this test binary.

use std::process::Command;

/// Set in the child process: the test body runs there instead of spawning.
const CHILD: &str = "PATTERN_REPRODUCER_CHILD";

/// The stack of a spawned thread, the smallest a user's code is likely to
/// run a model on.
pub const STACK: usize = 2 << 20;

/// Runs `body` on a thread with a 2 MiB stack in a child process running
/// only the test `name` (its path without the crate, as libtest prints it).
/// In the parent, asserts that the child ran that one test and it passed.
pub fn in_child(name: &str, body: impl FnOnce() + Send + 'static) {
    if std::env::var_os(CHILD).is_some() {
        let thread = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(body)
            .expect("spawn the test thread");
        if let Err(panic) = thread.join() {
            std::panic::resume_unwind(panic);
        }
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = Command::new(exe)
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, "1")
        .output()
        .expect("run the child process");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{name} failed in its child process ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("1 passed"),
        "the child process did not run {name}:\n{stdout}"
    );
}

/// `child_test!(name, || { .. })`: a test whose body runs in a child
/// process on a 2 MiB thread (see [`in_child`]).
macro_rules! child_test {
    ($name:ident, $body:expr) => {
        #[test]
        fn $name() {
            let module = module_path!();
            let path = match module.split_once("::") {
                Some((_, rest)) => format!("{rest}::{}", stringify!($name)),
                None => stringify!($name).to_string(),
            };
            $crate::child::in_child(&path, $body);
        }
    };
}
