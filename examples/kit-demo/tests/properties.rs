//! The kit's fuzz properties under proptest: raw bytes and structured
//! inputs (overlongs, surrogates, cut sequences behind padding).

mod mine;

use proptest::prelude::*;
use utf8conform::properties::{differential_with, lossy_with};

proptest! {
    #[test]
    fn agrees_with_the_reference_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        differential_with(&[&mine::Mine], &bytes);
        lossy_with(&[&mine::Mine], &bytes);
    }

    #[test]
    fn agrees_with_the_reference_on_structured_inputs(entropy in proptest::collection::vec(any::<u8>(), 0..256)) {
        let bytes = utf8conform::generate::from_entropy(&entropy);
        differential_with(&[&mine::Mine], &bytes);
    }
}
