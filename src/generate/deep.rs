//! Inputs with their error deep inside: SIMD decoders work in 16-, 32- and
//! 64-byte blocks and loops of blocks, and a bug in a tail, a block edge
//! or a long loop shows only past the first bytes. Every error class is put
//! after text whose length puts it at every offset around the block edges
//! up to 130 bytes, and around 256, 1 KiB, 4 KiB and 64 KiB; runs of ASCII
//! followed by one bad byte (simdjson issue 1169's case) are among them.

/// An input and what it is, for a finding's reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deep {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// What it is: `80 after 300 bytes of ASCII`.
    pub note: String,
}

/// The errors placed deep: each with whether text follows it.
const ERRORS: &[(&str, &[u8], bool)] = &[
    ("a stray continuation byte", b"\x80", true),
    ("a byte that never occurs", b"\xFF", true),
    ("a bad byte at the very end", b"\xFF", false),
    ("F5 (above U+10FFFF's lead)", b"\xF5\x80\x80\x80", true),
    ("an overlong '/'", b"\xC0\xAF", true),
    ("a surrogate", b"\xED\xA0\x80", true),
    ("U+110000", b"\xF4\x90\x80\x80", true),
    ("a truncated sequence before ASCII", b"\xE2\x82", true),
    ("a truncated sequence at the end", b"\xF0\x9F\x98", false),
];

/// Lengths of text before the error: every one up to 130 (all offsets
/// around the 16-, 32- and 64-byte edges and the first two 64-byte
/// blocks), and ±3 around 256, 1 KiB and 4 KiB.
fn depths() -> Vec<usize> {
    let mut out: Vec<usize> = (0..=130).collect();
    for edge in [256usize, 1024, 4096] {
        out.extend(edge - 3..=edge + 3);
    }
    out
}

/// Past 64 KiB, ±1 around it: a 64 KiB answer is a large line for an
/// adapter to write (a JSON array of 65,536 numbers), so fewer of them.
const PAST_64K: [usize; 3] = [65535, 65536, 65537];

/// Every deep input: each error after ASCII at every depth (the first five
/// classes past 64 KiB); after 2- and 3-byte text (so the error sits
/// behind multi-byte characters across block edges) at the depths up to
/// 130 bytes, for the first five classes.
pub fn deep_inputs() -> Vec<Deep> {
    let mut out = Vec::new();
    let fillers: [(&str, &str); 3] = [
        ("ASCII", "a"),
        ("2-byte text", "\u{e9}"),
        ("3-byte text", "\u{20ac}"),
    ];
    for (filler_name, filler) in fillers {
        let depths = if filler == "a" {
            depths().into_iter().chain(PAST_64K).collect()
        } else {
            depths()
        };
        for depth in depths {
            if filler != "a" && depth > 130 {
                continue;
            }
            // Whole characters, as many as fit in `depth` bytes.
            let text = filler.repeat(depth / filler.len());
            let errors = if filler == "a" && depth < 65535 {
                ERRORS
            } else {
                &ERRORS[..5]
            };
            for &(name, error, followed) in errors {
                let mut bytes = text.as_bytes().to_vec();
                bytes.extend_from_slice(error);
                if followed {
                    bytes.extend_from_slice(b"ok, then more text");
                }
                out.push(Deep {
                    note: format!("{name} after {} bytes of {filler_name}", text.len()),
                    bytes,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference;

    #[test]
    fn errors_sit_where_the_note_says_past_every_edge() {
        let inputs = deep_inputs();
        // The reference finds each error exactly after the text.
        for d in &inputs {
            let e = reference::validate(&d.bytes).expect_err(&d.note);
            let depth: usize = d
                .note
                .split(" after ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(e.valid_up_to(), depth, "{}", d.note);
        }
        let deepest = inputs.iter().map(|d| d.bytes.len()).max().unwrap();
        assert!(deepest > 65536, "{deepest}");
        for edge in [16, 32, 64, 256, 4096, 65536] {
            assert!(inputs
                .iter()
                .any(|d| d.note.contains(&format!("after {edge} bytes of ASCII"))));
            assert!(inputs.iter().any(|d| d
                .note
                .contains(&format!("after {} bytes of ASCII", edge - 1))));
        }
    }
}
