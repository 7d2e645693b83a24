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
    fn encode_then_decode_is_identity(text in "\\PC{0,64}") {
        let scalars: Vec<u32> = text.chars().map(u32::from).collect();
        let bytes = codec::encode_utf32(&scalars).unwrap();
        prop_assert_eq!(&bytes, text.as_bytes());
        prop_assert_eq!(codec::decode_utf32(&bytes).unwrap(), scalars);
    }
}
