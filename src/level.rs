//! The conformance levels: one type, one place that maps each to its
//! letter, its question and the claims that make it apply.
//!
//! A decoder is scored only on the levels its [`Capabilities`] claim; every
//! report column, exit-status gate and failure record speaks in these.

use crate::outcome::{Capabilities, Capability};
use std::fmt;

/// A conformance level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// V: accepts exactly the RFC 3629 language, and decodes it right.
    Validity,
    /// P: `valid_up_to` right on every invalid input.
    Position,
    /// S: `error_len` is the maximal subpart, `null` only for a completable
    /// tail.
    Subpart,
    /// R: lossy output has one U+FFFD per maximal subpart.
    Replacement,
    /// C: fed in chunks, the same output, each call returning what is
    /// decided by then.
    Chunking,
    /// U: a decoder object used again answers as a fresh one does.
    Reuse,
    /// E: shortest form; surrogates and values above U+10FFFF refused.
    Encoding,
}

impl Level {
    /// Every level, in report order.
    pub const ALL: [Level; 7] = [
        Level::Validity,
        Level::Position,
        Level::Subpart,
        Level::Replacement,
        Level::Chunking,
        Level::Reuse,
        Level::Encoding,
    ];

    /// The letter reports use: V P S R C U E.
    pub fn letter(self) -> char {
        match self {
            Level::Validity => 'V',
            Level::Position => 'P',
            Level::Subpart => 'S',
            Level::Replacement => 'R',
            Level::Chunking => 'C',
            Level::Reuse => 'U',
            Level::Encoding => 'E',
        }
    }

    /// The level a letter names.
    pub fn from_letter(letter: char) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.letter() == letter)
    }

    /// One line: the question the level asks.
    pub fn question(self) -> &'static str {
        match self {
            Level::Validity => "validity: accepts exactly the RFC 3629 language",
            Level::Position => "position: valid_up_to right on every invalid input",
            Level::Subpart => {
                "subpart: error_len = maximal subpart, null only for a completable tail"
            }
            Level::Replacement => "replacement: one U+FFFD per maximal subpart",
            Level::Chunking => {
                "chunking: however the input is split, the same output, each call emitting what is decided"
            }
            Level::Reuse => "reuse: a decoder used again answers as a fresh one",
            Level::Encoding => "encoding: shortest form; surrogates and > U+10FFFF refused",
        }
    }

    /// Whether a decoder claiming `caps` is scored on this level.
    pub fn claimed_by(self, caps: Capabilities) -> bool {
        match self {
            Level::Validity => caps.has(Capability::Validate) || caps.has(Capability::Decode),
            Level::Position => caps.has(Capability::Position),
            Level::Subpart => caps.has(Capability::Subpart),
            Level::Replacement => caps.has(Capability::Lossy),
            Level::Chunking => {
                caps.has(Capability::StreamStrict) || caps.has(Capability::StreamLossy)
            }
            Level::Reuse => caps.has(Capability::Reuse),
            Level::Encoding => caps.has(Capability::Encode),
        }
    }

    /// The levels a string of letters names (`"VPSR"`), or the first
    /// character that names none.
    pub fn parse_set(letters: &str) -> Result<Vec<Level>, char> {
        letters
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ',')
            .map(|c| Level::from_letter(c).ok_or(c))
            .collect()
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_round_trip_and_are_unique() {
        let letters: String = Level::ALL.iter().map(|l| l.letter()).collect();
        assert_eq!(letters, "VPSRCUE");
        for level in Level::ALL {
            assert_eq!(Level::from_letter(level.letter()), Some(level));
        }
        assert_eq!(Level::from_letter('X'), None);
        assert_eq!(
            Level::parse_set("V, P S"),
            Ok(vec![Level::Validity, Level::Position, Level::Subpart])
        );
        assert_eq!(Level::parse_set("VQ"), Err('Q'));
    }

    #[test]
    fn a_level_applies_only_to_what_is_claimed() {
        let validate = Capabilities::NONE.with(Capability::Validate);
        assert!(Level::Validity.claimed_by(validate));
        assert!(!Level::Position.claimed_by(validate));
        let lossy_stream = Capabilities::NONE.with(Capability::StreamLossy);
        assert!(Level::Chunking.claimed_by(lossy_stream));
        assert!(!Level::Reuse.claimed_by(lossy_stream));
    }

    /// The report's legend reads each level's question: it names the
    /// level first (the words the README's level table uses).
    #[test]
    fn each_question_names_its_level_first() {
        let names = [
            "validity:",
            "position:",
            "subpart:",
            "replacement:",
            "chunking:",
            "reuse:",
            "encoding:",
        ];
        for (level, name) in Level::ALL.into_iter().zip(names) {
            assert!(
                level.question().starts_with(name),
                "{level}: {}",
                level.question()
            );
            assert!(
                level.question().len() > name.len() + 10,
                "{level}: no question"
            );
        }
    }

    /// Each claim alone brings exactly the level that scores it; a decoder
    /// that claims nothing is scored on nothing.
    #[test]
    fn each_capability_alone_claims_its_level() {
        use Capability::*;
        let alone = [
            (Validate, Level::Validity),
            (Decode, Level::Validity),
            (Position, Level::Position),
            (Subpart, Level::Subpart),
            (Lossy, Level::Replacement),
            (StreamStrict, Level::Chunking),
            (StreamLossy, Level::Chunking),
            (Reuse, Level::Reuse),
            (Encode, Level::Encoding),
        ];
        for (cap, claimed) in alone {
            let caps = Capabilities::NONE.with(cap);
            for level in Level::ALL {
                assert_eq!(
                    level.claimed_by(caps),
                    level == claimed,
                    "{cap:?} and {level}"
                );
            }
        }
        assert!(Level::ALL.iter().all(|l| !l.claimed_by(Capabilities::NONE)));
    }

    #[test]
    fn a_level_displays_as_its_letter() {
        let shown: Vec<String> = Level::ALL.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["V", "P", "S", "R", "C", "U", "E"]);
        assert_eq!(Level::parse_set(""), Ok(vec![]));
        assert_eq!(
            Level::parse_set("U,E"),
            Ok(vec![Level::Reuse, Level::Encoding])
        );
    }
}
