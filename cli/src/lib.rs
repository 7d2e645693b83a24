//! # utf8conform-cli — the `utf8conform` command, and its pieces
//!
//! The binary (`src/main.rs`, subcommands in `commands/`) is the user's
//! front door; the library holds what other tools may want without the
//! command line:
//!
//! * [`render`] — the audit report as Markdown, HTML and JUnit XML;
//! * [`adapters`] — `adapters/adapters.toml`, the list of third-party
//!   decoders the audit runs over the JSON-lines protocol;
//! * [`progress`] — progress for long runs (a bar, or lines in CI logs);
//! * [`reports`] — reports written whole or not at all, compared with a
//!   baseline, merged from several jobs;
//! * [`select`] — which decoders a command runs: built-in names, adapter
//!   names, or a `--cmd`;
//! * [`schema`] — JSON Schema validation of vector files.

#![warn(missing_docs)]

pub mod adapters;
pub mod progress;
pub mod render;
pub mod reports;
pub mod schema;
pub mod select;
