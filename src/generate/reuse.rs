//! Sequences of inputs for one decoder object (level U): a first input
//! that leaves state behind, then one that shows whether it did. The
//! state can come from an error, a byte order mark, a stream cut short
//! and flushed, or a stream left without its flush.

use crate::outcome::StreamRun;

fn run(chunks: &[&[u8]], flush: bool) -> StreamRun {
    StreamRun {
        chunks: chunks.iter().map(|c| c.to_vec()).collect(),
        flush,
    }
}

/// First inputs: each leaves something behind in a decoder that keeps
/// state it should not.
fn firsts() -> Vec<StreamRun> {
    vec![
        run(&[b"\xFF"], true),
        run(&[b"\xE2", b"A"], true),
        run(&[b"A\xF0", b"A"], true),
        run(&[b"\xE0\x80", b"\x80"], true),
        run(&[b"\xED\xA0\x80"], true),
        run(&[b"\xE2"], true),
        run(&[b"\xF0\x9F"], true),
        run(&[b"\xEF\xBB\xBFA"], true),
        run(&[b"\xEF", b"\xBB\xBF"], true),
        run(&[b"A"], true),
        run(&[], true),
        run(&[b"\xF0\x9F"], false),
        run(&[b"\xE2\x82"], false),
        run(&[b"\xEF\xBB"], false),
        run(&[b"A"], false),
    ]
}

/// Second inputs: each completes, extends or contrasts with what a first
/// input may have left.
fn seconds() -> Vec<StreamRun> {
    vec![
        run(&[b"A"], true),
        run(&[b"\x82\xAC"], true),
        run(&[b"\x9F\x98\x80"], true),
        run(&[b"\x98", b"\x80"], true),
        run(&[b"\xEF\xBB\xBFB"], true),
        run(&[b"\xBFA"], true),
        run(&[b"\x80A"], true),
        run(&[], true),
    ]
}

/// Every pair of a first and a second input, and a few of three.
pub fn reuse_sequences() -> Vec<Vec<StreamRun>> {
    let mut out = Vec::new();
    for first in firsts() {
        for second in seconds() {
            out.push(vec![first.clone(), second]);
        }
    }
    out.push(vec![
        run(&[b"\xFF"], true),
        run(&[b"A"], true),
        run(&[b"B"], true),
    ]);
    out.push(vec![
        run(&[b"\xEF\xBB\xBF"], true),
        run(&[b"\xEF\xBB\xBF"], true),
        run(&[b"\xEF\xBB\xBFA"], true),
    ]);
    out.push(vec![
        run(&[b"\xF0"], false),
        run(&[b"\x9F"], false),
        run(&[b"\x98\x80"], true),
    ]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_leftover_state_is_tried() {
        let seqs = reuse_sequences();
        assert!(seqs.len() > 100);
        assert!(seqs.iter().any(|s| !s[0].flush));
        assert!(seqs
            .iter()
            .any(|s| s[0].bytes().starts_with(b"\xEF\xBB\xBF")));
        assert!(seqs.iter().any(|s| s[0].bytes() == b"\xFF"));
    }
}
