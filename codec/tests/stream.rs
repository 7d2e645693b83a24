//! The streaming decoder, strict and lossy, on every kernel this CPU runs,
//! over many splits: the same answer as `core::str::from_utf8` and
//! `String::from_utf8_lossy` on the whole input, errors counted from the
//! stream's start.

mod common;

use common::{kernels, lossy, placed, prefix, strict, text, utf32, Rng};
use utf8conform_codec::{StreamDecoder, Utf8Error};

/// Whether `bytes` ends inside a sequence more bytes could complete, after
/// nothing ill-formed (a strict decoder holds bytes back).
fn strict_holds(bytes: &[u8]) -> bool {
    matches!(core::str::from_utf8(bytes), Err(e) if e.error_len().is_none())
}

/// Whether a lossy decoder holds bytes back after `bytes`: its last
/// maximal subpart is at the end and could still be completed.
fn lossy_holds(bytes: &[u8]) -> bool {
    bytes
        .utf8_chunks()
        .last()
        .is_some_and(|c| !c.invalid().is_empty() && strict_holds(c.invalid()))
}

fn split(bytes: &[u8], cuts: &[usize]) -> Vec<(usize, usize)> {
    let mut edges = vec![0];
    edges.extend(cuts.iter().copied());
    edges.push(bytes.len());
    edges.windows(2).map(|w| (w[0], w[1])).collect()
}

/// Feeds `bytes` cut at `cuts` (ascending) to fresh decoders.
fn check(bytes: &[u8], cuts: &[usize]) {
    let expected = strict(bytes);
    let pieces = split(bytes, cuts);
    let mut decoders = vec![(StreamDecoder::strict(), StreamDecoder::lossy())];
    for k in kernels() {
        decoders.push((k.stream_strict(), k.stream_lossy()));
    }
    for (i, (mut s, mut l)) in decoders.into_iter().enumerate() {
        let what = format!("decoder {i}, {bytes:02x?} cut at {cuts:?}");
        let (mut s32, mut l32) = (s.clone(), l.clone());
        let (mut out, mut out32, mut lout, mut lout32) =
            (String::new(), vec![], String::new(), vec![]);
        let mut result: Result<(), Utf8Error> = Ok(());
        for &(from, to) in &pieces {
            let chunk = &bytes[from..to];
            l.feed(chunk, &mut lout).expect("lossy never fails");
            l32.feed_utf32(chunk, &mut lout32)
                .expect("lossy never fails");
            assert_eq!(
                l.is_mid_sequence(),
                lossy_holds(&bytes[..to]),
                "lossy held, {what}"
            );
            let r = s.feed(chunk, &mut out);
            assert_eq!(s32.feed_utf32(chunk, &mut out32), r, "utf32 feed, {what}");
            if result.is_ok() {
                result = r;
                let held = r.is_ok() && strict_holds(&bytes[..to]);
                assert_eq!(s.is_mid_sequence(), held, "strict held, {what}");
            } else {
                // A failed strict decoder keeps its error, and holds nothing.
                assert_eq!(r, result, "strict after its error, {what}");
                assert!(!s.is_mid_sequence(), "{what}");
            }
        }
        assert_eq!(
            s.is_mid_sequence(),
            result.is_ok() && strict_holds(bytes),
            "strict held at the end, {what}"
        );
        let end = s.finish(&mut out);
        assert_eq!(s32.finish_utf32(&mut out32), end, "utf32 finish, {what}");
        if result.is_ok() {
            result = end;
        } else {
            assert_eq!(end, result, "finish after the error, {what}");
        }
        assert_eq!(
            result,
            expected.as_ref().map(|_| ()).map_err(|e| *e),
            "strict, {what}"
        );
        assert_eq!(utf32(&out), prefix(bytes), "strict output, {what}");
        assert_eq!(out32, prefix(bytes), "strict utf32 output, {what}");
        l.finish(&mut lout).expect("lossy never fails");
        l32.finish_utf32(&mut lout32).expect("lossy never fails");
        assert_eq!(lout, lossy(bytes), "lossy, {what}");
        assert_eq!(lout32, utf32(&lossy(bytes)), "lossy utf32, {what}");
    }
}

#[test]
fn every_single_and_every_byte_split_of_every_placed_input() {
    for input in placed().iter().filter(|i| i.len() < 48) {
        for cut in 0..=input.len() {
            check(input, &[cut]);
        }
        let every: Vec<usize> = (1..input.len()).collect();
        check(input, &every);
    }
}

#[test]
fn every_pair_of_splits_of_short_inputs() {
    for a in common::BAD {
        for b in common::BAD {
            let mut input = a.to_vec();
            input.push(b'a');
            input.extend_from_slice(b);
            for i in 0..=input.len() {
                for j in i..=input.len() {
                    check(&input, &[i, j]);
                }
            }
        }
    }
}

#[test]
fn random_text_in_random_chunks() {
    let mut rng = Rng(5);
    for i in 0..600 {
        let input = text(&mut rng, i % 200, [0, 10, 100, 500][i % 4]);
        let mut cuts: Vec<usize> = (0..rng.below(6))
            .map(|_| rng.below(input.len() + 1))
            .collect();
        cuts.sort_unstable();
        check(&input, &cuts);
    }
}

#[test]
fn long_chunks_past_the_engine_span() {
    // Chunks longer than the engine's 16 KiB span, errors in and after it.
    let mut rng = Rng(9);
    for per_mille in [0, 1, 50] {
        let input = text(&mut rng, 14_000, per_mille);
        check(&input, &[]);
        check(&input, &[17, input.len() / 2]);
    }
}
