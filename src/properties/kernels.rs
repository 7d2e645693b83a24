//! Every codec kernel this CPU runs, each through its own methods
//! ([`codec::Kernel`]), against std; the codec's kernel lookup and its
//! errors' messages.
//!
//! The fuzz targets reach the codec through its dispatcher
//! (`codec::validate`, …), which runs one kernel per process (the coverage
//! runs pin each in turn). A kernel's own methods are the API a caller
//! uses to pick one; they are held here to the same independent
//! expectations: `core::str::from_utf8`, `String::from_utf8_lossy`,
//! `str::chars`, RFC 3629 §3's table.

use super::encoding::expected_encoding;
use super::finding::{chars_u32, fail_plain};
use crate::differential::{show_scalars, Field};
use crate::hex;
use utf8conform_codec::{self as codec, EncodeError, Kernel, KernelError, Utf8Error};

/// The engine's span (`codec/src/engine.rs`, 16 KiB): a chunk longer than
/// this takes the engine's loop, not its one-call path.
const SPAN: usize = 16 * 1024;

/// The longest input every kernel's methods check (see [`utf8_kernels`]).
const SHORT: usize = 256;

/// Each kernel this CPU runs, through [`codec::kernel`] by name: a name
/// [`codec::kernel_names`] lists is found exactly when [`codec::kernels`]
/// lists it (otherwise the error says the CPU lacks it), and a name it
/// does not list is unknown.
pub(super) fn each_kernel(property: &str, bytes: &[u8], mut check: impl FnMut(&'static Kernel)) {
    for name in codec::kernel_names() {
        let runs = codec::kernels().any(|k| k.name == name);
        match (codec::kernel(name), runs) {
            (Ok(k), true) if k.name == name => check(k),
            (Err(KernelError::Unavailable { name: n }), false) if n == name => {}
            (got, _) => fail_plain(
                property,
                "codec::kernel",
                Field::Valid,
                bytes,
                &format!(
                    "kernel({name:?}) gave {:?}, but kernels() {} it",
                    got.map(|k| k.name),
                    if runs { "lists" } else { "does not list" }
                ),
            ),
        }
    }
}

/// The codec's `Utf8Error` message says what std's does: the index, and
/// whether the input was cut short ("incomplete", std's word) or holds an
/// ill-formed sequence of `error_len` bytes (its doc: the message names
/// the index and the length the error carries).
fn check_utf8_message(property: &str, bytes: &[u8], e: Utf8Error, std: &core::str::Utf8Error) {
    let ours = e.to_string();
    let std = std.to_string();
    let incomplete = std.contains("incomplete");
    // The length, besides the index (which may hold the same digit).
    let names_len = e.error_len().is_none_or(|n| {
        ours.replacen(&e.valid_up_to().to_string(), "", 1)
            .contains(&n.to_string())
    });
    if !ours.contains(&e.valid_up_to().to_string())
        || ours.contains("incomplete") != incomplete
        || !names_len
    {
        fail_plain(
            property,
            "codec::Utf8Error's Display",
            Field::ErrorLen,
            bytes,
            &format!("{e:?} says {ours:?}; std says {std:?}"),
        );
    }
}

/// Property part (levels V P S R C): every kernel's strict, lossy and
/// streaming decoders (one kernel's, picked by the length, on an input
/// longer than [`SHORT`]) give std's answers on `bytes`, and the
/// dispatcher's streams on `bytes` after more than the engine's span of
/// text; `codec::from_utf8` and `codec::decode_chars` are std's; the
/// kernel lookup keeps its promises.
pub(super) fn utf8_kernels(property: &str, bytes: &[u8]) {
    let std = core::str::from_utf8(bytes);
    let strict: Result<(), Utf8Error> = std.map(|_| ()).map_err(Utf8Error::from);
    let valid = std.map_or_else(|e| e.valid_up_to(), str::len);
    let prefix = core::str::from_utf8(&bytes[..valid]).expect("std's valid prefix");
    let scalars: Vec<u32> = chars_u32(prefix).collect();
    let chars: Vec<char> = prefix.chars().collect();
    let lossy = String::from_utf8_lossy(bytes);
    let fail = |who: &str, field: Field, detail: String| -> ! {
        fail_plain(property, who, field, bytes, &detail)
    };

    if let Err(e) = std {
        let ours = codec::validate(bytes).expect_err("std refused it");
        check_utf8_message(property, bytes, ours, &e);
    }
    if codec::from_utf8(bytes) != std.map_err(Utf8Error::from) {
        fail(
            "codec::from_utf8",
            Field::Valid,
            format!("std {std:?}, codec {:?}", codec::from_utf8(bytes)),
        );
    }
    let want_chars = strict.map(|()| chars.clone());
    if codec::decode_chars(bytes) != want_chars {
        fail(
            "codec::decode_chars",
            Field::Scalars,
            format!("std {want_chars:?}, codec {:?}", codec::decode_chars(bytes)),
        );
    }
    kernel_lookup(property, bytes);

    // Every kernel on a short input; on a longer one, where the scalar and
    // SSE4.1 kernels' lossy paths cost most of the property's time, the
    // one its length picks (so a corpus still runs each).
    let count = codec::kernel_names().count();
    let mut index = 0;
    each_kernel(property, bytes, |k| {
        index += 1;
        if bytes.len() > SHORT && (index - 1) != bytes.len() % count {
            return;
        }
        let who = |what: &str| format!("kernel {}: {what}", k.name);
        if k.validate(bytes) != strict {
            fail(
                &who("validate"),
                Field::ValidUpTo,
                format!("std {strict:?}, kernel {:?}", k.validate(bytes)),
            );
        }
        let got = k.decode_utf32(bytes);
        if got != strict.map(|()| scalars.clone()) {
            fail(
                &who("decode_utf32"),
                Field::Scalars,
                format!("std {strict:?} {}, kernel {got:?}", show_scalars(&scalars)),
            );
        }
        let got = k.decode_chars(bytes);
        if got != want_chars {
            fail(
                &who("decode_chars"),
                Field::Scalars,
                format!("std {want_chars:?}, kernel {got:?}"),
            );
        }
        let got = k.decode_lossy(bytes);
        if got != lossy {
            fail(
                &who("decode_lossy"),
                Field::Lossy,
                format!("std {lossy:?}, kernel {got:?}"),
            );
        }
        let got = k.decode_lossy_utf32(bytes);
        if !chars_u32(&lossy).eq(got.iter().copied()) {
            fail(
                &who("decode_lossy_utf32"),
                Field::Lossy,
                format!("std {lossy:?}, kernel {}", show_scalars(&got)),
            );
        }
        stream(property, bytes, Some(k), bytes, bytes.len() / 2);
    });
    // The engine's loop over spans is the same for every kernel (the
    // coverage runs pin each): the dispatcher's streams, given in one call
    // the input after more than a span of text (its own well-formed
    // prefix repeated, or "a"s), so that its errors, if any, come after
    // the first span. Text keeps std's answer and the stream cheap.
    let filler = if prefix.is_empty() { "a" } else { prefix };
    let mut long = filler.repeat(SPAN / filler.len() + 1).into_bytes();
    long.extend_from_slice(bytes);
    stream(property, bytes, None, &long, long.len());
}

/// `input` through the strict and lossy stream decoders of `kernel` (the
/// dispatcher's if `None`), in two chunks cut at `cut`, equals std's
/// answer; a strict stream that failed fails a further `feed` and
/// `finish` with the same error (`StreamDecoder`'s doc: once failed,
/// every call returns that error).
fn stream(property: &str, bytes: &[u8], kernel: Option<&'static Kernel>, input: &[u8], cut: usize) {
    let name = kernel.map_or("dispatcher's", |k| k.name);
    let fail = |what: &str, detail: String| -> ! {
        fail_plain(
            property,
            &format!("kernel {name}: {what}"),
            Field::Chunking,
            bytes,
            &format!("on {} bytes cut at {cut}: {detail}", input.len()),
        )
    };
    let (strict, lossy) = match kernel {
        Some(k) => (k.stream_strict(), k.stream_lossy()),
        None => (
            codec::StreamDecoder::strict(),
            codec::StreamDecoder::lossy(),
        ),
    };
    let (a, b) = input.split_at(cut);
    let std = core::str::from_utf8(input).map_err(Utf8Error::from);
    // A kernel's stream decodes to UTF-32 (its own decoder, through the
    // engine's UTF-32 sink); the long input to a String (a validation and
    // a copy), compared with std's well-formed prefix as bytes.
    let valid = std.map_or_else(|e| e.valid_up_to(), |s| s.len());
    let mut d = strict;
    let mut text = String::new();
    let mut scalars = Vec::new();
    let utf32 = kernel.is_some();
    let mut feed = |d: &mut codec::StreamDecoder, chunk: &[u8]| {
        if utf32 {
            d.feed_utf32(chunk, &mut scalars)
        } else {
            d.feed(chunk, &mut text)
        }
    };
    let fed = feed(&mut d, a).and_then(|()| feed(&mut d, b));
    let result = match fed {
        Ok(()) if utf32 => d.finish_utf32(&mut scalars),
        Ok(()) => d.finish(&mut text),
        Err(e) => {
            // Once failed, fed more or finished, the same error.
            let fed = d.feed(b"a", &mut String::new());
            let again = d.finish_utf32(&mut Vec::new());
            if fed != Err(e) || again != Err(e) {
                fail(
                    "stream_strict after a failed feed",
                    format!("feed said {e:?}, then feed {fed:?}, finish {again:?}"),
                );
            }
            Err(e)
        }
    };
    let prefix = &input[..valid];
    let same = if utf32 {
        core::str::from_utf8(prefix).is_ok_and(|p| chars_u32(p).eq(scalars.iter().copied()))
    } else {
        text.as_bytes() == prefix
    };
    if result != std.map(|_| ()) || !same {
        fail(
            "stream_strict",
            format!(
                "std {:?} after {valid} bytes, stream {result:?} after {} scalars, {} bytes",
                std.map(|_| ()),
                scalars.len(),
                text.len()
            ),
        );
    }
    let mut d = lossy;
    let mut text = String::new();
    let fed = d
        .feed(a, &mut text)
        .and_then(|()| d.feed(b, &mut text))
        .and_then(|()| d.finish(&mut text));
    let lossy = String::from_utf8_lossy(input);
    if fed.is_err() || text != lossy {
        fail(
            "stream_lossy",
            format!(
                "std {} chars, stream {fed:?} {} chars",
                lossy.chars().count(),
                text.chars().count()
            ),
        );
    }
}

/// The lookup: the kernel in use is one this CPU runs, the one
/// `UTF8CONFORM_KERNEL` asks for when it names one, the best otherwise
/// ([`codec::active_kernel`]'s doc); the kernels this CPU runs are in
/// `kernel_names`'s order, scalar last; a name no kernel has is unknown,
/// and its message names it and every kernel compiled in; a kernel the
/// CPU lacks is named by its message, which is not the unknown one's.
fn kernel_lookup(property: &str, bytes: &[u8]) {
    let fail = |who: &str, detail: String| -> ! {
        fail_plain(property, who, Field::Valid, bytes, &detail)
    };
    let names: Vec<&str> = codec::kernel_names().collect();
    let here: Vec<&str> = codec::kernels().map(|k| k.name).collect();
    let in_order = here.iter().all(|h| names.contains(h))
        && here
            .windows(2)
            .all(|w| names.iter().position(|n| *n == w[0]) < names.iter().position(|n| *n == w[1]));
    if !in_order || here.last() != Some(&"scalar") {
        fail(
            "codec::kernel_names",
            format!("compiled in {names:?}, this CPU runs {here:?}"),
        );
    }
    let active = codec::active_kernel().name;
    let want = match codec::requested_kernel() {
        Ok(Some(k)) => k.name,
        _ => here[0],
    };
    if active != want {
        fail(
            "codec::active_kernel",
            format!("expected {want:?} (this CPU runs {here:?}), got {active:?}"),
        );
    }
    // Not a kernel's name: no name has a space.
    let name = format!("no such {}", hex::encode(&bytes[..bytes.len().min(4)]));
    match codec::kernel(&name) {
        Err(e @ KernelError::Unknown { .. })
            if e == (KernelError::Unknown { name: name.clone() }) =>
        {
            let message = e.to_string();
            if !message.contains(&name) || !names.iter().all(|n| message.contains(n)) {
                fail(
                    "codec::KernelError's Display",
                    format!("{e:?} says {message:?}; compiled in: {names:?}"),
                );
            }
        }
        got => fail(
            "codec::kernel",
            format!(
                "kernel({name:?}) gave {:?}, expected Unknown",
                got.map(|k| k.name)
            ),
        ),
    }
    // The other error, which `kernel` gives only on a CPU that lacks a
    // compiled-in kernel's instructions: it names the kernel too, and says
    // otherwise than the unknown name's message.
    let unavailable = KernelError::Unavailable { name: name.clone() }.to_string();
    let unknown = KernelError::Unknown { name: name.clone() }.to_string();
    if !unavailable.contains(&name) || unavailable == unknown {
        fail(
            "codec::KernelError's Display",
            format!("Unavailable says {unavailable:?}, Unknown {unknown:?}"),
        );
    }
}

/// Property part (level E): every kernel's `encode_utf32` encodes `values`
/// as RFC 3629 §3 does (the concatenation of each value's bytes, checked
/// against `char::encode_utf8`), or fails at the first value that is not
/// a scalar with its reason; the failure's message names the index and
/// its reason's, and the reason's message and protocol spelling
/// (docs/protocol.md, `src/vectors/schema.json`: "surrogate",
/// "out-of-range") name the range.
pub(super) fn encode_kernels(property: &str, bytes: &[u8], values: &[u32]) {
    let first_bad = values
        .iter()
        .enumerate()
        .find_map(|(i, &v)| expected_encoding(v).err().map(|e| (i, e)));
    let want: Result<Vec<u8>, (usize, EncodeError)> = match first_bad {
        Some(bad) => Err(bad),
        None => Ok(values
            .iter()
            .flat_map(|&v| {
                let c = char::from_u32(v).expect("RFC 3629 §3 encodes it");
                c.encode_utf8(&mut [0; 4]).as_bytes().to_vec()
            })
            .collect()),
    };
    each_kernel(property, bytes, |k| {
        let got = k.encode_utf32(values);
        let ok = match (&got, &want) {
            (Ok(g), Ok(w)) => g == w,
            (Err(g), Err((i, e))) => g.index == *i && g.error == *e,
            _ => false,
        };
        if !ok {
            fail_plain(
                property,
                &format!("kernel {}: encode_utf32", k.name),
                Field::Encode,
                bytes,
                &format!(
                    "expected {}, got {}",
                    match &want {
                        Ok(w) => hex::encode(w),
                        Err((i, e)) => format!("refusal at index {i} ({e:?})"),
                    },
                    match &got {
                        Ok(g) => hex::encode(g),
                        Err(f) => format!("refusal at index {} ({:?})", f.index, f.error),
                    }
                ),
            );
        }
    });
    if let (Err(failure), Err((_, why))) = (codec::encode_utf32(values), want) {
        let spelled = match why {
            EncodeError::Surrogate => "surrogate",
            EncodeError::OutOfRange => "out-of-range",
        };
        let range = match why {
            EncodeError::Surrogate => "U+D800",
            EncodeError::OutOfRange => "U+10FFFF",
        };
        let message = failure.to_string();
        let reason = why.to_string();
        if why.as_str() != spelled
            || !reason.contains(range)
            || !message.contains(&failure.index.to_string())
            || !message.contains(&reason)
        {
            fail_plain(
                property,
                "codec::EncodeFailure's Display, EncodeError's",
                Field::Encode,
                bytes,
                &format!(
                    "{failure:?}: says {message:?}, its reason {reason:?} ({:?}); expected \
                     the index, {range} and {spelled:?}",
                    why.as_str()
                ),
            );
        }
    }
}
