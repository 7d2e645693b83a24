//! Progress for the long commands: a bar on a terminal, and on anything
//! else (CI logs) a plain line every few seconds, so a long run is never
//! silent.

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use utf8conform::audit::Progress;

/// How often a line is printed when stderr is not a terminal.
const EVERY: Duration = Duration::from_secs(5);

/// One task's progress (a decoder's audit, a campaign).
pub struct Task {
    name: String,
    total: u64,
    done: AtomicU64,
    stage: Mutex<String>,
    bar: Option<ProgressBar>,
    last_line: Mutex<Instant>,
}

impl Task {
    /// A task of about `total` steps, shown under `name`: a bar in `multi`
    /// when stderr is a terminal, lines otherwise.
    pub fn new(multi: Option<&MultiProgress>, name: &str, total: u64) -> Task {
        let bar = multi.filter(|_| std::io::stderr().is_terminal()).map(|m| {
            let bar = m.add(ProgressBar::new(total));
            bar.set_style(
                ProgressStyle::with_template("{prefix:>28} [{bar:30}] {percent:>3}% {msg}")
                    .expect("a valid template")
                    .progress_chars("=> "),
            );
            bar.set_prefix(name.to_string());
            bar
        });
        Task {
            name: name.to_string(),
            total: total.max(1),
            done: AtomicU64::new(0),
            stage: Mutex::new(String::new()),
            bar,
            last_line: Mutex::new(Instant::now()),
        }
    }

    /// Marks the task done, with a last word.
    pub fn finish(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.finish_with_message(message.to_string()),
            None => eprintln!("{}: {message}", self.name),
        }
    }

    fn line_if_due(&self) {
        let mut last = self.last_line.lock().expect("no panic while locked");
        if last.elapsed() < EVERY {
            return;
        }
        *last = Instant::now();
        let done = self.done.load(Ordering::Relaxed).min(self.total);
        let stage = self.stage.lock().expect("no panic while locked").clone();
        eprintln!("{}: {stage} {}%", self.name, done * 100 / self.total);
    }
}

impl Progress for Task {
    fn stage(&self, name: &str) {
        *self.stage.lock().expect("no panic while locked") = name.to_string();
        match &self.bar {
            Some(bar) => bar.set_message(name.to_string()),
            None => self.line_if_due(),
        }
    }
    fn advance(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
        match &self.bar {
            Some(bar) => bar.inc(n),
            None => self.line_if_due(),
        }
    }
}
