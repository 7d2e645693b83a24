//! Every byte string up to a length, through every chosen decoder.
//!
//! Length 4 is 4,294,967,296 inputs, so the sweep asks decoders for a
//! [`Verdict`] (validity and the first error, no allocation) and compares
//! it with the reference's; for lengths up to `full_len` it also compares
//! complete answers (scalars, lossy output) on every claimed level. Work is
//! split by the first two bytes into 65,536 units spread over
//! [`SweepOptions::threads`] threads.

use crate::decoder::Decoder;
use crate::differential::{self, Divergence, Field, Mismatch};
use crate::outcome::{Capabilities, Capability, Verdict};
use crate::reference;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// What to sweep.
#[derive(Clone, Copy, Debug)]
pub struct SweepOptions {
    /// Longest input length (1..=4).
    pub max_len: usize,
    /// Lengths up to this also get complete answers compared.
    pub full_len: usize,
    /// Keep at most this many example divergences per (decoder, field).
    pub examples_per_class: usize,
    /// Threads to use (0: one per core).
    pub threads: usize,
}

/// Counts for one input length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LengthStats {
    /// The length.
    pub len: usize,
    /// Inputs of that length (256^len).
    pub total: u64,
    /// How many the reference accepts.
    pub valid: u64,
}

/// What a sweep found.
#[derive(Clone, Debug, Default)]
pub struct SweepResult {
    /// Per length, in order.
    pub lengths: Vec<LengthStats>,
    /// Example divergences (at most `examples_per_class` per decoder and
    /// field), in no particular order.
    pub examples: Vec<Divergence>,
    /// All divergences found.
    pub divergence_count: u64,
    /// All divergences found, per (decoder, field) — including those past
    /// the examples kept.
    pub class_counts: std::collections::BTreeMap<(String, Field), u64>,
}

/// Compares a fast verdict with the reference's, on claimed fields only.
pub fn compare_verdict(expected: &Verdict, got: &Verdict, caps: Capabilities) -> Option<Mismatch> {
    let show = |v: &Verdict| format!("{v:?}");
    let mut field = None;
    if caps.has(Capability::Validate) && expected.valid != got.valid {
        field = Some(Field::Valid);
    } else if !expected.valid && !got.valid {
        if caps.has(Capability::Position)
            && got.valid_up_to.is_some()
            && got.valid_up_to != expected.valid_up_to
        {
            field = Some(Field::ValidUpTo);
        } else if caps.has(Capability::Subpart)
            && got.error_len.is_some()
            && got.error_len != expected.error_len
        {
            field = Some(Field::ErrorLen);
        }
    }
    field.map(|field| Mismatch {
        field,
        expected: show(expected),
        got: show(got),
    })
}

/// Whether `got` agrees with `expected` on every claimed, answered field.
#[inline(always)]
fn agrees(expected: &Verdict, got: &Verdict, caps: Capabilities) -> bool {
    (expected.valid == got.valid || !caps.has(Capability::Validate))
        && (expected.valid
            || got.valid
            || ((got.valid_up_to.is_none() || got.valid_up_to == expected.valid_up_to)
                && (got.error_len.is_none() || got.error_len == expected.error_len)))
}

/// Runs the sweep; `progress` is called with the number of inputs finished
/// since its last call.
pub fn sweep(
    decoders: &[Box<dyn Decoder>],
    options: SweepOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> SweepResult {
    let decoders: Vec<&dyn Decoder> = decoders.iter().map(|d| d.as_ref()).collect();
    sweep_dyn(&decoders, options, progress)
}

/// [`sweep`] for borrowed decoders.
pub fn sweep_dyn(
    decoders: &[&dyn Decoder],
    options: SweepOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> SweepResult {
    assert!((1..=4).contains(&options.max_len), "max_len must be 1..=4");
    let examples = Mutex::new(Vec::new());
    let per_class: Mutex<std::collections::BTreeMap<(String, Field), u64>> = Mutex::default();
    let count = AtomicU64::new(0);
    let claims: Vec<Capabilities> = decoders.iter().map(|d| d.capabilities()).collect();
    let mut lengths = Vec::new();
    for len in 1..=options.max_len {
        let full = len <= options.full_len;
        let valid = AtomicU64::new(0);
        // Units: the first min(len, 2) bytes; each unit walks the rest.
        let head = len.min(2);
        let units = 1usize << (8 * head);
        let tail = len - head;
        crate::parallel::for_each(units, options.threads, |unit| {
            let mut buf = [0u8; 4];
            let input = &mut buf[..len];
            for (i, b) in input[..head].iter_mut().enumerate() {
                *b = (unit >> (8 * (head - 1 - i))) as u8;
            }
            let mut found: Vec<Divergence> = Vec::new();
            let mut local_valid = 0u64;
            let tail_count: u32 = 1 << (8 * tail);
            for rest in 0..tail_count {
                for i in 0..tail {
                    input[head + i] = (rest >> (8 * (tail - 1 - i))) as u8;
                }
                let expected = Verdict::from_result(reference::validate(input));
                local_valid += u64::from(expected.valid);
                for (d, &caps) in decoders.iter().zip(&claims) {
                    let verdict = d.verdict(input);
                    if let Some(v) = &verdict {
                        // The common case, agreement, is decided without
                        // building a Mismatch.
                        if !agrees(&expected, v, caps) {
                            if let Some(mismatch) = compare_verdict(&expected, v, caps) {
                                found.push(divergence(*d, input, mismatch));
                                continue;
                            }
                        }
                    }
                    if full || verdict.is_none() {
                        for mismatch in answer_mismatches(*d, input) {
                            found.push(divergence(*d, input, mismatch));
                        }
                    }
                }
            }
            valid.fetch_add(local_valid, Ordering::Relaxed);
            if !found.is_empty() {
                count.fetch_add(found.len() as u64, Ordering::Relaxed);
                let mut classes = per_class.lock().expect("no panic while locked");
                let mut kept = examples.lock().expect("no panic while locked");
                for d in found {
                    let n = classes
                        .entry((d.decoder.clone(), d.mismatch.field))
                        .or_insert(0);
                    *n += 1;
                    if *n <= options.examples_per_class as u64 {
                        kept.push(d);
                    }
                }
            }
            progress(u64::from(tail_count));
        });
        lengths.push(LengthStats {
            len,
            total: 1u64 << (8 * len),
            valid: valid.into_inner(),
        });
    }
    let mut examples = examples.into_inner().expect("no panic while locked");
    examples.sort_by(|a, b| (&a.decoder, &a.input).cmp(&(&b.decoder, &b.input)));
    SweepResult {
        lengths,
        examples,
        divergence_count: count.into_inner(),
        class_counts: per_class.into_inner().expect("no panic while locked"),
    }
}

fn divergence(decoder: &dyn Decoder, input: &[u8], mismatch: Mismatch) -> Divergence {
    Divergence {
        decoder: decoder.name().to_string(),
        input: input.to_vec(),
        mismatch,
        minimized: None,
    }
}

fn answer_mismatches(decoder: &dyn Decoder, input: &[u8]) -> Vec<Mismatch> {
    let expected = differential::expected(input);
    match decoder.decode(input) {
        Ok(got) => differential::compare(&expected, &got, decoder.capabilities()),
        Err(failure) => vec![differential::failure_mismatch(
            differential::Asked::Decode,
            &failure,
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_of_valid_strings_match_the_grammar() {
        // From RFC 3629 §4 by counting: 128 one-byte strings are valid;
        // two-byte: 128² ASCII pairs + 30 × 64 UTF8-2 sequences (C2–DF,
        // 80–BF) = 16,384 + 1,920 = 18,304.
        let decoders: Vec<Box<dyn Decoder>> = Vec::new();
        let options = SweepOptions {
            max_len: 2,
            full_len: 0,
            examples_per_class: 1,
            threads: 0,
        };
        let result = sweep(&decoders, options, &|_| {});
        assert_eq!(
            result.lengths[0],
            LengthStats {
                len: 1,
                total: 256,
                valid: 128
            }
        );
        assert_eq!(
            result.lengths[1],
            LengthStats {
                len: 2,
                total: 65_536,
                valid: 18_304
            }
        );
    }

    #[test]
    fn a_decoder_that_disagrees_is_caught() {
        struct AcceptsEverything;
        impl Decoder for AcceptsEverything {
            fn name(&self) -> &str {
                "accepts-everything"
            }
            fn version(&self) -> String {
                "0".into()
            }
            fn capabilities(&self) -> Capabilities {
                Capabilities::NONE.with(Capability::Validate)
            }
            fn decode(&self, _: &[u8]) -> Result<crate::outcome::Answer, crate::outcome::Failure> {
                Ok(crate::outcome::Answer {
                    valid: Some(true),
                    ..Default::default()
                })
            }
            fn verdict(&self, _: &[u8]) -> Option<Verdict> {
                Some(Verdict {
                    valid: true,
                    ..Verdict::default()
                })
            }
        }
        let decoders: Vec<Box<dyn Decoder>> = vec![Box::new(AcceptsEverything)];
        let options = SweepOptions {
            max_len: 1,
            full_len: 1,
            examples_per_class: 3,
            threads: 0,
        };
        let result = sweep(&decoders, options, &|_| {});
        assert_eq!(result.divergence_count, 128); // every byte 80..=FF
        assert_eq!(result.examples.len(), 3);
        let key = ("accepts-everything".to_string(), Field::Valid);
        assert_eq!(result.class_counts.get(&key), Some(&128));
    }
}
