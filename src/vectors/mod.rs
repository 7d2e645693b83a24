//! Test vectors: the model, the files, and running decoders over them.
//!
//! A vector file holds one category (`{ "schema": 2, "category",
//! "description", "references", "cases" }`, docs/DESIGN.md "Vectors"). Cases are
//! written one per line so that a change to one case is a one-line diff.
//!
//! Version 2 adds UTF-16: every decode case carries the UTF-16 (RFC 2781
//! §2.1) of its scalars and of its lossy output, and `utf16` cases go the
//! other way, UTF-16 code units to UTF-8. Version 1 files (decode cases
//! without the UTF-16 fields) still load; [`VectorFile::upgrade`] brings
//! one to version 2.
//!
//! * [`generate`] builds every category from code that states its intent;
//!   expected answers come from the reference decoder and are cross-checked
//!   against the hand-written expectations in [`pinned`], so a bug in the
//!   reference cannot silently rewrite the vectors.
//! * [`load_dir`] reads files back, reporting the file, the case (id or
//!   index), the field and what was wrong.
//! * [`run`] puts every case through decoders and scores them per level.

pub mod generate;
pub mod pinned;
pub mod promote;
pub mod run;
pub mod utf16;

use crate::hex;
use crate::outcome::{Answer, Capabilities, Capability, StreamAnswer, StreamMode, StreamRun};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

/// The vector files this crate carries, as text: every category the
/// generator makes and the promoted regressions (`vectors/*.json`).
pub const BUNDLED: &[(&str, &str)] = &[
    (
        "beyond-max.json",
        include_str!("../../vectors/beyond-max.json"),
    ),
    (
        "boundaries.json",
        include_str!("../../vectors/boundaries.json"),
    ),
    (
        "continuations.json",
        include_str!("../../vectors/continuations.json"),
    ),
    ("encode.json", include_str!("../../vectors/encode.json")),
    (
        "interrupted.json",
        include_str!("../../vectors/interrupted.json"),
    ),
    (
        "lead-bytes.json",
        include_str!("../../vectors/lead-bytes.json"),
    ),
    ("overlong.json", include_str!("../../vectors/overlong.json")),
    (
        "replacement.json",
        include_str!("../../vectors/replacement.json"),
    ),
    (
        "rfc-examples.json",
        include_str!("../../vectors/rfc-examples.json"),
    ),
    (
        "streaming.json",
        include_str!("../../vectors/streaming.json"),
    ),
    (
        "surrogates.json",
        include_str!("../../vectors/surrogates.json"),
    ),
    (
        "truncated.json",
        include_str!("../../vectors/truncated.json"),
    ),
    ("utf16.json", include_str!("../../vectors/utf16.json")),
];

/// The vector files this crate carries, parsed: what the kit's
/// [`check`](crate::check()) runs, with no file to find on disk.
///
/// ```
/// let files = utf8conform::vectors::bundled();
/// assert!(files.iter().any(|f| f.category == "overlong"));
/// ```
pub fn bundled() -> Vec<VectorFile> {
    BUNDLED
        .iter()
        .map(|(name, text)| {
            VectorFile::parse(Path::new(name), text)
                .expect("the bundled vectors are checked by `cargo test`")
        })
        .collect()
}

/// The largest vector file read: the committed ones are under a megabyte,
/// and a runaway file must not exhaust memory.
pub const MAX_FILE: u64 = 64 << 20;

/// The version of the file format the generator writes.
pub const SCHEMA_VERSION: u32 = 2;

/// The versions [`VectorFile::parse`] reads: 1 (UTF-8 only) and 2.
pub const SCHEMA_VERSIONS: &[u32] = &[1, 2];

/// The JSON Schema (draft 2020-12) the files follow; also written as
/// `vectors/schema.json`.
pub const SCHEMA_JSON: &str = include_str!("schema.json");

/// One vector file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorFile {
    /// The format's version: [`SCHEMA_VERSION`], or 1 for a file written
    /// before UTF-16 (see [`VectorFile::upgrade`]).
    pub schema: u32,
    /// The category, also the file's name without `.json`.
    pub category: String,
    /// What the category covers and why.
    pub description: String,
    /// Where the expectations come from (RFC sections, Unicode tables).
    pub references: Vec<String>,
    /// The cases.
    pub cases: Vec<Case>,
}

/// A decode, a stream, an encode or a UTF-16 case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Case {
    /// Bytes in, outcome expected.
    Decode(DecodeCase),
    /// Bytes in chunks, each call's output expected.
    Stream(StreamCase),
    /// A number in, bytes or refusal expected.
    Encode(EncodeCase),
    /// UTF-16 code units in, UTF-8 or the first unpaired surrogate expected.
    Utf16(Utf16Case),
}

impl Case {
    /// The case's id.
    pub fn id(&self) -> &str {
        match self {
            Case::Decode(c) => &c.id,
            Case::Stream(c) => &c.id,
            Case::Encode(c) => &c.id,
            Case::Utf16(c) => &c.id,
        }
    }

    /// Whether a decoder claiming `caps` is asked this case. No
    /// [`Capability`] is UTF-16 (the audit's protocol carries UTF-8 and
    /// scalars), so a [`Case::Utf16`] runs on none: the codec's and std's
    /// UTF-16 conversions are held to those cases by `tests/vectors_utf16.rs`.
    pub fn runs_on(&self, caps: Capabilities) -> bool {
        match self {
            Case::Decode(_) => {
                caps.has(Capability::Validate)
                    || caps.has(Capability::Lossy)
                    || caps.has(Capability::Decode)
            }
            Case::Stream(c) => caps.stream_modes().any(|m| m == c.mode),
            Case::Encode(_) => caps.has(Capability::Encode),
            Case::Utf16(_) => false,
        }
    }

    /// The input as a report shows it: hex, `U+XXXX`, chunks as
    /// `e0 80 | 80`, or UTF-16 units as `utf16 d800 0041`.
    pub fn shown_input(&self) -> String {
        match self {
            Case::Decode(c) => c.bytes.clone(),
            Case::Stream(c) => format!("{} {}", c.mode.as_str(), c.run().show()),
            Case::Encode(c) => format!("U+{:04X}", c.scalar),
            Case::Utf16(c) => {
                let units: Vec<String> = c.units.iter().map(|u| format!("{u:04x}")).collect();
                format!("utf16 {}", units.join(" ")).trim_end().to_string()
            }
        }
    }

    /// What the case exercises.
    pub fn note(&self) -> &str {
        match self {
            Case::Decode(c) => &c.note,
            Case::Stream(c) => &c.note,
            Case::Encode(c) => &c.note,
            Case::Utf16(c) => &c.note,
        }
    }
}

/// A decode case: the expected outcome for `bytes`, every field of an
/// [`Answer`] (in the file, the answer's fields sit beside the id), and
/// the same outcome in UTF-16.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodeCase {
    /// Stable, unique identifier.
    pub id: String,
    /// The input, lowercase hex.
    pub bytes: String,
    /// The expected outcome: `valid` and `lossy` always, `scalars` when
    /// valid, `valid_up_to` and `error_len` when not.
    #[serde(flatten)]
    pub expected: Answer,
    /// The UTF-16 code units of `scalars` (RFC 2781 §2.1): what a strict
    /// UTF-8 → UTF-16 decoder returns. Version 2, valid input only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utf16: Option<Vec<u16>>,
    /// The UTF-16 code units of `lossy`: what a replacing UTF-8 → UTF-16
    /// decoder returns (one U+FFFD unit per maximal subpart). Version 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lossy_utf16: Option<Vec<u16>>,
    /// What the case exercises.
    pub note: String,
}

impl DecodeCase {
    /// The input bytes (the hex was checked when the case was loaded).
    pub fn input(&self) -> Vec<u8> {
        hex::decode(&self.bytes).expect("hex checked at load time")
    }

    /// Whether the input is well-formed.
    pub fn valid(&self) -> bool {
        self.expected.valid == Some(true)
    }

    /// The expected outcome.
    pub fn expected(&self) -> Answer {
        self.expected.clone()
    }

    /// The case for `bytes`, its expectation computed by the reference
    /// decoder (all of `valid`, `lossy`, and `scalars` or the error).
    pub fn from_reference(id: String, bytes: &[u8], note: String) -> DecodeCase {
        let mut case = DecodeCase {
            id,
            bytes: hex::encode(bytes),
            expected: crate::differential::expected(bytes),
            utf16: None,
            lossy_utf16: None,
            note,
        };
        case.fill_utf16();
        case
    }

    /// Sets `utf16` and `lossy_utf16` from the case's own `scalars` and
    /// `lossy` (RFC 2781 §2.1); what [`VectorFile::upgrade`] does to each
    /// decode case of a version 1 file.
    pub fn fill_utf16(&mut self) {
        self.utf16 = self.expected.scalars.as_deref().map(utf16_of);
        self.lossy_utf16 = self.expected.lossy.as_deref().map(utf16_of);
    }
}

/// The UTF-16 of a list of scalar values (checked at load time).
fn utf16_of(scalars: &[u32]) -> Vec<u16> {
    let chars: Vec<char> = scalars.iter().filter_map(|&c| char::from_u32(c)).collect();
    crate::reference::utf16::encode(&chars)
}

/// A UTF-16 case: code units in, and what a UTF-16 → UTF-8 converter must
/// give: the UTF-8 when every surrogate is paired, else the index of the
/// first unpaired one (RFC 2781 §2.2), and the lossy UTF-8 either way
/// (each unpaired surrogate one U+FFFD, as `String::from_utf16_lossy`
/// and the WHATWG Encoding Standard's UTF-16 decoder do).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Utf16Case {
    /// Stable, unique identifier.
    pub id: String,
    /// The input: UTF-16 code units.
    pub units: Vec<u16>,
    /// Whether every surrogate is paired.
    pub valid: bool,
    /// The UTF-8, lowercase hex, when valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<String>,
    /// The index (in units) of the first unpaired surrogate, when not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_index: Option<usize>,
    /// The lossy UTF-8, lowercase hex.
    pub lossy: String,
    /// What the case exercises.
    pub note: String,
}

impl Utf16Case {
    /// The case for `units`, its expectations computed by the reference
    /// ([`reference::utf16`](crate::reference::utf16), then RFC 3629's
    /// encoding of the scalars).
    pub fn from_reference(id: String, units: &[u16], note: String) -> Utf16Case {
        use crate::reference::utf16;
        let utf8 = |chars: &[char]| hex::encode(chars.iter().collect::<String>().as_bytes());
        let strict = utf16::decode(units);
        Utf16Case {
            id,
            units: units.to_vec(),
            valid: strict.is_ok(),
            bytes: strict.as_deref().ok().map(utf8),
            error_index: strict.err(),
            lossy: utf8(&utf16::decode_lossy(units)),
            note,
        }
    }

    /// The expected UTF-8 when valid, or the first unpaired surrogate's
    /// index.
    pub fn expected(&self) -> Result<Vec<u8>, usize> {
        match (&self.bytes, self.error_index) {
            (Some(b), _) => Ok(hex::decode(b).expect("hex checked at load time")),
            (None, Some(i)) => Err(i),
            (None, None) => unreachable!("checked at load time: bytes or error_index"),
        }
    }

    /// The expected lossy UTF-8.
    pub fn expected_lossy(&self) -> Vec<u8> {
        hex::decode(&self.lossy).expect("hex checked at load time")
    }
}

/// A stream case: an input fed in chunks to one decoder object, then
/// flushed, and what each call must return (the calls and, for a strict
/// stream, where it stops: [`StreamAnswer`]'s fields beside the id).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamCase {
    /// Stable, unique identifier.
    pub id: String,
    /// `strict` or `lossy`.
    pub mode: StreamMode,
    /// The chunks, lowercase hex each.
    pub chunks: Vec<String>,
    /// The expected calls (and error).
    #[serde(flatten)]
    pub expected: StreamAnswer,
    /// What the case exercises.
    pub note: String,
}

impl StreamCase {
    /// The run: the chunks as bytes, flushed.
    pub fn run(&self) -> StreamRun {
        StreamRun::new(
            self.chunks
                .iter()
                .map(|c| hex::decode(c).expect("hex checked at load time"))
                .collect(),
        )
    }
}

/// An encode case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EncodeCase {
    /// Stable, unique identifier.
    pub id: String,
    /// The number to encode.
    pub scalar: u32,
    /// The UTF-8 bytes, lowercase hex, when it is a scalar value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<String>,
    /// `surrogate` or `out-of-range`, when it must be refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the case exercises.
    pub note: String,
}

/// Something wrong with a vector file: where, and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorError {
    /// The file.
    pub file: PathBuf,
    /// The case: `case "id"` or `case #index`, if the problem is in one.
    pub case: Option<String>,
    /// The field, if the problem is in one.
    pub field: Option<String>,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for VectorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(case) = &self.case {
            write!(f, ": {case}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": field {field:?}")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VectorError {}

impl VectorFile {
    /// The file's text: pretty-printed header, one case per line, a
    /// trailing newline. Deterministic.
    pub fn to_json(&self) -> String {
        let string = |s: &str| serde_json::to_string(s).expect("strings serialise");
        let mut out = String::new();
        out.push_str("{\n");
        out.push_str(&format!("  \"schema\": {},\n", self.schema));
        out.push_str(&format!("  \"category\": {},\n", string(&self.category)));
        out.push_str(&format!(
            "  \"description\": {},\n",
            string(&self.description)
        ));
        out.push_str("  \"references\": [");
        let refs: Vec<String> = self.references.iter().map(|r| string(r)).collect();
        if !refs.is_empty() {
            out.push_str(&format!("\n    {}\n  ", refs.join(",\n    ")));
        }
        out.push_str("],\n  \"cases\": [\n");
        let cases: Vec<String> = self
            .cases
            .iter()
            .map(|c| {
                let json = match c {
                    Case::Decode(d) => serde_json::to_string(d),
                    Case::Stream(t) => serde_json::to_string(t),
                    Case::Encode(e) => serde_json::to_string(e),
                    Case::Utf16(u) => serde_json::to_string(u),
                };
                format!("    {}", json.expect("cases serialise"))
            })
            .collect();
        out.push_str(&cases.join(",\n"));
        out.push_str("\n  ]\n}\n");
        out
    }

    /// Parses and checks a file's text; `file` is only used in errors.
    pub fn parse(file: &Path, text: &str) -> Result<VectorFile, VectorError> {
        let err = |case: Option<String>, field: Option<&str>, message: String| VectorError {
            file: file.to_path_buf(),
            case,
            field: field.map(str::to_string),
            message,
        };
        let value: Value = serde_json::from_str(text).map_err(|e| {
            err(
                None,
                None,
                format!(
                    "not valid JSON at line {}, column {}: {e}",
                    e.line(),
                    e.column()
                ),
            )
        })?;
        let Value::Object(top) = value else {
            return Err(err(None, None, "the file must hold a JSON object".into()));
        };
        let field = |name: &str| {
            top.get(name)
                .ok_or_else(|| err(None, Some(name), "missing".into()))
        };
        let schema = field("schema")?
            .as_u64()
            .ok_or_else(|| err(None, Some("schema"), "must be a number".into()))?;
        let Some(&schema) = SCHEMA_VERSIONS.iter().find(|&&v| u64::from(v) == schema) else {
            return Err(err(
                None,
                Some("schema"),
                format!("version {schema} is not supported (this build reads 1 and 2)"),
            ));
        };
        let text_field = |name: &str| {
            field(name)?
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| err(None, Some(name), "must be a string".into()))
        };
        let category = text_field("category")?;
        let description = text_field("description")?;
        let references = field("references")?
            .as_array()
            .and_then(|a| a.iter().map(|r| r.as_str().map(str::to_string)).collect())
            .ok_or_else(|| {
                err(
                    None,
                    Some("references"),
                    "must be an array of strings".into(),
                )
            })?;
        let raw_cases = field("cases")?
            .as_array()
            .ok_or_else(|| err(None, Some("cases"), "must be an array".into()))?;
        let mut cases = Vec::with_capacity(raw_cases.len());
        let mut seen = std::collections::HashSet::new();
        for (index, raw) in raw_cases.iter().enumerate() {
            let id = raw.get("id").and_then(Value::as_str);
            let name = match id {
                Some(id) => format!("case {id:?} (#{index})"),
                None => format!("case #{index}"),
            };
            let case = parse_case(raw, schema)
                .map_err(|(f, m)| err(Some(name.clone()), f.as_deref(), m))?;
            if !seen.insert(case.id().to_string()) {
                return Err(err(
                    Some(name),
                    Some("id"),
                    "duplicate id in this file".into(),
                ));
            }
            cases.push(case);
        }
        Ok(VectorFile {
            schema,
            category,
            description,
            references,
            cases,
        })
    }
}

impl VectorFile {
    /// Brings a version 1 file to version 2: each decode case gains the
    /// UTF-16 of its own `scalars` and `lossy`. A version 2 file is left
    /// as it is. What `utf8conform promote` does before it adds a case to
    /// an older file.
    pub fn upgrade(&mut self) {
        if self.schema == SCHEMA_VERSION {
            return;
        }
        for case in &mut self.cases {
            if let Case::Decode(d) = case {
                d.fill_utf16();
            }
        }
        self.schema = SCHEMA_VERSION;
    }
}

/// What each field of a case may hold, checked before serde reads it: a
/// field of the wrong type is named in the error, where serde's own
/// message would not say which.
fn check_types(raw: &Value, schema: u32) -> Result<(), (Option<String>, String)> {
    let Value::Object(map) = raw else {
        return Err((None, "a case must be a JSON object".into()));
    };
    let kind = if map.contains_key("scalar") {
        "encode"
    } else if map.contains_key("chunks") {
        "stream"
    } else if map.contains_key("units") {
        "utf16"
    } else {
        "decode"
    };
    if kind == "utf16" && schema < 2 {
        return Err((
            Some("units".into()),
            "UTF-16 cases need \"schema\": 2".into(),
        ));
    }
    let known: &[&str] = match kind {
        "encode" => &["id", "scalar", "bytes", "error", "note"],
        "stream" => &["id", "mode", "chunks", "calls", "error", "note"],
        "utf16" => &[
            "id",
            "units",
            "valid",
            "bytes",
            "error_index",
            "lossy",
            "note",
        ],
        _ if schema < 2 => &[
            "id",
            "bytes",
            "valid",
            "scalars",
            "valid_up_to",
            "error_len",
            "lossy",
            "note",
        ],
        _ => &[
            "id",
            "bytes",
            "valid",
            "scalars",
            "valid_up_to",
            "error_len",
            "lossy",
            "utf16",
            "lossy_utf16",
            "note",
        ],
    };
    let numbers = |v: &Value| v.as_array().is_some_and(|a| a.iter().all(Value::is_u64));
    let units = |v: &Value| {
        v.as_array()
            .is_some_and(|a| a.iter().all(|u| u.as_u64().is_some_and(|u| u <= 0xFFFF)))
    };
    for (key, value) in map {
        if !known.contains(&key.as_str()) {
            return Err((
                Some(key.clone()),
                format!(
                    "unknown field in a {kind} case (known: {})",
                    known.join(", ")
                ),
            ));
        }
        let (ok, want) = match (kind, key.as_str()) {
            ("stream", "error") => (
                value.is_object(),
                "an object (call, valid_up_to, error_len)",
            ),
            (_, "valid") => (value.is_boolean(), "true or false"),
            (_, "units" | "utf16" | "lossy_utf16") => {
                (units(value), "a list of UTF-16 code units (0 to 65535)")
            }
            ("utf16", "lossy" | "bytes") => (value.is_string(), "a hex string"),
            (_, "scalars" | "lossy") => (numbers(value), "a list of code points (numbers)"),
            (_, "valid_up_to" | "scalar" | "error_index") => (value.is_u64(), "a number"),
            (_, "error_len") => (value.is_null() || value.is_u64(), "a number or null"),
            (_, "chunks") => (
                value
                    .as_array()
                    .is_some_and(|a| a.iter().all(Value::is_string)),
                "a list of hex strings",
            ),
            (_, "calls") => (
                value.as_array().is_some_and(|a| a.iter().all(numbers)),
                "a list of lists of code points",
            ),
            _ => (value.is_string(), "a string"),
        };
        if !ok {
            return Err((Some(key.clone()), format!("must be {want}, not {value}")));
        }
    }
    Ok(())
}

/// Parses one case of a file of version `schema`; on error, the field (if
/// known) and the message.
fn parse_case(raw: &Value, schema: u32) -> Result<Case, (Option<String>, String)> {
    check_types(raw, schema)?;
    let serde_error = |e: serde_json::Error| {
        // serde names the field in messages such as "missing field `valid`".
        let text = e.to_string();
        let field = text.split('`').nth(1).map(str::to_string);
        (field, text)
    };
    let lowercase_hex = |field: &str, text: &str| -> Result<Vec<u8>, (Option<String>, String)> {
        let bytes = hex::decode(text).map_err(|e| (Some(field.into()), e.to_string()))?;
        if text.chars().any(|c| c.is_ascii_uppercase()) {
            return Err((
                Some(field.into()),
                "must be lowercase hex without separators".into(),
            ));
        }
        Ok(bytes)
    };
    if raw.get("scalar").is_some() {
        let case: EncodeCase = serde_json::from_value(raw.clone()).map_err(serde_error)?;
        match (&case.bytes, &case.error) {
            (Some(b), None) => {
                let bytes = lowercase_hex("bytes", b)?;
                if !(1..=4).contains(&bytes.len()) {
                    return Err((Some("bytes".into()), "must be 1 to 4 bytes".into()));
                }
            }
            (None, Some(e)) if e == "surrogate" || e == "out-of-range" => {}
            (None, Some(e)) => {
                return Err((
                    Some("error".into()),
                    format!("{e:?} is not \"surrogate\" or \"out-of-range\""),
                ))
            }
            _ => return Err((None, "needs exactly one of \"bytes\" and \"error\"".into())),
        }
        return Ok(Case::Encode(case));
    }
    if raw.get("units").is_some() {
        let case: Utf16Case = serde_json::from_value(raw.clone()).map_err(serde_error)?;
        lowercase_hex("lossy", &case.lossy)?;
        match (&case.bytes, case.error_index, case.valid) {
            (Some(b), None, true) => {
                lowercase_hex("bytes", b)?;
            }
            (None, Some(i), false) => {
                let unpaired = case
                    .units
                    .get(i)
                    .is_some_and(|u| (0xD800..=0xDFFF).contains(u));
                if !unpaired {
                    return Err((
                        Some("error_index".into()),
                        format!("unit {i} of the input is not a surrogate"),
                    ));
                }
            }
            _ => {
                return Err((
                    None,
                    "needs \"bytes\" when \"valid\" is true, \"error_index\" when it is false"
                        .into(),
                ))
            }
        }
        return Ok(Case::Utf16(case));
    }
    if raw.get("chunks").is_some() {
        let case: StreamCase = serde_json::from_value(raw.clone()).map_err(serde_error)?;
        for (i, chunk) in case.chunks.iter().enumerate() {
            lowercase_hex(&format!("chunks[{i}]"), chunk)?;
        }
        let calls = case
            .expected
            .calls
            .as_ref()
            .ok_or((Some("calls".into()), "required".into()))?;
        match case.expected.error.map(|e| e.call) {
            None if calls.len() != case.chunks.len() + 1 => {
                return Err((
                    Some("calls".into()),
                    format!(
                        "{} calls for {} chunks and the flush",
                        calls.len(),
                        case.chunks.len()
                    ),
                ))
            }
            Some(call) if call + 1 != calls.len() => {
                return Err((
                    Some("error".into()),
                    format!("call {call} is not the last of the {} calls", calls.len()),
                ))
            }
            Some(_) if case.mode == StreamMode::Lossy => {
                return Err((Some("error".into()), "a lossy stream never stops".into()))
            }
            _ => {}
        }
        return Ok(Case::Stream(case));
    }
    let case: DecodeCase = serde_json::from_value(raw.clone()).map_err(serde_error)?;
    let bytes = lowercase_hex("bytes", &case.bytes)?;
    let a = &case.expected;
    let valid = a.valid.ok_or((Some("valid".into()), "required".into()))?;
    let lossy = a
        .lossy
        .as_ref()
        .ok_or((Some("lossy".into()), "required".into()))?;
    if valid {
        if a.scalars.is_none() {
            return Err((
                Some("scalars".into()),
                "required when \"valid\" is true".into(),
            ));
        }
        if a.valid_up_to.is_some() || a.error_len.is_some() {
            return Err((
                None,
                "valid_up_to and error_len are only for invalid input".into(),
            ));
        }
    } else {
        if a.scalars.is_some() {
            return Err((Some("scalars".into()), "only for valid input".into()));
        }
        let up_to = a.valid_up_to.ok_or((
            Some("valid_up_to".into()),
            "required when \"valid\" is false".into(),
        ))?;
        if up_to >= bytes.len() {
            return Err((
                Some("valid_up_to".into()),
                format!("{up_to} is not inside the {}-byte input", bytes.len()),
            ));
        }
        match a.error_len {
            None => {
                return Err((
                    Some("error_len".into()),
                    "required when \"valid\" is false (null for an incomplete end)".into(),
                ))
            }
            Some(Some(n)) if !(1..=3).contains(&n) => {
                return Err((
                    Some("error_len".into()),
                    format!("{n} is not 1, 2, 3 or null"),
                ))
            }
            _ => {}
        }
    }
    let non_scalar = |v: &[u32]| v.iter().find(|&&c| char::from_u32(c).is_none()).copied();
    for (name, list) in [
        ("scalars", a.scalars.as_deref()),
        ("lossy", Some(&lossy[..])),
    ] {
        if let Some(bad) = list.and_then(non_scalar) {
            return Err((
                Some(name.into()),
                format!("{bad} is not a Unicode scalar value"),
            ));
        }
    }
    if schema >= 2 {
        // Version 2: the UTF-16 fields are required, and are the UTF-16 of
        // the case's own scalars (a file whose two spellings of one answer
        // disagree would hold a decoder to either).
        for (name, units, scalars) in [
            ("utf16", &case.utf16, a.scalars.as_deref()),
            ("lossy_utf16", &case.lossy_utf16, Some(&lossy[..])),
        ] {
            match (units, scalars) {
                (Some(_), None) => return Err((Some(name.into()), "only for valid input".into())),
                (None, Some(_)) => {
                    return Err((Some(name.into()), "required in a version 2 file".into()))
                }
                (Some(u), Some(s)) if *u != utf16_of(s) => {
                    return Err((
                        Some(name.into()),
                        format!(
                            "is not the UTF-16 of the case's {} (RFC 2781 §2.1)",
                            if name == "utf16" { "scalars" } else { "lossy" }
                        ),
                    ))
                }
                _ => {}
            }
        }
    }
    Ok(Case::Decode(case))
}

/// Reads every `*.json` file in `dir` except `schema.json`, sorted by name.
pub fn load_dir(dir: &Path) -> Result<Vec<(PathBuf, VectorFile)>, VectorError> {
    let io_err = |path: &Path, e: std::io::Error| VectorError {
        file: path.to_path_buf(),
        case: None,
        field: None,
        message: format!("cannot read: {e}"),
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| io_err(dir, e))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| p.file_name().is_some_and(|n| n != "schema.json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let size = std::fs::metadata(&path)
                .map_err(|e| io_err(&path, e))?
                .len();
            if size > MAX_FILE {
                return Err(VectorError {
                    file: path.clone(),
                    case: None,
                    field: None,
                    message: format!(
                        "{size} bytes: larger than {} MiB, which no vector file needs",
                        MAX_FILE >> 20
                    ),
                });
            }
            let text = std::fs::read_to_string(&path).map_err(|e| io_err(&path, e))?;
            let file = VectorFile::parse(&path, &text)?;
            Ok((path, file))
        })
        .collect()
}

/// A fingerprint of a set of vector files: FNV-1a over every case's
/// category, id and input, in order. Two audits with the same digest ran
/// the same cases.
pub fn digest(files: &[VectorFile]) -> String {
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
        }
    };
    for file in files {
        for case in &file.cases {
            eat(file.category.as_bytes());
            eat(b"/");
            eat(case.id().as_bytes());
            eat(b":");
            match case {
                Case::Decode(d) => eat(d.bytes.as_bytes()),
                Case::Stream(t) => eat(t.chunks.join("|").as_bytes()),
                Case::Encode(e) => eat(&e.scalar.to_le_bytes()),
                Case::Utf16(u) => u.units.iter().for_each(|u| eat(&u.to_le_bytes())),
            }
            eat(b";");
        }
    }
    format!("{hash:016x}")
}

/// Writes `text` to `path` all or nothing: into a temporary file beside
/// it, synced, then renamed over it. A full disk leaves the old file as it
/// was (a vector file lost is every regression it held).
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let name = path
        .file_name()
        .map_or_else(|| "vectors".into(), |n| n.to_string_lossy().to_string());
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
