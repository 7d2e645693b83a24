//! The JSON-lines protocol (docs/protocol.md): message types, and a server
//! that exposes any [`Decoder`] over it.
//!
//! The same types are used by the harness's side of the conversation, so the
//! protocol is defined once.

use crate::hex;
use crate::oracles::Decoder;
use crate::outcome::{Answer, Capabilities, Capability, EncodeAnswer, EncodeError};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::io::{self, BufRead, Write};

/// The first line a decoder prints: `{"hello": {...}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HelloLine {
    /// Who is speaking.
    pub hello: Hello,
}

/// A decoder's introduction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The decoder's name.
    pub name: String,
    /// The library's version.
    pub version: String,
    /// Capability names (`strict` may stand for its four parts).
    pub capabilities: Vec<String>,
}

impl Hello {
    /// The claimed capabilities, or the first unknown name.
    pub fn parse_capabilities(&self) -> Result<Capabilities, String> {
        self.capabilities
            .iter()
            .try_fold(Capabilities::NONE, |acc, name| {
                Capabilities::parse_one(name)
                    .map(|c| acc.union(c))
                    .ok_or_else(|| format!("unknown capability {name:?}"))
            })
    }
}

/// One request, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Decode these bytes.
    Decode {
        /// The request's id, echoed back.
        id: Value,
        /// The input.
        bytes: Vec<u8>,
    },
    /// Encode this value.
    Encode {
        /// The request's id, echoed back.
        id: Value,
        /// The value (any u32: non-scalars are sent on purpose).
        scalar: u32,
    },
}

/// A request line that could not be understood: its id if one was found,
/// and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRequest {
    /// The id, if the line had one.
    pub id: Value,
    /// A person-readable reason.
    pub reason: String,
}

impl Request {
    /// Parses one line.
    pub fn parse(line: &str) -> Result<Request, BadRequest> {
        let bad = |id: &Value, reason: String| BadRequest {
            id: id.clone(),
            reason,
        };
        let value: Value =
            serde_json::from_str(line).map_err(|e| bad(&Value::Null, format!("not JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(bad(&Value::Null, "not a JSON object".into()));
        };
        let id = map
            .get("id")
            .cloned()
            .ok_or_else(|| bad(&Value::Null, "missing \"id\"".into()))?;
        match map.get("op").and_then(Value::as_str) {
            Some("decode") => {
                let text = map
                    .get("bytes")
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad(&id, "decode needs \"bytes\" as a hex string".into()))?;
                let bytes = hex::decode(text).map_err(|e| bad(&id, format!("bytes: {e}")))?;
                Ok(Request::Decode { id, bytes })
            }
            Some("encode") => {
                let scalar = map
                    .get("scalar")
                    .and_then(Value::as_u64)
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| {
                        bad(
                            &id,
                            "encode needs \"scalar\" as a number 0..=4294967295".into(),
                        )
                    })?;
                Ok(Request::Encode { id, scalar })
            }
            Some(other) => Err(bad(&id, format!("unknown op {other:?}"))),
            None => Err(bad(&id, "missing \"op\"".into())),
        }
    }
}

/// One response line. Fields a decoder cannot answer are left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    /// The id of the request answered.
    pub id: Value,
    /// Decode: whether the input was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid: Option<bool>,
    /// Decode: the code points of accepted input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scalars: Option<Vec<u32>>,
    /// Decode: bytes before the first ill-formed sequence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_up_to: Option<usize>,
    /// Decode: maximal subpart length, `null` for an incomplete tail.
    #[serde(
        default,
        deserialize_with = "present_or_null",
        skip_serializing_if = "Option::is_none"
    )]
    pub error_len: Option<Option<u8>>,
    /// Decode: the replacing decode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lossy: Option<Vec<u32>>,
    /// Encode: the bytes, hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<String>,
    /// Encode refusal reason, or a bad-request message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `"error_len": null` is an answer (incomplete input), unlike a missing
/// field: keep the two apart. Used with `#[serde(default)]`, so an absent
/// field is `None` and a present one (`null` included) is `Some`.
pub(crate) fn present_or_null<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<u8>>, D::Error> {
    Option::<u8>::deserialize(d).map(Some)
}

impl Response {
    /// The response for a decode answer.
    pub fn decoded(id: Value, answer: &Answer) -> Response {
        Response {
            id,
            valid: answer.valid,
            scalars: answer.scalars.clone(),
            valid_up_to: answer.valid_up_to,
            error_len: answer.error_len,
            lossy: answer.lossy.clone(),
            ..Response::default()
        }
    }

    /// The response for an encode answer.
    pub fn encoded(id: Value, answer: &EncodeAnswer) -> Response {
        match answer {
            EncodeAnswer::Bytes(b) => Response {
                id,
                bytes: Some(hex::encode(b)),
                ..Response::default()
            },
            EncodeAnswer::Refused(reason) => Response {
                id,
                error: Some(reason.map_or("refused", EncodeError::as_str).to_string()),
                ..Response::default()
            },
        }
    }

    /// The response to a line that could not be understood.
    pub fn bad_request(bad: BadRequest) -> Response {
        Response {
            id: bad.id,
            error: Some(format!("bad request: {}", bad.reason)),
            ..Response::default()
        }
    }

    /// The decode fields as an [`Answer`].
    pub fn to_answer(&self) -> Answer {
        Answer {
            valid: self.valid,
            scalars: self.scalars.clone(),
            valid_up_to: self.valid_up_to,
            error_len: self.error_len,
            lossy: self.lossy.clone(),
        }
    }

    /// The encode fields as an [`EncodeAnswer`], or why they are not one.
    pub fn to_encode_answer(&self) -> Result<EncodeAnswer, String> {
        match (&self.bytes, &self.error) {
            (Some(b), None) => hex::decode(b)
                .map(EncodeAnswer::Bytes)
                .map_err(|e| format!("bytes: {e}")),
            (None, Some(reason)) => match reason.as_str() {
                "surrogate" => Ok(EncodeAnswer::Refused(Some(EncodeError::Surrogate))),
                "out-of-range" => Ok(EncodeAnswer::Refused(Some(EncodeError::OutOfRange))),
                "refused" => Ok(EncodeAnswer::Refused(None)),
                other => Err(format!("error {other:?} is not an encode refusal")),
            },
            _ => Err("an encode response needs exactly one of \"bytes\" and \"error\"".into()),
        }
    }
}

/// The hello line for `decoder`.
pub fn hello(decoder: &dyn Decoder) -> HelloLine {
    HelloLine {
        hello: Hello {
            name: decoder.name().to_string(),
            version: decoder.version(),
            capabilities: decoder
                .capabilities()
                .names()
                .into_iter()
                .map(String::from)
                .collect(),
        },
    }
}

/// Answers one request line (without its newline) as `decoder` would.
pub fn respond(decoder: &dyn Decoder, line: &str) -> Response {
    match Request::parse(line) {
        Ok(Request::Decode { id, bytes }) => match decoder.decode(&bytes) {
            Ok(answer) => Response::decoded(id, &answer),
            Err(failure) => Response::bad_request(BadRequest {
                id,
                reason: failure.to_string(),
            }),
        },
        Ok(Request::Encode { id, scalar }) => {
            if !decoder.capabilities().has(Capability::Encode) {
                return Response::bad_request(BadRequest {
                    id,
                    reason: format!("{} does not encode", decoder.name()),
                });
            }
            match decoder.encode(scalar) {
                Ok(answer) => Response::encoded(id, &answer),
                Err(failure) => Response::bad_request(BadRequest {
                    id,
                    reason: failure.to_string(),
                }),
            }
        }
        Err(bad) => Response::bad_request(bad),
    }
}

/// Serves `decoder` over the protocol until `input` ends: the hello line,
/// then one response line per request line, flushed as soon as written so a
/// pipelining client never waits on a buffer.
pub fn serve(
    decoder: &dyn Decoder,
    mut input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    serde_json::to_writer(&mut output, &hello(decoder))?;
    output.write_all(b"\n")?;
    output.flush()?;
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let response = match std::str::from_utf8(&line) {
            Ok(text) => respond(decoder, text),
            Err(e) => Response::bad_request(BadRequest {
                id: Value::Null,
                reason: format!("request line is not UTF-8: {e}"),
            }),
        };
        serde_json::to_writer(&mut output, &response)?;
        output.write_all(b"\n")?;
        output.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracles::ReferenceDecoder;

    #[test]
    fn design_md_example_round_trips() {
        // DESIGN.md: → {"id": 7, "op": "decode", "bytes": "f4908080"}
        //            ← {"id": 7, "valid": false, "valid_up_to": 0, "error_len": 1,
        //               "lossy": [65533, 65533, 65533, 65533]}
        let r = respond(
            &ReferenceDecoder,
            r#"{"id": 7, "op": "decode", "bytes": "f4908080"}"#,
        );
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(
            json,
            r#"{"id":7,"valid":false,"valid_up_to":0,"error_len":1,"lossy":[65533,65533,65533,65533]}"#
        );
        let r = respond(
            &ReferenceDecoder,
            r#"{"id": 8, "op": "encode", "scalar": 55296}"#,
        );
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"id":8,"error":"surrogate"}"#
        );
    }

    #[test]
    fn null_error_len_is_an_answer_and_absent_is_not() {
        let incomplete: Response =
            serde_json::from_str(r#"{"id":1,"valid":false,"valid_up_to":0,"error_len":null}"#)
                .unwrap();
        assert_eq!(incomplete.error_len, Some(None));
        let absent: Response = serde_json::from_str(r#"{"id":1,"valid":false}"#).unwrap();
        assert_eq!(absent.error_len, None);
        // And it serialises back the same way.
        assert!(serde_json::to_string(&incomplete)
            .unwrap()
            .contains("\"error_len\":null"));
        assert!(!serde_json::to_string(&absent)
            .unwrap()
            .contains("error_len"));
    }

    #[test]
    fn bad_requests_say_what_was_wrong_and_keep_the_id() {
        for (line, id, needle) in [
            ("not json", Value::Null, "not JSON"),
            (
                r#"{"op":"decode","bytes":""}"#,
                Value::Null,
                "missing \"id\"",
            ),
            (
                r#"{"id":3,"op":"decode","bytes":"zz"}"#,
                Value::from(3),
                "not a hex digit",
            ),
            (r#"{"id":4,"op":"frob"}"#, Value::from(4), "unknown op"),
            (
                r#"{"id":5,"op":"encode","scalar":-1}"#,
                Value::from(5),
                "scalar",
            ),
        ] {
            let r = respond(&ReferenceDecoder, line);
            assert_eq!(r.id, id, "{line}");
            let error = r.error.unwrap();
            assert!(
                error.starts_with("bad request: ") && error.contains(needle),
                "{line}: {error}"
            );
        }
    }
}
