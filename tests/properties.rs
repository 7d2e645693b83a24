//! Properties on arbitrary and structured inputs (proptest, stable Rust):
//! the same checks the fuzz targets make, with shrinking.

use proptest::prelude::*;
use utf8conform::outcome::Utf8Error;
use utf8conform::{decoders, differential, generate, reference};
use utf8conform_codec as codec;

fn std_strict(bytes: &[u8]) -> Result<Vec<char>, Utf8Error> {
    core::str::from_utf8(bytes)
        .map(|s| s.chars().collect())
        .map_err(Utf8Error::from)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn reference_equals_std_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        prop_assert_eq!(reference::decode(&bytes), std_strict(&bytes));
        let lossy: Vec<char> = String::from_utf8_lossy(&bytes).chars().collect();
        prop_assert_eq!(reference::decode_lossy(&bytes), lossy);
    }

    #[test]
    fn reference_equals_std_on_structured_inputs(entropy in proptest::collection::vec(any::<u8>(), 0..400)) {
        let bytes = generate::from_entropy(&entropy);
        prop_assert_eq!(reference::decode(&bytes), std_strict(&bytes));
        let lossy: Vec<char> = String::from_utf8_lossy(&bytes).chars().collect();
        prop_assert_eq!(reference::decode_lossy(&bytes), lossy);
    }

    #[test]
    fn codec_equals_reference_on_structured_inputs(entropy in proptest::collection::vec(any::<u8>(), 0..400)) {
        let bytes = generate::from_entropy(&entropy);
        let expected = reference::decode(&bytes);
        prop_assert_eq!(codec::validate(&bytes), expected.as_ref().map(|_| ()).map_err(|e| *e));
        prop_assert_eq!(codec::decode_chars(&bytes), expected);
        let lossy: String = reference::decode_lossy(&bytes).into_iter().collect();
        prop_assert_eq!(codec::decode_lossy(&bytes), lossy);
    }

    #[test]
    fn every_builtin_decoder_agrees_with_the_reference_on_what_it_claims(
        entropy in proptest::collection::vec(any::<u8>(), 0..300),
        splits in proptest::collection::vec(0usize..300, 0..6),
    ) {
        let bytes = generate::from_entropy(&entropy);
        let decoders = decoders::all_builtin();
        let found = differential::check(&decoders, &bytes);
        prop_assert!(found.is_empty(), "{}", found[0]);
        for d in &decoders {
            let m = differential::check_chunked(d.as_ref(), &bytes, &splits);
            prop_assert!(m.is_empty(), "{} {:?}", d.name(), m);
        }
    }

    #[test]
    fn utf16_property_holds_on_arbitrary_bytes(data in proptest::collection::vec(any::<u8>(), 0..400)) {
        // As UTF-8 and as UTF-16 code units: against std, the reference,
        // encoding_rs (and simdutf with its feature).
        utf8conform::properties::utf16(&data);
    }

    #[test]
    fn utf16_property_holds_on_structured_inputs(entropy in proptest::collection::vec(any::<u8>(), 0..400), stride in 0x80u8..0x90) {
        let mut data = vec![stride];
        data.extend(generate::from_entropy(&entropy));
        utf8conform::properties::utf16(&data);
    }

    #[test]
    fn utf16_to_utf8_equals_std_on_text_with_lone_surrogates(
        text in "\\PC{0,200}",
        lone in proptest::collection::vec((any::<prop::sample::Index>(), 0xD800u16..0xE000), 0..4),
    ) {
        let mut units: Vec<u16> = text.encode_utf16().collect();
        for (at, unit) in lone {
            if !units.is_empty() {
                let i = at.index(units.len());
                units[i] = unit;
            }
        }
        let lossy = String::from_utf16_lossy(&units);
        prop_assert_eq!(codec::from_utf16_lossy(&units), lossy);
        match String::from_utf16(&units) {
            Ok(s) => prop_assert_eq!(codec::from_utf16(&units), Ok(s)),
            Err(_) => {
                let at: usize = char::decode_utf16(units.iter().copied())
                    .map_while(Result::ok)
                    .map(char::len_utf16)
                    .sum();
                prop_assert_eq!(codec::from_utf16(&units), Err(codec::Utf16Error::new(at)));
            }
        }
    }

    #[test]
    fn encode_then_decode_is_identity(text in "\\PC{0,64}") {
        let scalars: Vec<u32> = text.chars().map(u32::from).collect();
        let bytes = codec::encode_utf32(&scalars).unwrap();
        prop_assert_eq!(&bytes, text.as_bytes());
        prop_assert_eq!(codec::decode_utf32(&bytes).unwrap(), scalars);
    }
}
