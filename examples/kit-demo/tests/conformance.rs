//! The whole kit in one test: every vector (one-shot), every input of up
//! to 2 bytes, errors deep in long inputs, a differential campaign and the
//! RFC 3629 §10 flags, each failure with its input.

mod mine;

#[test]
fn the_decoder_conforms() {
    utf8conform::assert_conforms(&mine::Mine);
}
