//! Encoding against `char::encode_utf8` and RFC 3629 §3: every scalar
//! value, every refused number, one at a time and in runs on every kernel.

mod common;

use common::{kernels, Rng};
use utf8conform_codec::{self as codec, EncodeError, EncodeFailure};

/// RFC 3629 §3: surrogates and numbers above U+10FFFF have no UTF-8 form.
fn refusal(value: u32) -> Option<EncodeError> {
    match value {
        0xD800..=0xDFFF => Some(EncodeError::Surrogate),
        v if v > 0x10FFFF => Some(EncodeError::OutOfRange),
        _ => None,
    }
}

fn std_bytes(values: &[u32]) -> Vec<u8> {
    values
        .iter()
        .map(|&v| char::from_u32(v).unwrap())
        .collect::<String>()
        .into_bytes()
}

#[test]
fn every_number_up_to_past_the_last_scalar_one_at_a_time() {
    let tops = [0x110000, 0x110001, 0x1FFFFF, 0x7FFF_FFFF, u32::MAX];
    for value in (0..=0x110000).chain(tops) {
        let got = codec::encode_scalar(value).map(|e| e.as_bytes().to_vec());
        let expected = match char::from_u32(value) {
            Some(c) => Ok(c.to_string().into_bytes()),
            None => Err(refusal(value).expect("not a scalar")),
        };
        assert_eq!(got, expected, "{value:#x}");
        assert_eq!(EncodeError::classify(value), refusal(value), "{value:#x}");
        let one = codec::encode_utf32(&[value]);
        assert_eq!(
            one,
            expected.map_err(|error| EncodeFailure { index: 0, error }),
            "{value:#x}"
        );
    }
}

/// Scalars of every length, ASCII runs of every length around the
/// 8-value fast path.
fn mixed(rng: &mut Rng, len: usize) -> Vec<u32> {
    (0..len)
        .map(|_| match rng.below(6) {
            0..=2 => rng.below(0x80) as u32,
            3 => 0x80 + rng.below(0x780) as u32,
            4 => [0x800, 0xD7FF, 0xE000, 0xFFFF][rng.below(4)],
            _ => 0x10000 + rng.below(0x100000) as u32,
        })
        .collect()
}

#[test]
fn runs_of_every_mix_with_and_without_a_refused_value() {
    let mut rng = Rng(13);
    let lengths = (0..70).chain([1023, 1024, 1025, 2049, 5000]);
    for len in lengths {
        let values = mixed(&mut rng, len);
        let ascii: Vec<u32> = (0..len as u32).map(|i| i % 0x80).collect();
        for k in kernels() {
            assert_eq!(
                k.encode_utf32(&values),
                Ok(std_bytes(&values)),
                "{} len {len}",
                k.name
            );
            assert_eq!(
                k.encode_utf32(&ascii),
                Ok(std_bytes(&ascii)),
                "{} ascii {len}",
                k.name
            );
        }
        assert_eq!(codec::encode_utf32(&values), Ok(std_bytes(&values)));
        if len == 0 {
            continue;
        }
        for bad in [0xD800, 0xDFFF, 0x110000, u32::MAX] {
            for at in [0, len / 2, len - 1] {
                for input in [&values, &ascii] {
                    let mut input = input.clone();
                    input[at] = bad;
                    let expected = EncodeFailure {
                        index: at,
                        error: refusal(bad).unwrap(),
                    };
                    for k in kernels() {
                        assert_eq!(
                            k.encode_utf32(&input),
                            Err(expected),
                            "{} {bad:#x} at {at}",
                            k.name
                        );
                    }
                    assert_eq!(codec::encode_utf32(&input), Err(expected));
                }
            }
        }
    }
}

#[test]
fn refusals_are_named_as_the_protocol_names_them() {
    // docs/protocol.md: `"surrogate"` and `"out-of-range"`.
    assert_eq!(EncodeError::Surrogate.as_str(), "surrogate");
    assert_eq!(EncodeError::OutOfRange.as_str(), "out-of-range");
    let failure = EncodeFailure {
        index: 17,
        error: EncodeError::Surrogate,
    };
    let shown = failure.to_string();
    assert!(
        shown.contains("17") && shown.contains(&EncodeError::Surrogate.to_string()),
        "{shown}"
    );
    assert_ne!(
        EncodeError::Surrogate.to_string(),
        EncodeError::OutOfRange.to_string()
    );
    assert!(EncodeError::OutOfRange.to_string().contains("10FFFF"));
    assert!(EncodeError::Surrogate.to_string().contains("D800"));
}
