//! # utf8conform — a UTF-8 fuzzing and conformance harness built on RFC 3629
//!
//! Data flows one way: **bytes → decoders → outcomes → comparison → report**.
//!
//! * [`reference`](mod@reference) — the reference decoder: RFC 3629 §4's ABNF, rule by rule.
//!   Start here to see what "correct" means.
//! * [`outcome`] — the common language every decoder answers in
//!   (`valid_up_to`/`error_len` as `core::str::Utf8Error`, lossy output with
//!   one U+FFFD per maximal subpart, encode refusals) and the capabilities a
//!   decoder claims.
//! * [`utf8conform_codec`] — the optimized codec under test: validate, decode, lossy,
//!   encode, streaming; kernels behind runtime dispatch.
//! * [`oracles`] — the [`oracles::Decoder`] trait and the built-in decoders
//!   (reference, codec, std, simdutf8, simdutf, encoding_rs, bstr).
//! * [`generate`] — structured inputs (valid text interleaved with targeted
//!   malformations), shared by fuzz targets, proptests and `utf8conform diff`.
//! * [`differential`] — run decoders on one input, compare what each claims,
//!   minimise and explain a divergence.
//! * [`protocol`] — the JSON-lines protocol (docs/protocol.md) and a server
//!   for any built-in decoder.
//!
//! ```
//! use utf8conform::reference;
//! use utf8conform_codec as codec;
//! let input = b"\xF0\x9F\x92\x96 ok \xC0\xAF";
//! assert_eq!(codec::validate(input), reference::validate(input));
//! ```

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod audit;
pub mod differential;
pub mod exhaustive;
pub mod generate;
pub mod hex;
pub mod oracles;
pub mod outcome;
pub mod parallel;
pub mod properties;
pub mod protocol;
pub mod reference;
pub mod report;
pub mod vectors;
