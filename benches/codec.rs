//! The codec against std, simdutf8 (basic, compat), simdutf (C++),
//! encoding_rs and bstr: validate, decode to UTF-32, lossy decode (String
//! and UTF-32, with 1% of bytes invalid and on valid text), encode from
//! UTF-32 and streaming in 4 KiB chunks; and UTF-8 ↔ UTF-16 against
//! simdutf's and encoding_rs's conversions (`utf16/mod.rs`).
//!
//! Inputs: five generated classes (ASCII, Latin with accents, CJK,
//! emoji-heavy, random mixed valid UTF-8; a fixed seed, so every run sees
//! the same bytes) and the real texts in `../shared/seeds/*.txt`, each at
//! 64 B, 4 KiB and 1 MiB. Throughput is always counted in UTF-8 bytes (the
//! input of decoders, the output of encoders), so every table is in the same
//! unit. Run with `cargo bench --bench codec`, then `cargo bench --bench
//! report` to write `reports/performance.{md,svg}`.
//!
//! Filter with criterion's usual argument, e.g.
//! `cargo bench --bench codec -- 'validate/cjk'`. With `CRITERION_HOME`,
//! `UTF8CONFORM_KERNEL` and `SIMDUTF_FORCE_IMPLEMENTATION` set, it measures
//! as a CPU without VBMI would run (see the README's "Performance").

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;
use utf8conform_codec as codec;

mod common;
use common::{corrupt, inputs, size_name};

// ---- the contenders ------------------------------------------------------
//
// Every helper below is `#[inline(always)]`, as the codec's one-shot
// functions are (see "Inlined entry points" in src/codec/mod.rs): a helper
// left out of line returns its vector through the stack, and the move that
// follows stalls on store forwarding, a third of a 64-byte call. Measured
// alike, no column pays for the harness.

#[inline(always)]
fn simdutf8_lossy(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match simdutf8::compat::from_utf8(bytes) {
            Ok(s) => {
                out.push_str(s);
                return out;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                // SAFETY: simdutf8 guarantees the bytes before valid_up_to
                // are valid UTF-8 (its compat API mirrors std's).
                out.push_str(unsafe { core::str::from_utf8_unchecked(valid) });
                out.push('\u{FFFD}');
                match e.error_len() {
                    Some(n) => bytes = &rest[n..],
                    None => return out,
                }
            }
        }
    }
}

#[inline(always)]
fn simdutf_decode(bytes: &[u8]) -> Option<Vec<u32>> {
    let mut out = Vec::<u32>::with_capacity(bytes.len());
    // SAFETY: the output has room for `bytes.len()` ≥ the number of
    // characters; simdutf writes at most one u32 per character.
    let n =
        unsafe { simdutf::convert_utf8_to_utf32(bytes.as_ptr(), bytes.len(), out.as_mut_ptr()) };
    if n == 0 && !bytes.is_empty() {
        return None;
    }
    // SAFETY: simdutf wrote `n` values.
    unsafe { out.set_len(n) };
    Some(out)
}

#[inline(always)]
fn simdutf_encode(scalars: &[u32]) -> Option<Vec<u8>> {
    let mut out = Vec::<u8>::with_capacity(4 * scalars.len());
    // SAFETY: at most 4 bytes per value fit in the capacity.
    let n = unsafe {
        simdutf::convert_utf32_to_utf8(scalars.as_ptr(), scalars.len(), out.as_mut_ptr())
    };
    if n == 0 && !scalars.is_empty() {
        return None;
    }
    // SAFETY: simdutf wrote `n` bytes.
    unsafe { out.set_len(n) };
    Some(out)
}

#[inline(always)]
fn std_encode(scalars: &[u32]) -> Option<String> {
    let mut out = String::with_capacity(scalars.len());
    for &u in scalars {
        out.push(char::from_u32(u)?);
    }
    Some(out)
}

#[inline(always)]
fn stream_lossy(bytes: &[u8]) -> String {
    let mut d = codec::StreamDecoder::lossy();
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.chunks(4096) {
        d.feed(chunk, &mut out).unwrap();
    }
    d.finish(&mut out).unwrap();
    out
}

#[inline(always)]
fn stream_utf32(bytes: &[u8]) -> Vec<u32> {
    let mut d = codec::StreamDecoder::strict();
    // As one-shot decode_utf32 allocates: once, with the decoders' slack.
    let mut out = Vec::with_capacity(bytes.len() + 64);
    for chunk in bytes.chunks(4096) {
        d.feed_utf32(chunk, &mut out).unwrap();
    }
    d.finish_utf32(&mut out).unwrap();
    out
}

// ---- the benchmarks ------------------------------------------------------

fn record_run() {
    write_meta(serde_json::json!({
        "kernel": codec::active_kernel().name,
        "kernel_env": std::env::var("UTF8CONFORM_KERNEL").unwrap_or_default(),
        "simdutf_env": std::env::var("SIMDUTF_FORCE_IMPLEMENTATION").unwrap_or_default(),
        "load_at_start": load_average(),
        // The report says how outputs were placed, and what the small
        // rows decoded, by what the run did.
        "output_placement": "rotating",
        "small_inputs": "distinct",
    }));
}

/// Why a run pinned to a kernel (`UTF8CONFORM_KERNEL`) cannot measure on
/// this CPU, if it cannot: the CPU lacks the kernel's instructions. The
/// report's pinned runs emulate other CPUs on a more capable one; on a CPU
/// without AVX-512 the "without VBMI" run has nothing to run, and the
/// command that regenerates the report must go on, not stop there. A name
/// no kernel has is a mistake, not a CPU's limit: the bench stops on it.
fn pinned_kernel_missing() -> Option<String> {
    match codec::requested_kernel() {
        Ok(_) => None,
        Err(e @ codec::KernelError::Unavailable { .. }) => {
            Some(format!("{}: {e}", codec::KERNEL_VAR))
        }
        Err(e) => panic!("{}: {e}", codec::KERNEL_VAR),
    }
}

/// The load average, as `/proc/loadavg` gives it (empty where there is none).
fn load_average() -> String {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    load.trim().to_string()
}

/// Writes `codec-meta.json`, what the report needs to know about this run.
fn write_meta(meta: serde_json::Value) {
    // The report needs to know which kernel ran (and which simdutf was
    // asked for); it cannot ask later. Criterion writes to $CRITERION_HOME
    // when it is set (the report's pinned runs, as on a machine without
    // VBMI or without AVX-512), else to the target directory's `criterion/`.
    let dir = match std::env::var_os("CRITERION_HOME") {
        Some(home) => std::path::PathBuf::from(home),
        None => std::path::Path::new(
            &std::env::var("CARGO_TARGET_DIR")
                .unwrap_or_else(|_| format!("{}/target", env!("CARGO_MANIFEST_DIR"))),
        )
        .join("criterion"),
    };
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join("codec-meta.json"), format!("{meta}\n"));
}

/// Every contender is measured three times, and the report keeps its
/// fastest sample. The machine is a shared VM whose speed shifts from
/// second to second (the same 64-byte decode measured 19 ns and 32 ns in
/// consecutive runs, simdutf with it): one measurement taken in a slow
/// moment would make a false ratio with a neighbour taken in a fast one.
/// Interference only slows code down, so the fastest sample is the best
/// estimate, and a slow spell has to cover every round of one contender to
/// bias a ratio. The rounds are whole passes over every group (each group's
/// contenders in turn, A B C, in each pass), so a contender's three rounds
/// are minutes apart: slow spells lasting seconds covered all three rounds
/// when they ran back to back in their group (measured: the same 4 KiB
/// emoji decode at 4.64 GB/s in one such run, 5.13 in the next, simdutf at
/// 3.10 and 3.14). They cost the SIMD contenders more than the scalar ones:
/// another tenant on the core's other hardware thread would do that.
const ROUNDS: [&str; 3] = ["", "@2", "@3"];

/// A row's inputs (one, or the distinct slices of [`common::POOL`]) laid
/// out in one buffer, each at its own alignment and page offset.
///
/// Where input and output lie changes a call's speed by up to half: loads
/// that wait on unrelated stores to the same offset in another 4 KiB page
/// ("4K aliasing"), a 64-byte call's stores landing where the next call
/// loads its input. So no row keeps one placement: each input of a 4 KiB
/// row starts [`GAP`] bytes after the one before ends (page offsets `k ·
/// 520`, which also vary the alignment), each input of a 64-byte row 8
/// bytes after it (every alignment to a cache line, in eight steps, with
/// the pool in as little cache as that allows); outputs go to fifteen
/// places in turn (the global allocator, [`placement`]). A 1 MiB row's
/// output moves through every offset as it grows.
struct Pool<T> {
    buffer: Vec<T>,
    /// Each input's start and length in `buffer`.
    spans: Vec<(usize, usize)>,
}

/// Bytes between two inputs of a 4 KiB row (see [`Pool`]).
const GAP: usize = 520;

impl<T: Copy + Default> Pool<T> {
    fn new<V: AsRef<[T]>>(variants: &[V]) -> Pool<T> {
        if let [one] = variants {
            // As it is: one allocation of its own, wherever it lands.
            let one = one.as_ref();
            return Pool {
                buffer: one.to_vec(),
                spans: vec![(0, one.len())],
            };
        }
        let size = core::mem::size_of::<T>();
        let longest = variants.iter().map(|v| v.as_ref().len()).max().unwrap_or(0);
        let gap = (if longest * size >= 4096 { GAP } else { 8 }) / size;
        let mut buffer = Vec::new();
        let mut spans = Vec::new();
        for variant in variants {
            let variant = variant.as_ref();
            spans.push((buffer.len(), variant.len()));
            buffer.extend_from_slice(variant);
            buffer.resize(buffer.len() + gap, T::default());
        }
        Pool { buffer, spans }
    }

    /// The inputs, one per call in turn: a power of two of them.
    fn inputs(&self) -> Vec<&[T]> {
        assert!(self.spans.len().is_power_of_two(), "a turn is an AND");
        let spans = self.spans.iter();
        spans.map(|&(at, len)| &self.buffer[at..at + len]).collect()
    }
}

/// `$b.iter` over a row's inputs ([`Pool::inputs`]), one per call in turn,
/// the slice bound to `$input` for `$call`.
///
/// A macro, so that `$call` is written inside the closure that criterion
/// times: behind one more closure or a function item, the codec's
/// `#[inline(always)]` entry points were not inlined, and returned their
/// vector through the stack into a store-forwarding stall.
macro_rules! iter_placed {
    ($b:expr, $inputs:expr, |$input:ident| $call:expr) => {{
        let _armed = crate::placement::Armed::new();
        let inputs: &[_] = &$inputs[..];
        match inputs {
            [one] => $b.iter(|| {
                let $input = black_box(*one);
                $call
            }),
            _ => {
                // A power of two: the turn is an AND, not a division in the
                // loop's dependency chain.
                let mask = inputs.len() - 1;
                let mut k = 0;
                $b.iter(|| {
                    k = (k + 1) & mask;
                    // The index goes through `black_box`, not the slice:
                    // `black_box` of the slice copied it to the stack as one
                    // 16-byte vector store and read it back as two 8-byte
                    // loads, most likely a store-forwarding stall, and it
                    // cost contenders unequally at 64 bytes.
                    let $input = inputs[black_box(k) & mask];
                    $call
                })
            }
        }
    }};
}

mod ceiling;
mod placement;
mod utf16;

/// Every small allocation, a one-shot call's output among them, turns
/// through page offsets as the inputs do (`placement` says why).
#[global_allocator]
static ALLOCATOR: placement::Rotating = placement::Rotating;

fn benches(c: &mut Criterion) {
    if let Some(why) = pinned_kernel_missing() {
        // Recorded, so that the report says why the section is empty
        // rather than show an older run's results as this one's.
        eprintln!("codec bench: nothing measured. {why}");
        write_meta(serde_json::json!({
            "skipped": why,
            "load_at_start": load_average(),
        }));
        return;
    }
    placement::check();
    record_run();
    for round in ROUNDS {
        for input in inputs() {
            let variants = &input.variants;
            let generated = !input.class.starts_with("seed");
            let tag = format!("{}/{}", input.class, size_name(input.size));
            let scalars: Vec<Vec<u32>> = variants
                .iter()
                .map(|v| {
                    core::str::from_utf8(v)
                        .unwrap()
                        .chars()
                        .map(u32::from)
                        .collect()
                })
                .collect();
            let bad: Vec<Vec<u8>> = variants
                .iter()
                .enumerate()
                .map(|(k, v)| corrupt(v, k as u64))
                .collect();
            let n = input.size as u64;
            let (text_pool, bad_pool, scalar_pool) =
                (Pool::new(variants), Pool::new(&bad), Pool::new(&scalars));
            let (texts, bads, scalar_runs) =
                (text_pool.inputs(), bad_pool.inputs(), scalar_pool.inputs());

            let mut g = c.benchmark_group(format!("validate/{tag}"));
            g.throughput(Throughput::Bytes(n));
            // Every contender's answer is consumed the same way, `is_ok()`:
            // handing criterion a whole `Result` stores it to the stack and
            // loads it back (0.7 ns of a 2.5 ns call at 64 B), a cost of the
            // harness, not of validation. The error details are still computed:
            // the kernel is called through a pointer and cannot be pruned.
            g.bench_function(format!("ours{round}"), |b| {
                iter_placed!(b, texts, |bytes| codec::validate(bytes).is_ok())
            });
            g.bench_function(format!("std{round}"), |b| {
                iter_placed!(b, texts, |bytes| core::str::from_utf8(bytes).is_ok())
            });
            g.bench_function(format!("simdutf8-basic{round}"), |b| {
                iter_placed!(b, texts, |bytes| simdutf8::basic::from_utf8(bytes).is_ok())
            });
            g.bench_function(format!("simdutf8-compat{round}"), |b| {
                iter_placed!(b, texts, |bytes| {
                    simdutf8::compat::from_utf8(bytes).is_ok()
                })
            });
            g.bench_function(format!("simdutf{round}"), |b| {
                iter_placed!(b, texts, |bytes| simdutf::validate_utf8(bytes))
            });
            g.bench_function(format!("encoding_rs{round}"), |b| {
                iter_placed!(b, texts, |bytes| {
                    encoding_rs::Encoding::utf8_valid_up_to(bytes)
                })
            });
            g.bench_function(format!("bstr{round}"), |b| {
                iter_placed!(b, texts, |bytes| bstr::ByteSlice::to_str(bytes).is_ok())
            });
            g.finish();

            let mut g = c.benchmark_group(format!("decode_utf32/{tag}"));
            g.throughput(Throughput::Bytes(n));
            let widen = <u32 as ceiling::Lane>::widener();
            g.bench_function(format!("ours{round}"), |b| {
                iter_placed!(b, texts, |bytes| codec::decode_utf32(bytes))
            });
            g.bench_function(format!("std{round}"), |b| {
                iter_placed!(b, texts, |bytes| {
                    core::str::from_utf8(bytes)
                        .map(|s| s.chars().map(u32::from).collect::<Vec<u32>>())
                })
            });
            g.bench_function(format!("simdutf{round}"), |b| {
                iter_placed!(b, texts, |bytes| simdutf_decode(bytes))
            });
            g.bench_function(format!("ceiling-widen{round}"), |b| {
                iter_placed!(b, texts, |bytes| ceiling::widen(bytes, widen))
            });
            g.finish();

            let mut g = c.benchmark_group(format!("lossy_1pct/{tag}"));
            g.throughput(Throughput::Bytes(n));
            g.bench_function(format!("ours{round}"), |b| {
                iter_placed!(b, bads, |bad| codec::decode_lossy(bad))
            });
            g.bench_function(format!("std{round}"), |b| {
                iter_placed!(b, bads, |bad| String::from_utf8_lossy(bad).into_owned())
            });
            g.bench_function(format!("simdutf8-compat{round}"), |b| {
                iter_placed!(b, bads, |bad| simdutf8_lossy(bad))
            });
            g.bench_function(format!("encoding_rs{round}"), |b| {
                iter_placed!(b, bads, |bad| {
                    encoding_rs::UTF_8
                        .decode_without_bom_handling(bad)
                        .0
                        .into_owned()
                })
            });
            g.bench_function(format!("bstr{round}"), |b| {
                iter_placed!(b, bads, |bad| {
                    bstr::ByteSlice::to_str_lossy(bad).into_owned()
                })
            });
            g.finish();

            let mut g = c.benchmark_group(format!("encode/{tag}"));
            g.throughput(Throughput::Bytes(n));
            g.bench_function(format!("ours{round}"), |b| {
                iter_placed!(b, scalar_runs, |scalars| codec::encode_utf32(scalars))
            });
            g.bench_function(format!("std{round}"), |b| {
                iter_placed!(b, scalar_runs, |scalars| std_encode(scalars))
            });
            g.bench_function(format!("simdutf{round}"), |b| {
                iter_placed!(b, scalar_runs, |scalars| simdutf_encode(scalars))
            });
            g.finish();

            utf16::groups(c, round, &tag, variants);

            if !generated {
                continue; // the real texts: the four main operations only
            }

            let mut g = c.benchmark_group(format!("lossy_utf32_1pct/{tag}"));
            g.throughput(Throughput::Bytes(n));
            g.bench_function(format!("ours{round}"), |b| {
                iter_placed!(b, bads, |bad| codec::decode_lossy_utf32(bad))
            });
            g.bench_function(format!("std{round}"), |b| {
                iter_placed!(b, bads, |bad| {
                    String::from_utf8_lossy(bad)
                        .chars()
                        .map(u32::from)
                        .collect::<Vec<u32>>()
                })
            });
            g.bench_function(format!("simdutf8-compat{round}"), |b| {
                iter_placed!(b, bads, |bad| {
                    simdutf8_lossy(bad)
                        .chars()
                        .map(u32::from)
                        .collect::<Vec<u32>>()
                })
            });
            g.bench_function(format!("bstr{round}"), |b| {
                iter_placed!(b, bads, |bad| {
                    bstr::ByteSlice::chars(bad)
                        .map(u32::from)
                        .collect::<Vec<u32>>()
                })
            });
            g.finish();

            // Lossy decoding of valid text, against what it cannot beat:
            // validating and copying (String). (Strict UTF-32 decoding of the
            // same text is in decode_utf32 and stream_4KiB.)
            let mut g = c.benchmark_group(format!("lossy_valid/{tag}"));
            g.throughput(Throughput::Bytes(n));
            g.bench_function(format!("ours-string{round}"), |b| {
                iter_placed!(b, texts, |bytes| codec::decode_lossy(bytes))
            });
            g.bench_function(format!("validate+copy{round}"), |b| {
                iter_placed!(b, texts, |bytes| {
                    codec::validate(bytes).map(|()| {
                        let mut s = Vec::with_capacity(bytes.len());
                        s.extend_from_slice(bytes);
                        s
                    })
                })
            });
            g.bench_function(format!("ours-utf32{round}"), |b| {
                iter_placed!(b, texts, |bytes| codec::decode_lossy_utf32(bytes))
            });
            g.finish();

            let mut g = c.benchmark_group(format!("stream_4KiB/{tag}"));
            g.throughput(Throughput::Bytes(n));
            g.bench_function(format!("ours-lossy-string{round}"), |b| {
                iter_placed!(b, texts, |bytes| stream_lossy(bytes))
            });
            g.bench_function(format!("ours-strict-utf32{round}"), |b| {
                iter_placed!(b, texts, |bytes| stream_utf32(bytes))
            });
            g.bench_function(format!("one-shot-lossy-string{round}"), |b| {
                iter_placed!(b, texts, |bytes| codec::decode_lossy(bytes))
            });
            g.bench_function(format!("one-shot-strict-utf32{round}"), |b| {
                iter_placed!(b, texts, |bytes| codec::decode_utf32(bytes))
            });
            g.finish();
        }
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(100))
        // A third of a second per round, three rounds: a second per
        // contender, as two rounds of half a second were.
        .measurement_time(Duration::from_millis(333))
        .sample_size(10)
        .without_plots()
        .configure_from_args()
}

criterion_group! {
    name = codec_benches;
    config = config();
    targets = benches
}
criterion_main!(codec_benches);
