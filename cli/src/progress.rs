//! Progress for the long commands: an indicatif bar on a terminal.

use indicatif::ProgressBar;
use utf8conform::audit::Progress;

/// An indicatif bar as the audit's [`Progress`].
pub struct Bar(pub ProgressBar);

impl Progress for Bar {
    fn stage(&self, name: &str) {
        self.0.set_message(name.to_string());
    }
    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
}
