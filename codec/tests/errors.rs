//! `Utf8Error`: core::str::Utf8Error's meaning and constraints.

use utf8conform_codec::Utf8Error;

#[test]
fn it_carries_std_errors_unchanged() {
    for (bytes, valid, len) in [
        (&b"ab\xF0\x9F\x98"[..], 2, None),
        (b"a\xED\xA0\x80", 1, Some(1)),
        (b"a\xE2\x82b", 1, Some(2)),
        (b"\xF1\x80\x80b", 0, Some(3)),
    ] {
        let std = core::str::from_utf8(bytes).unwrap_err();
        assert_eq!(
            (std.valid_up_to(), std.error_len()),
            (valid, len.map(usize::from))
        );
        let e = Utf8Error::from(std);
        assert_eq!((e.valid_up_to(), e.error_len()), (valid, len));
        assert_eq!(e, Utf8Error::new(valid, len));
        let shifted = e.shifted(10);
        assert_eq!(
            (shifted.valid_up_to(), shifted.error_len()),
            (valid + 10, len)
        );
    }
}

#[test]
fn no_maximal_subpart_is_empty_or_longer_than_three_bytes() {
    for n in 1..=3 {
        assert_eq!(Utf8Error::new(5, Some(n)).error_len(), Some(n));
    }
    for n in [0, 4, 255] {
        let built = std::panic::catch_unwind(|| Utf8Error::new(0, Some(n)));
        assert!(built.is_err(), "error_len {n} accepted");
    }
}

#[test]
fn it_says_where_and_whether_the_input_was_cut_short() {
    let ill = Utf8Error::new(12, Some(2)).to_string();
    let cut = Utf8Error::new(12, None).to_string();
    assert!(ill.contains("12") && ill.contains('2'), "{ill}");
    assert!(cut.contains("12"), "{cut}");
    assert_ne!(ill, cut);
    assert_ne!(ill, Utf8Error::new(12, Some(1)).to_string());
    // std's errors say the same things apart (the literal is ill-formed
    // on purpose).
    #[allow(invalid_from_utf8)]
    let std_cut = core::str::from_utf8(b"\xE2\x82").unwrap_err().to_string();
    assert!(std_cut.contains("incomplete"), "{std_cut}");
    assert!(cut.contains("incomplete"), "{cut}");
}
