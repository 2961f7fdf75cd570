//! Progress on long work: a bar or a spinner on standard error, drawn only
//! when standard error is a terminal and the output is not JSON (a program
//! reading the JSON wants no noise, a log file no control characters).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// Whether progress is hidden for the whole run (`--json`).
static HIDDEN: AtomicBool = AtomicBool::new(false);

/// Hides every progress bar of the run (set once, before the command).
pub fn hide(hidden: bool) {
    HIDDEN.store(hidden, Ordering::Relaxed);
}

/// Whether a bar may be drawn.
fn shown() -> bool {
    !HIDDEN.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// A spinner with `message`, for work of unknown length; `None` when no
/// progress is drawn.
pub fn spinner(message: &str) -> Option<ProgressBar> {
    shown().then(|| {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(message.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    })
}

/// A bar of `steps` steps with `message`; `None` when no progress is
/// drawn.
pub fn bar(steps: u64, message: &str) -> Option<ProgressBar> {
    shown().then(|| {
        let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_message(message.to_string());
        bar
    })
}

/// Clears a bar or spinner, if any.
pub fn finish(bar: Option<ProgressBar>) {
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}

/// A bar fed by a counter that the work adds to as it goes (in another
/// thread's view): a thread polls it ten times a second. Dropping it clears
/// the bar.
pub struct Polled {
    bar: ProgressBar,
    done: Arc<AtomicBool>,
    poller: Option<JoinHandle<()>>,
}

/// A bar of `total` `unit`s with `message`, the count read from `counter`;
/// `None` when no progress is drawn (the work may count all the same).
pub fn polled(total: u64, message: &str, unit: &str, counter: &Arc<AtomicU64>) -> Option<Polled> {
    if !shown() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit}, {{eta}} left [{{elapsed}}]"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message(message.to_string());
    let done = Arc::new(AtomicBool::new(false));
    let poller = {
        let (bar, done, counter) = (bar.clone(), done.clone(), counter.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                bar.set_position(counter.load(Ordering::Relaxed));
                std::thread::park_timeout(Duration::from_millis(100));
            }
        })
    };
    Some(Polled {
        bar,
        done,
        poller: Some(poller),
    })
}

impl Drop for Polled {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(poller) = self.poller.take() {
            poller.thread().unpark();
            // A poller that panicked drew its last: nothing to report.
            let _ = poller.join();
        }
        self.bar.finish_and_clear();
    }
}
