//! # utf8conform-codec — a fast UTF-8 codec, held to RFC 3629
//!
//! Validate, decode (to `char`s or UTF-32), decode lossily (one U+FFFD per
//! maximal subpart, Unicode §3.9), encode and stream, with the error details
//! of [`core::str::Utf8Error`]. SIMD kernels (AVX-512 with and without VBMI2,
//! AVX2, SSE4.1) are chosen at run time; a scalar kernel runs everywhere
//! else. No dependencies.
//!
//! ```
//! use utf8conform_codec as codec;
//! assert_eq!(codec::from_utf8("κόσμε".as_bytes()), Ok("κόσμε"));
//! let err = codec::from_utf8(b"ab\xF0\x9F\x98").unwrap_err();
//! assert_eq!((err.valid_up_to(), err.error_len()), (2, None)); // cut-off emoji
//! assert_eq!(codec::decode_lossy(b"a\xC0\xAFb"), "a\u{FFFD}\u{FFFD}b");
//! ```
//!
//! Everything here must equal the reference decoder of the `utf8conform`
//! harness (RFC 3629 §4 rule by rule) on every input; its exhaustive
//! sweep, its vectors and its differential fuzz targets check it.
//!
//! | API | what |
//! |---|---|
//! | [`from_utf8`], [`validate()`] | strict validation, std's error details |
//! | [`decode_chars`], [`decode_utf32`], [`decode_utf32_into`] | strict decoding |
//! | [`decode_lossy`], [`decode_lossy_utf32`] | replacing decoding |
//! | [`encode_scalar`], [`encode_utf32`] | encoding, refusing non-scalars |
//! | [`StreamDecoder`] | input in chunks, strict or lossy |
//! | [`decode_utf16`], [`decode_utf16_into`], [`decode_lossy_utf16`] | UTF-8 → UTF-16 |
//! | [`from_utf16`], [`from_utf16_into`], [`from_utf16_lossy`] | UTF-16 → UTF-8 |
//! | [`kernels`], [`kernel`], [`active_kernel`], [`requested_kernel`] | the kernels, for tests and benchmarks |
//!
//! Layout (small steps, after bstr and simdutf8):
//! * `dfa` — the shift DFA built at compile time from RFC 3629 §4;
//! * `ascii` — the word-at-a-time ASCII skipper;
//! * `validate` — the yes/no hot loop and the exact-error slow loop;
//! * `engine` — one decoding loop for strict, lossy and streaming decode;
//! * `encode`, `stream` — the public encode and streaming APIs;
//! * `decode` — the scalar decoder of well-formed text (a `&str`);
//! * `lookup` — Keiser & Lemire's nibble tables, derived from §4;
//! * `x86` — the SIMD kernels (AVX-512BW and its VBMI2 variant, AVX2,
//!   SSE4.1; the last two decode with byte shuffles, and all but SSE4.1
//!   encode with SIMD).
//!
//! **Kernels.** Each [`Kernel`] is one instruction set's validator, decoder
//! (checked: validate and decode in one pass on the SIMD kernels; the
//! scalar one validates, then decodes), decoder of well-formed text and
//! encoder, and — for AVX-512 and AVX2 — a one-pass lossy decoder to
//! UTF-8 (and for AVX-512 one to UTF-32); AVX-512 with VBMI2, AVX2 and
//! SSE4.1 have one to UTF-16. Everything else
//! is written once on top of those: the streaming decoder, and lossy
//! decoding on the kernels without their own, run the
//! `engine` (check a span with the kernel, hand the well-formed
//! text to the output in one piece, let the scalar DFA handle only
//! ill-formed bytes and characters cut by a chunk boundary). A process uses
//! one kernel, chosen once: the best the CPU supports, or the one named by
//! the `UTF8CONFORM_KERNEL` environment variable ([`KERNEL_VAR`]), so that
//! `UTF8CONFORM_KERNEL=sse4.1 cargo test` runs the whole suite on SSE4.1.
//! A name that is unknown or that this CPU cannot run falls back to the
//! best kernel; [`requested_kernel`] says so, for tools that must not
//! fall back. Inputs of at most 8 bytes skip the kernel in [`validate()`]:
//! the DFA's few steps cost less than a SIMD check's fixed latency.
//! Each kernel can also be called directly through its methods, which is
//! how the harness checks every kernel the CPU has.
//!
//! **Inlined entry points.** The one-shot functions that return a `Vec` or
//! a `String` are `#[inline(always)]`: each is a kernel call through a
//! pointer plus an allocation, and inlined it leaves no out-of-line copy of
//! the result. Out of line, the callee writes the returned vector to the
//! caller's stack as three 8-byte stores, and a caller that moves it on
//! reads 16 bytes at once, which the CPU cannot forward from two stores: a
//! stall a good part of a 64-byte call long.

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod ascii;
mod decode;
mod dfa;
mod encode;
mod engine;
mod error;
mod lookup;
mod stream;
mod utf16;
mod validate;
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod x86;

pub use encode::{encode_scalar, encode_utf32, EncodeFailure, Encoded};
pub use error::{EncodeError, Utf8Error, REPLACEMENT};
pub use stream::StreamDecoder;
pub use utf16::{
    decode_lossy_utf16, decode_utf16, decode_utf16_into, from_utf16, from_utf16_into,
    from_utf16_lossy, Utf16Error,
};

use engine::Mode;
use std::fmt;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

/// One implementation of the codec's hot loops, for one instruction set.
///
/// The hot loops are `unsafe fn` pointers because a SIMD kernel's code may
/// only run on a CPU that has its instructions; the contract of each is
/// "call only once `available()` returned true". A private `Ready` value is
/// the proof of that check, and the only way this module calls them.
#[derive(Debug)]
pub struct Kernel {
    /// Short name, e.g. `avx512`; what `UTF8CONFORM_KERNEL` selects.
    pub name: &'static str,
    /// Whether this CPU can run it.
    available: fn() -> bool,
    validate: unsafe fn(&[u8]) -> Verdict,
    /// Appends the code points of the longest well-formed prefix and
    /// returns `validate`'s verdict: one pass where the kernel has one.
    decode: unsafe fn(&[u8], &mut Vec<u32>) -> Verdict,
    decode_valid: unsafe fn(&str, &mut Vec<u32>),
    /// Lossy decoding to UTF-8 in one pass (input starting at a character
    /// boundary), where the kernel has it; otherwise the engine does it.
    decode_lossy: Option<LossyToUtf8>,
    /// The same to UTF-32.
    decode_lossy_utf32: Option<LossyToUtf32>,
    encode: unsafe fn(&[u32], &mut Vec<u8>) -> Result<(), EncodeFailure>,
    /// UTF-8 ↔ UTF-16.
    utf16: &'static utf16::Utf16Kernel,
}

/// A kernel's one-pass lossy decoder to UTF-8: appends the lossy output of
/// its input, which starts at a character boundary. It may reserve up to
/// [`LOSSY_STORE_SLACK`] bytes past the output's end for its stores.
type LossyToUtf8 = unsafe fn(&[u8], &mut Vec<u8>);

/// How far past the end of its output a [`LossyToUtf8`] kernel stores (the
/// AVX-512 one: a block with two stray bytes is three 64-byte stores, the
/// last starting at most 69 bytes in): the capacity a caller adds so that
/// the kernel never has to grow the buffer mid-call.
pub(crate) const LOSSY_STORE_SLACK: usize = 2 * 64 + 5;

/// U+FFFD in UTF-8.
pub(crate) const REPLACEMENT_UTF8: &[u8] = "\u{FFFD}".as_bytes();

/// Appends `n` U+FFFDs to `out`; returns `n`.
#[inline]
pub(crate) fn push_replacements(out: &mut Vec<u8>, n: usize) -> usize {
    for _ in 0..n {
        out.extend_from_slice(REPLACEMENT_UTF8);
    }
    n
}

/// As [`LossyToUtf8`], to UTF-32.
type LossyToUtf32 = unsafe fn(&[u8], &mut Vec<u32>);

/// A validation result in one register (`u64::MAX`: well-formed; otherwise
/// `valid_up_to` in bits 0..56 and `error_len`, 0 for `None`, in bits
/// 56..64), for the call through the kernel table: a `Result<(), Utf8Error>`
/// would come back through memory, written a byte at a time and read 16 at
/// a time, and the store-forwarding stall costs more than validating 64
/// bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Verdict(u64);

impl Verdict {
    const OK: u64 = u64::MAX;
    const POSITION: u64 = (1 << 56) - 1;

    /// The verdict on well-formed input.
    pub(crate) const WELL_FORMED: Verdict = Verdict(Verdict::OK);

    #[inline]
    pub(crate) fn pack(result: Result<(), Utf8Error>) -> Verdict {
        match result {
            Ok(()) => Verdict(Verdict::OK),
            Err(e) => {
                // Slices are at most isize::MAX bytes, and x86-64 user space
                // is below 2^56 even with 5-level paging.
                let at = e.valid_up_to() as u64;
                assert!(at <= Verdict::POSITION, "input beyond 2^56 bytes");
                Verdict(at | u64::from(e.error_len().unwrap_or(0)) << 56)
            }
        }
    }

    #[inline]
    fn is_ok(self) -> bool {
        self.0 == Verdict::OK
    }

    /// `valid_up_to` of an error verdict.
    #[inline]
    fn valid_up_to(self) -> usize {
        debug_assert!(!self.is_ok());
        (self.0 & Verdict::POSITION) as usize
    }

    /// Where decoding resumes after an error verdict's maximal subpart:
    /// right after it, or at the end of `len` bytes if the input ends in
    /// it (`error_len: None`).
    #[inline]
    fn resume_at(self, len: usize) -> usize {
        self.error_len()
            .map_or(len, |n| self.valid_up_to() + usize::from(n))
    }

    /// `error_len` of an error verdict.
    #[inline]
    fn error_len(self) -> Option<u8> {
        debug_assert!(!self.is_ok());
        let len = (self.0 >> 56) as u8;
        (len != 0).then_some(len)
    }

    #[inline]
    pub(crate) fn unpack(self) -> Result<(), Utf8Error> {
        if self.is_ok() {
            return Ok(());
        }
        Err(Utf8Error::new(self.valid_up_to(), self.error_len()))
    }
}

/// A kernel whose `available()` returned true: its functions may be called.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ready(&'static Kernel);

impl Ready {
    /// Checks availability once.
    ///
    /// # Panics
    /// If the CPU lacks the kernel's instructions.
    fn new(kernel: &'static Kernel) -> Ready {
        assert!(
            (kernel.available)(),
            "kernel {} unavailable on this CPU",
            kernel.name
        );
        Ready(kernel)
    }

    #[inline]
    pub(crate) fn validate(self, bytes: &[u8]) -> Result<(), Utf8Error> {
        self.verdict(bytes).unpack()
    }

    #[inline]
    fn verdict(self, bytes: &[u8]) -> Verdict {
        // SAFETY: a `Ready` is only built by `Ready::new`, after `available()`
        // returned true; a CPU does not lose features while a process runs.
        unsafe { (self.0.validate)(bytes) }
    }

    /// Appends the code points of the longest well-formed prefix of `bytes`
    /// (all of it, or up to `valid_up_to`) to `out`; the result is
    /// [`Ready::validate`]'s.
    #[inline]
    pub(crate) fn decode(self, bytes: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
        // SAFETY: as in `validate`: the kernel is available.
        unsafe { (self.0.decode)(bytes, out) }.unpack()
    }

    #[inline]
    pub(crate) fn decode_valid(self, text: &str, out: &mut Vec<u32>) {
        // SAFETY: as in `validate`: the kernel is available.
        unsafe { (self.0.decode_valid)(text, out) }
    }

    #[inline]
    fn encode(self, scalars: &[u32], out: &mut Vec<u8>) -> Result<(), EncodeFailure> {
        // SAFETY: as in `validate`: the kernel is available.
        unsafe { (self.0.encode)(scalars, out) }
    }

    #[inline(always)]
    fn decode_utf32(self, bytes: &[u8]) -> Result<Vec<u32>, Utf8Error> {
        // At most one value per byte, + the decoders' 64 lanes of slack, so
        // the buffer is allocated once.
        let mut out = Vec::with_capacity(bytes.len() + 64);
        self.decode(bytes, &mut out).map(|()| out)
    }

    fn decode_chars(self, bytes: &[u8]) -> Result<Vec<char>, Utf8Error> {
        // Same layout, so this collects in place; the check is a compare per
        // value, and keeps `char`'s invariant free of any `unsafe`.
        self.decode_utf32(bytes).map(|v| {
            v.into_iter()
                .map(|u| char::from_u32(u).expect("decoders emit only scalar values"))
                .collect()
        })
    }

    fn decode_lossy(self, bytes: &[u8]) -> String {
        let verdict = self.verdict(bytes);
        if verdict.is_ok() {
            // SAFETY: the kernel validated exactly these bytes.
            return unsafe { core::str::from_utf8_unchecked(bytes) }.to_owned();
        }
        self.decode_lossy_after(bytes, verdict)
    }

    /// Lossy decoding of `bytes`, whose validation failed with `error`: the
    /// well-formed prefix is copied as it is, the first maximal subpart is
    /// one U+FFFD, and the rest is decoded from right after it (lossy
    /// output does not depend on offsets, and a subpart's end is a
    /// character boundary: Unicode §3.9 starts the next sequence there).
    /// So the error the validator found is not found again.
    ///
    /// It takes the verdict (one register), not a `Utf8Error`, and builds
    /// its output as the `Vec<u8>` the kernel appends to: a struct passed
    /// by reference or moved is stored a field at a time and reloaded
    /// whole, and each of those two store-forwarding stalls cost ~10% of a
    /// 64-byte call (measured with `perf`).
    #[inline(never)]
    fn decode_lossy_after(self, bytes: &[u8], error: Verdict) -> String {
        /// The longest rest of the input taken without the lossy kernel
        /// when it is well-formed: one block's worth, so the test is a few
        /// words or one block's check, never a scan of a long run the
        /// kernel would scan again.
        const SHORT_TAIL: usize = 64;
        // Each U+FFFD takes 3 bytes for the 1 to 3 it replaces: room for a
        // few percent of ill-formed bytes saves copying the whole output.
        // And the one-pass kernels store whole blocks past the output's end:
        // without room for that too, a 64-byte input whose error comes after
        // byte 16 grew its String mid-call (a second allocation and a copy).
        let capacity = bytes.len() + bytes.len() / 16 + 16 + LOSSY_STORE_SLACK;
        let valid = &bytes[..error.valid_up_to()];
        // A broken character often leaves bytes behind that can only be
        // errors (its continuation bytes, or a byte that never occurs):
        // each is a subpart of its own. Taken here, a byte apart, they cost
        // no trip through a kernel's block loop.
        let resume = error.resume_at(bytes.len());
        let lone = validate::lone_run(bytes, resume);
        let replacements = 1 + lone;
        let rest = &bytes[resume + lone..];
        match self.0.decode_lossy {
            Some(decode_lossy) => {
                let mut out = Vec::with_capacity(capacity);
                out.extend_from_slice(valid);
                push_replacements(&mut out, replacements);
                if rest.len() <= SHORT_TAIL && (rest.is_ascii() || self.verdict(rest).is_ok()) {
                    // One error near the end of a short input (the 64-byte
                    // calls): the rest is well-formed, a word test or two
                    // (ASCII) or one block's check, and a copy, where the
                    // lossy kernel's block loop costs its set-up (a tenth of
                    // such a call with ASCII, measured; with emoji text, 6%
                    // of the call went to the kernel's set-up over a check).
                    out.extend_from_slice(rest);
                } else {
                    // SAFETY: as in `validate`: the kernel is available;
                    // `rest` starts at a character boundary (a subpart's
                    // end).
                    unsafe { decode_lossy(rest, &mut out) };
                }
                // SAFETY: `valid` is well-formed (it is before the first
                // error), `rest` when copied passed the check, and the
                // kernel appends well-formed text and U+FFFDs only
                // (tests/kernels.rs holds every kernel's lossy output to
                // std's, itself UTF-8, and the `lossy` fuzz target checks
                // the output is valid).
                unsafe { String::from_utf8_unchecked(out) }
            }
            None => {
                let mut out = String::with_capacity(capacity);
                // SAFETY: the bytes before the first error are well-formed.
                out.push_str(unsafe { core::str::from_utf8_unchecked(valid) });
                for _ in 0..replacements {
                    out.push(char::REPLACEMENT_CHARACTER);
                }
                let result = engine::decode_all(self, rest, Mode::Lossy, &mut out);
                debug_assert!(result.is_ok(), "lossy decoding cannot fail");
                out
            }
        }
    }

    #[inline(always)]
    fn decode_lossy_utf32(self, bytes: &[u8]) -> Vec<u32> {
        // Each U+FFFD also stands for at least one byte.
        let mut out = Vec::with_capacity(bytes.len() + 64);
        match self.0.decode_lossy_utf32 {
            // SAFETY: as in `validate`: the kernel is available; `bytes`
            // starts at a character boundary (it is the whole input).
            Some(decode_lossy_utf32) => unsafe { decode_lossy_utf32(bytes, &mut out) },
            None => {
                let result = engine::decode_all(self, bytes, Mode::Lossy, &mut out);
                debug_assert!(result.is_ok(), "lossy decoding cannot fail");
            }
        }
        out
    }

    #[inline(always)]
    fn encode_utf32(self, scalars: &[u32]) -> Result<Vec<u8>, EncodeFailure> {
        let mut out = Vec::with_capacity(4 * scalars.len() + 64);
        self.encode(scalars, &mut out).map(|()| out)
    }
}

impl Kernel {
    /// Validates with this kernel, whatever the dispatcher would choose.
    /// (Only kernels this CPU runs are handed out, by [`kernels`],
    /// [`kernel`] and [`active_kernel`], so this and the other methods
    /// always run.)
    pub fn validate(&'static self, bytes: &[u8]) -> Result<(), Utf8Error> {
        Ready::new(self).validate(bytes)
    }

    /// [`decode_utf32`] with this kernel.
    pub fn decode_utf32(&'static self, bytes: &[u8]) -> Result<Vec<u32>, Utf8Error> {
        Ready::new(self).decode_utf32(bytes)
    }

    /// [`decode_utf32_into`] with this kernel.
    pub fn decode_utf32_into(
        &'static self,
        bytes: &[u8],
        out: &mut Vec<u32>,
    ) -> Result<(), Utf8Error> {
        Ready::new(self).decode(bytes, out)
    }

    /// [`decode_chars`] with this kernel.
    pub fn decode_chars(&'static self, bytes: &[u8]) -> Result<Vec<char>, Utf8Error> {
        Ready::new(self).decode_chars(bytes)
    }

    /// [`decode_lossy`] with this kernel.
    pub fn decode_lossy(&'static self, bytes: &[u8]) -> String {
        Ready::new(self).decode_lossy(bytes)
    }

    /// [`decode_lossy_utf32`] with this kernel.
    pub fn decode_lossy_utf32(&'static self, bytes: &[u8]) -> Vec<u32> {
        Ready::new(self).decode_lossy_utf32(bytes)
    }

    /// [`encode_utf32`] with this kernel.
    pub fn encode_utf32(&'static self, scalars: &[u32]) -> Result<Vec<u8>, EncodeFailure> {
        Ready::new(self).encode_utf32(scalars)
    }

    /// A strict [`StreamDecoder`] with this kernel.
    pub fn stream_strict(&'static self) -> StreamDecoder {
        StreamDecoder::with(Ready::new(self), Mode::Strict)
    }

    /// A lossy [`StreamDecoder`] with this kernel.
    pub fn stream_lossy(&'static self) -> StreamDecoder {
        StreamDecoder::with(Ready::new(self), Mode::Lossy)
    }
}

/// The scalar kernel's validator, as the kernel table stores it.
fn scalar_validate(bytes: &[u8]) -> Verdict {
    Verdict::pack(validate::validate_scalar(bytes))
}

/// The scalar kernel's checked decoder: validate, then decode the
/// well-formed prefix.
fn scalar_decode(bytes: &[u8], out: &mut Vec<u32>) -> Verdict {
    let result = validate::validate_scalar(bytes);
    // SAFETY: `result` is the scalar validator's verdict on `bytes`.
    decode::decode_valid_scalar(unsafe { valid_prefix(bytes, result) }, out);
    Verdict::pack(result)
}

/// The well-formed prefix of `bytes`: all of it, or the part before the
/// first error (`Utf8Error`'s contract), as a `str` without a second check.
///
/// # Safety
/// `result` must be a kernel's validation of exactly `bytes` (the kernels
/// equal the reference on every input of up to 3 bytes at every block
/// offset, and on the edge cases: tests/kernels.rs).
#[inline]
pub(crate) unsafe fn valid_prefix(bytes: &[u8], result: Result<(), Utf8Error>) -> &str {
    let valid = result.map_or_else(|e| e.valid_up_to(), |()| bytes.len());
    // SAFETY: the caller's validator accepted `bytes[..valid]`.
    unsafe { core::str::from_utf8_unchecked(&bytes[..valid]) }
}

/// The scalar kernel's decoder, as the kernel table stores it.
fn scalar_decode_valid(text: &str, out: &mut Vec<u32>) {
    decode::decode_valid_scalar(text, out);
}

/// Every kernel compiled in, best first.
static KERNELS: &[Kernel] = &[
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Kernel {
        name: "avx512vbmi2",
        available: x86::avx512::Avx512::available_vbmi2,
        validate: x86::avx512::Avx512::validate,
        decode: x86::avx512::vbmi::Avx512Vbmi2::decode,
        decode_valid: x86::avx512::vbmi::Avx512Vbmi2::decode_valid,
        decode_lossy: Some(x86::avx512::Avx512::decode_lossy),
        decode_lossy_utf32: Some(x86::avx512::vbmi::Avx512Vbmi2::decode_lossy_utf32),
        encode: x86::avx512::Avx512::encode_vbmi2,
        utf16: &x86::avx512::utf16::VBMI2,
    },
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Kernel {
        name: "avx512",
        available: x86::avx512::Avx512::available,
        validate: x86::avx512::Avx512::validate,
        decode: x86::avx512::Avx512::decode,
        decode_valid: x86::avx512::Avx512::decode_valid,
        decode_lossy: Some(x86::avx512::Avx512::decode_lossy),
        decode_lossy_utf32: Some(x86::avx512::Avx512::decode_lossy_utf32),
        encode: x86::avx512::Avx512::encode,
        // Without VBMI2's compress and expand, the AVX2 kernel's loops are
        // the SIMD UTF-16 this kernel has.
        utf16: &x86::avx2::utf16::AVX2,
    },
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Kernel {
        name: "avx2",
        available: x86::avx2::Avx2::available,
        validate: x86::avx2::Avx2::validate,
        decode: x86::avx2::Avx2::decode,
        decode_valid: x86::avx2::Avx2::decode_valid,
        decode_lossy: Some(x86::avx2::Avx2::decode_lossy),
        decode_lossy_utf32: Some(x86::avx2::Avx2::decode_lossy_utf32),
        encode: x86::avx2::Avx2::encode,
        utf16: &x86::avx2::utf16::AVX2,
    },
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    Kernel {
        name: "sse4.1",
        available: x86::sse41::Sse41::available,
        validate: x86::sse41::Sse41::validate,
        decode: x86::sse41::Sse41::decode,
        decode_valid: x86::sse41::Sse41::decode_valid,
        decode_lossy: None,
        decode_lossy_utf32: None,
        encode: x86::sse41::Sse41::encode,
        utf16: &x86::sse41::utf16::SSE41,
    },
    Kernel {
        name: "scalar",
        available: || true,
        validate: scalar_validate,
        decode: scalar_decode,
        decode_valid: scalar_decode_valid,
        decode_lossy: None,
        decode_lossy_utf32: None,
        encode: encode::encode_scalars,
        utf16: &utf16::SCALAR,
    },
];

/// The kernels this CPU runs, best first (the scalar one is always last).
///
/// ```
/// let names: Vec<&str> = utf8conform_codec::kernels().map(|k| k.name).collect();
/// assert_eq!(names.last(), Some(&"scalar"));
/// ```
pub fn kernels() -> impl Iterator<Item = &'static Kernel> {
    KERNELS.iter().filter(|k| (k.available)())
}

/// The names of every kernel compiled in, whether this CPU runs it or not.
pub fn kernel_names() -> impl Iterator<Item = &'static str> {
    KERNELS.iter().map(|k| k.name)
}

/// The kernel called `name`, if it is compiled in and this CPU runs it.
///
/// ```
/// assert!(utf8conform_codec::kernel("scalar").is_ok());
/// let err = utf8conform_codec::kernel("avx9").unwrap_err();
/// assert!(err.to_string().contains("no kernel named \"avx9\""));
/// ```
pub fn kernel(name: &str) -> Result<&'static Kernel, KernelError> {
    match KERNELS.iter().find(|k| k.name == name) {
        Some(k) if (k.available)() => Ok(k),
        Some(_) => Err(KernelError::Unavailable { name: name.into() }),
        None => Err(KernelError::Unknown { name: name.into() }),
    }
}

/// Why a kernel asked for by name cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelError {
    /// No kernel of that name is compiled into this build.
    Unknown {
        /// The name asked for.
        name: String,
    },
    /// The kernel is compiled in, but this CPU lacks its instructions.
    Unavailable {
        /// The name asked for.
        name: String,
    },
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let here: Vec<&str> = kernels().map(|k| k.name).collect();
        match self {
            KernelError::Unknown { name } => {
                let known: Vec<&str> = kernel_names().collect();
                write!(
                    f,
                    "no kernel named {name:?} (compiled in: {}; this CPU runs: {})",
                    known.join(", "),
                    here.join(", ")
                )
            }
            KernelError::Unavailable { name } => write!(
                f,
                "kernel {name:?} needs instructions this CPU lacks (this CPU runs: {})",
                here.join(", ")
            ),
        }
    }
}

impl std::error::Error for KernelError {}

/// The environment variable that pins a kernel: `UTF8CONFORM_KERNEL=avx2`.
pub const KERNEL_VAR: &str = "UTF8CONFORM_KERNEL";

/// The kernel [`KERNEL_VAR`] asks for: `Ok(None)` when it is unset or
/// empty, the kernel when it names one this CPU runs, and why not
/// otherwise.
///
/// A tool that pins kernels to test each one should call this and stop on
/// an error: [`active_kernel`] falls back quietly, and a test run that
/// believes it covered a kernel it never ran proves nothing.
pub fn requested_kernel() -> Result<Option<&'static Kernel>, KernelError> {
    match std::env::var(KERNEL_VAR) {
        Ok(name) if !name.is_empty() => kernel(&name).map(Some),
        _ => Ok(None),
    }
}

/// The kernel in use, chosen once per process: the one [`KERNEL_VAR`]
/// names when this CPU runs it, otherwise the best this CPU runs. An
/// unknown or unavailable name falls back to the best kernel and never
/// panics; [`requested_kernel`] tells whether the request was honoured.
pub fn active_kernel() -> &'static Kernel {
    active().0
}

/// [`active_kernel`], checked.
#[inline]
pub(crate) fn active() -> Ready {
    static ACTIVE: OnceLock<Ready> = OnceLock::new();
    *ACTIVE.get_or_init(|| {
        let best = || kernels().next().expect("the scalar kernel always runs");
        Ready::new(requested_kernel().ok().flatten().unwrap_or_else(best))
    })
}

/// Checks that `bytes` is UTF-8, with `core::str::from_utf8`'s error details.
///
/// ```
/// use utf8conform_codec as codec;
/// assert!(codec::validate("κόσμε".as_bytes()).is_ok());
/// let err = codec::validate(b"ab\xF0\x9F\x98").unwrap_err();
/// assert_eq!((err.valid_up_to(), err.error_len()), (2, None)); // cut-off emoji
/// ```
#[inline]
pub fn validate(bytes: &[u8]) -> Result<(), Utf8Error> {
    if bytes.len() <= validate::SHORT {
        return validate::validate_short(bytes);
    }
    verdict(bytes).unpack()
}

/// [`validate()`] returning the input as a `&str`, as
/// [`core::str::from_utf8`] and `simdutf8::compat::from_utf8` do.
///
/// ```
/// use utf8conform_codec as codec;
/// assert_eq!(codec::from_utf8(b"caf\xC3\xA9"), Ok("café"));
/// let err = codec::from_utf8(b"a\xED\xA0\x80").unwrap_err(); // a surrogate
/// assert_eq!((err.valid_up_to(), err.error_len()), (1, Some(1)));
/// ```
#[inline]
pub fn from_utf8(bytes: &[u8]) -> Result<&str, Utf8Error> {
    validate(bytes)?;
    // SAFETY: `validate` accepted exactly these bytes (the harness holds
    // every kernel's validator to the reference decoder on every input of
    // up to four bytes and at every block edge).
    Ok(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// Appends the code points of the longest well-formed prefix of `bytes`
/// (all of it, or the bytes before the first error) to `out`, and returns
/// [`validate()`]'s result: decoding into a buffer the caller reuses.
///
/// ```
/// use utf8conform_codec as codec;
/// let mut out = vec![0x41];
/// let err = codec::decode_utf32_into(b"\xC3\xA9\xFF", &mut out).unwrap_err();
/// assert_eq!(out, [0x41, 0xE9]);
/// assert_eq!((err.valid_up_to(), err.error_len()), (2, Some(1)));
/// ```
#[inline]
pub fn decode_utf32_into(bytes: &[u8], out: &mut Vec<u32>) -> Result<(), Utf8Error> {
    active().decode(bytes, out)
}

/// [`validate()`]'s answer packed in a register, through the fast entry
/// point (any length).
#[inline]
fn verdict(bytes: &[u8]) -> Verdict {
    if bytes.len() <= validate::SHORT {
        return Verdict::pack(validate::validate_short(bytes));
    }
    let validate = VALIDATE.load(Ordering::Relaxed);
    // SAFETY: VALIDATE only ever holds `detect_and_validate` or the
    // `validate` of the kernel `active()` returned, whose `available()` was
    // checked (a `Ready`); both are `unsafe fn(&[u8]) -> Verdict`, and a
    // function pointer survives the round trip through `*mut ()`.
    let validate =
        unsafe { core::mem::transmute::<*mut (), unsafe fn(&[u8]) -> Verdict>(validate) };
    // SAFETY: as above, the kernel is available on this CPU.
    unsafe { validate(bytes) }
}

/// The active kernel's validator, for the hottest entry point: one load and
/// one indirect call (through `active()` it is three dependent loads, which
/// shows at 64-byte inputs). It starts as [`detect_and_validate`].
static VALIDATE: AtomicPtr<()> = AtomicPtr::new(detect_and_validate as *mut ());

/// The first call: chooses the kernel, remembers its validator, validates.
fn detect_and_validate(bytes: &[u8]) -> Verdict {
    let kernel = active();
    VALIDATE.store(kernel.0.validate as *mut (), Ordering::Relaxed);
    Verdict::pack(kernel.validate(bytes))
}

/// Decodes to scalar values, or the first error.
///
/// ```
/// use utf8conform_codec as codec;
/// assert_eq!(codec::decode_chars("é!".as_bytes()).unwrap(), ['é', '!']);
/// let err = codec::decode_chars(b"a\xED\xA0\x80").unwrap_err(); // a surrogate
/// assert_eq!((err.valid_up_to(), err.error_len()), (1, Some(1)));
/// ```
#[inline(always)] // see "Inlined entry points" in the module docs
pub fn decode_chars(bytes: &[u8]) -> Result<Vec<char>, Utf8Error> {
    active().decode_chars(bytes)
}

/// Decodes to UTF-32, or the first error.
///
/// ```
/// use utf8conform_codec as codec;
/// assert_eq!(codec::decode_utf32(b"\xF0\x9F\x98\x80").unwrap(), [0x1F600]);
/// ```
#[inline(always)] // see "Inlined entry points" in the module docs
pub fn decode_utf32(bytes: &[u8]) -> Result<Vec<u32>, Utf8Error> {
    active().decode_utf32(bytes)
}

/// Decodes, replacing each maximal subpart of an ill-formed sequence with one
/// U+FFFD (Unicode §3.9; the same output as `String::from_utf8_lossy`).
///
/// ```
/// use utf8conform_codec as codec;
/// // C0 AF is an overlong "/": two maximal subparts of one byte each.
/// assert_eq!(codec::decode_lossy(b"a\xC0\xAFb"), "a\u{FFFD}\u{FFFD}b");
/// // E1 80 is one maximal subpart (a prefix of E1 80 80).
/// assert_eq!(codec::decode_lossy(b"a\xE1\x80b"), "a\u{FFFD}b");
/// ```
#[inline(always)] // see "Inlined entry points" in the module docs
pub fn decode_lossy(bytes: &[u8]) -> String {
    // Well-formed input, the common case, costs exactly a validation and a
    // copy (the validator's fast entry point, an allocation of the input's
    // size); only an error brings in the kernel's lossy decoder.
    let verdict = verdict(bytes);
    if verdict.is_ok() {
        // SAFETY: `verdict` checked exactly these bytes.
        return unsafe { core::str::from_utf8_unchecked(bytes) }.to_owned();
    }
    active().decode_lossy_after(bytes, verdict)
}

/// As [`decode_lossy`], to UTF-32.
///
/// ```
/// use utf8conform_codec as codec;
/// // Cut short at the end: one U+FFFD for the incomplete sequence.
/// assert_eq!(codec::decode_lossy_utf32(b"A\xF4\x8F\xBF"), [0x41, 0xFFFD]);
/// ```
#[inline(always)] // see "Inlined entry points" in the module docs
pub fn decode_lossy_utf32(bytes: &[u8]) -> Vec<u32> {
    active().decode_lossy_utf32(bytes)
}

#[cfg(test)]
mod tests {
    //! Hand-written expectations from RFC 3629 / Unicode §3.9; the broad
    //! equality with the reference is in tests/exhaustive.rs and the
    //! proptests.
    use super::*;

    #[test]
    fn validate_and_decode_agree_on_the_rfc_section_7_examples() {
        let input = [0x41, 0xE2, 0x89, 0xA2, 0xCE, 0x91, 0x2E];
        assert!(validate(&input).is_ok());
        assert_eq!(decode_utf32(&input).unwrap(), [0x41, 0x2262, 0x391, 0x2E]);
    }

    #[test]
    fn errors_found_in_any_block_report_the_exact_position() {
        // An error placed after 0..40 bytes of ASCII and of 2-byte text, so
        // it falls before, on and after the 16-byte block edges.
        for prefix_len in 0..40 {
            for filler in ["a", "é"] {
                let mut input: Vec<u8> = filler.repeat(prefix_len).into_bytes();
                let valid = input.len();
                input.extend_from_slice(&[0xE0, 0x80, 0x41]); // E0 then 80: 1-byte subpart
                let e = validate(&input).unwrap_err();
                assert_eq!((e.valid_up_to(), e.error_len()), (valid, Some(1)));
                let e = decode_utf32(&input).unwrap_err();
                assert_eq!((e.valid_up_to(), e.error_len()), (valid, Some(1)));
            }
        }
    }

    #[test]
    fn lossy_resumes_at_the_byte_that_broke_the_sequence() {
        // F0 90 80 then 'A': the subpart is F0 90 80, and 'A' survives.
        assert_eq!(decode_lossy(b"\xF0\x90\x80A"), "\u{FFFD}A");
        // E1 80 then E2 82 AC: the second sequence is complete and kept.
        assert_eq!(decode_lossy(b"\xE1\x80\xE2\x82\xAC"), "\u{FFFD}€");
        // Incomplete at the end: one U+FFFD.
        assert_eq!(decode_lossy_utf32(b"A\xF4\x8F\xBF"), [0x41, 0xFFFD]);
    }

    #[test]
    fn lossy_and_streaming_equal_std_across_spans_and_chunks() {
        // Errors every few characters (the engine's after-error path) and
        // clean stretches longer than its short span, in odd-sized chunks.
        let mut input = Vec::new();
        for i in 0..60 {
            input.extend_from_slice("a\u{f1}\u{20ac}\u{1F600} ".as_bytes());
            if i % 7 == 0 {
                input.extend_from_slice(b"\xE2\x82\x80\xBF\xFFx\xF0\x9F");
            }
        }
        let expected = String::from_utf8_lossy(&input);
        assert_eq!(decode_lossy(&input), expected);
        let utf32: Vec<u32> = expected.chars().map(u32::from).collect();
        assert_eq!(decode_lossy_utf32(&input), utf32);
        let mut d = StreamDecoder::lossy();
        let mut out = String::new();
        for chunk in input.chunks(7) {
            d.feed(chunk, &mut out).unwrap();
        }
        d.finish(&mut out).unwrap();
        assert_eq!(out, expected);
    }

    #[test]
    fn encode_fills_section_3_table() {
        assert_eq!(encode_scalar(0x7F).unwrap().as_bytes(), [0x7F]);
        assert_eq!(encode_scalar(0x80).unwrap().as_bytes(), [0xC2, 0x80]);
        assert_eq!(encode_scalar(0x7FF).unwrap().as_bytes(), [0xDF, 0xBF]);
        assert_eq!(encode_scalar(0x800).unwrap().as_bytes(), [0xE0, 0xA0, 0x80]);
        assert_eq!(
            encode_scalar(0xFFFF).unwrap().as_bytes(),
            [0xEF, 0xBF, 0xBF]
        );
        assert_eq!(
            encode_scalar(0x10000).unwrap().as_bytes(),
            [0xF0, 0x90, 0x80, 0x80]
        );
        assert_eq!(
            encode_scalar(0x233B4).unwrap().as_bytes(),
            [0xF0, 0xA3, 0x8E, 0xB4]
        );
    }

    #[test]
    fn kernels_are_found_by_name_and_unknown_ones_are_refused() {
        let scalar = kernel("scalar").expect("the scalar kernel always runs");
        assert_eq!(
            scalar.validate(b"\xED\xA0\x80"),
            Err(Utf8Error::new(0, Some(1)))
        );
        assert!(matches!(kernel("avx9"), Err(KernelError::Unknown { .. })));
        // Every kernel handed out runs here, and the best one is first.
        assert!(kernels().all(|k| (k.available)()));
        assert_eq!(kernels().last().map(|k| k.name), Some("scalar"));
        for name in kernel_names() {
            match kernel(name) {
                Ok(k) => assert_eq!(k.name, name),
                Err(e) => assert_eq!(e, KernelError::Unavailable { name: name.into() }),
            }
        }
    }
}
