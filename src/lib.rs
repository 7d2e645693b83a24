//! # utf8conform — a UTF-8 conformance kit built on RFC 3629
//!
//! Hold any UTF-8 decoder — yours, a library's, one in another language —
//! to RFC 3629 and Unicode §3.9: implement [`decoder::Decoder`] for it and
//! call [`check`](fn@check), or put it under the [`properties`] in proptest and
//! cargo-fuzz. Every expectation comes from [`reference`](mod@reference), a
//! transliteration of RFC 3629 §4, rule by rule.
//!
//! ```
//! use utf8conform::decoders::StdDecoder;
//! let checked = utf8conform::check_with(&StdDecoder, &utf8conform::CheckOptions::quick());
//! assert!(checked.conforms(), "{checked}");
//! ```
//!
//! Data flows one way: **bytes → decoders → outcomes → comparison →
//! report**. The modules, in that order:
//!
//! | module | what |
//! |---|---|
//! | [`generate`] | inputs: structured malformations, errors deep in long inputs, reuse sequences |
//! | [`vectors`] | the JSON test vectors this crate carries, their model, generator and runner |
//! | [`reference`](mod@reference) | the reference decoder (RFC 3629 §4), and what a streaming decoder's calls must return |
//! | [`decoder`] | the [`Decoder`](decoder::Decoder) trait every decoder implements |
//! | [`decoders`] | the built-in decoders (the codec, std, simdutf8, simdutf, encoding_rs, bstr) and [`decoders::process`], a decoder in another process |
//! | [`protocol`] | the JSON-lines protocol for decoders in other processes (docs/protocol.md), both sides |
//! | [`outcome`] | the common language: answers, capabilities, streaming answers, failures |
//! | [`level`] | the conformance levels V P S R C U E |
//! | [`differential`] | comparing an answer with the reference's, minimising and explaining a divergence |
//! | [`exhaustive`] | every byte string up to 4 bytes, through every decoder |
//! | [`properties`] | the fuzz properties, each generic over decoders |
//! | [`audit`] | everything above asked of one decoder: levels, incidents, policy, flags, BOM, each with evidence |
//! | [`check`](mod@check) | the kit's one call: [`check`](fn@check), [`check_with`], [`assert_conforms`] |
//! | [`report`] | the audit report's model (`report.json`); the renderers are in `utf8conform-cli` |
//! | [`hex`], [`parallel`] | small helpers |
//!
//! The codec this harness was built to test is its own crate,
//! [`utf8conform_codec`], with no dependencies; the `utf8conform` command
//! is `utf8conform-cli`. The design is in the repository's
//! `docs/DESIGN.md`.

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod audit;
pub mod check;
pub mod decoder;
pub mod decoders;
pub mod differential;
pub mod exhaustive;
pub mod generate;
pub mod hex;
pub mod level;
pub mod outcome;
pub mod parallel;
pub mod properties;
pub mod protocol;
pub mod reference;
pub mod report;
pub mod vectors;

pub use check::{assert_conforms, check, check_with, CheckOptions, Checked, Violation};
