//! The protocol's lines, both ways: what a request and each kind of
//! response look like, written and read. Both the harness's client
//! ([`crate::decoders::process`]) and the server ([`super::serve`](mod@super::serve)) use
//! these, so the protocol is spelled once.

use crate::decoder::{Reply, Request};
use crate::hex;
use crate::outcome::{
    Answer, Capabilities, Capability, EncodeAnswer, EncodeError, StreamAnswer, StreamMode,
    StreamRun,
};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The protocol versions the harness speaks.
pub const PROTOCOLS: [u32; 2] = [1, 2];

/// The longest line either side accepts: a 64 KiB input's lossy answer is
/// well under a megabyte, and a line with no end must not eat memory.
pub const MAX_LINE: usize = 16 << 20;

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
    /// The protocol version it speaks; absent means 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<u32>,
    /// Capability names (`strict` and `stream` stand for their parts).
    pub capabilities: Vec<String>,
    /// The longest input, in bytes, the library's API can be given (none
    /// when it has no such limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_input: Option<u64>,
}

impl Hello {
    /// The hello for a decoder claiming `caps`: protocol 2 when it claims
    /// anything protocol 1 does not know.
    pub fn new(name: &str, version: String, caps: Capabilities) -> Hello {
        let v2 = caps.iter().any(Capability::needs_protocol_2);
        Hello {
            name: name.to_string(),
            version,
            protocol: v2.then_some(2),
            capabilities: caps.names().into_iter().map(String::from).collect(),
            max_input: None,
        }
    }

    /// The claimed capabilities, or why the hello cannot be accepted: a
    /// protocol version the harness does not speak, a capability name it
    /// does not know, or a protocol 2 capability in a protocol 1 hello.
    pub fn parse_capabilities(&self) -> Result<Capabilities, String> {
        let protocol = self.protocol.unwrap_or(1);
        if !PROTOCOLS.contains(&protocol) {
            return Err(format!(
                "hello says protocol {protocol}; this harness speaks {}",
                PROTOCOLS.map(|p| p.to_string()).join(" and ")
            ));
        }
        let mut caps = Capabilities::NONE;
        for name in &self.capabilities {
            let parsed = Capabilities::parse_one(name).ok_or_else(|| {
                format!(
                    "hello claims unknown capability {name:?} (known: strict, stream, {})",
                    Capability::ALL.map(Capability::as_str).join(", ")
                )
            })?;
            if protocol < 2 && parsed.iter().any(Capability::needs_protocol_2) {
                return Err(format!(
                    "hello claims {name:?}, which needs \"protocol\": 2 in the hello"
                ));
            }
            caps = caps.union(parsed);
        }
        Ok(caps)
    }
}

/// A request line that could not be understood: its id if one was found,
/// and what was wrong.
#[derive(Clone, Debug)]
pub struct BadRequest {
    /// The id, verbatim, if the line had one.
    pub id: Option<Box<RawValue>>,
    /// A person-readable reason.
    pub reason: String,
}

/// A request line: `{"id":…,"op":…}` with the request's fields.
pub fn request_line(id: u64, request: &Request) -> String {
    let mut line = format!("{{\"id\":{id},");
    match request {
        Request::Decode(bytes) => {
            line.push_str(&format!(
                "\"op\":\"decode\",\"bytes\":\"{}\"",
                hex::encode(bytes)
            ));
        }
        Request::Encode(scalar) => line.push_str(&format!("\"op\":\"encode\",\"scalar\":{scalar}")),
        Request::Stream(mode, run) => {
            line.push_str(&format!(
                "\"op\":\"stream\",\"mode\":\"{}\",",
                mode.as_str()
            ));
            push_run(&mut line, run);
        }
        Request::Reuse(mode, runs) => {
            line.push_str(&format!(
                "\"op\":\"reuse\",\"mode\":\"{}\",\"inputs\":[",
                mode.as_str()
            ));
            for (i, run) in runs.iter().enumerate() {
                if i > 0 {
                    line.push(',');
                }
                line.push('{');
                push_run(&mut line, run);
                line.push('}');
            }
            line.push(']');
        }
    }
    line.push_str("}\n");
    line
}

fn push_run(line: &mut String, run: &StreamRun) {
    line.push_str("\"chunks\":[");
    for (i, chunk) in run.chunks.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        line.push('"');
        line.push_str(&hex::encode(chunk));
        line.push('"');
    }
    line.push(']');
    if !run.flush {
        line.push_str(",\"flush\":false");
    }
}

/// Parses a request line (the server's side): the id, verbatim, and the
/// request, or what was wrong.
pub fn parse_request(line: &str) -> Result<(Box<RawValue>, Request), BadRequest> {
    let bad = |id: Option<&RawValue>, reason: String| BadRequest {
        id: id.map(|r| r.to_owned()),
        reason,
    };
    let map: Map<String, Value> = match serde_json::from_str::<Value>(line) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err(bad(None, "not a JSON object".into())),
        Err(e) => return Err(bad(None, format!("not JSON: {e}"))),
    };
    // The id again, as raw text: a number the client sent must come back
    // digit for digit, whatever its size.
    #[derive(Deserialize)]
    struct Id<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
    }
    let id = serde_json::from_str::<Id>(line)
        .ok()
        .and_then(|i| i.id)
        .ok_or_else(|| bad(None, "missing \"id\"".into()))?;
    let field = |name: &str| map.get(name);
    let hex_of = |value: Option<&Value>, what: &str| -> Result<Vec<u8>, BadRequest> {
        let text = value
            .and_then(Value::as_str)
            .ok_or_else(|| bad(Some(id), format!("{what} must be a hex string")))?;
        hex::decode(text).map_err(|e| bad(Some(id), format!("{what}: {e}")))
    };
    let mode = || -> Result<StreamMode, BadRequest> {
        match field("mode").and_then(Value::as_str) {
            Some("strict") => Ok(StreamMode::Strict),
            Some("lossy") => Ok(StreamMode::Lossy),
            _ => Err(bad(
                Some(id),
                "\"mode\" must be \"strict\" or \"lossy\"".into(),
            )),
        }
    };
    let run_of = |value: &Value, what: &str| -> Result<StreamRun, BadRequest> {
        let chunks = value
            .get("chunks")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                bad(
                    Some(id),
                    format!("{what}: \"chunks\" must be a list of hex strings"),
                )
            })?
            .iter()
            .enumerate()
            .map(|(i, c)| hex_of(Some(c), &format!("{what}: chunk {i}")))
            .collect::<Result<Vec<_>, _>>()?;
        let flush = match value.get("flush") {
            None => true,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                return Err(bad(
                    Some(id),
                    format!("{what}: \"flush\" must be true or false"),
                ))
            }
        };
        Ok(StreamRun { chunks, flush })
    };
    let request = match field("op").and_then(Value::as_str) {
        Some("decode") => Request::Decode(hex_of(field("bytes"), "bytes")?),
        Some("encode") => Request::Encode(
            field("scalar")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    bad(
                        Some(id),
                        "encode needs \"scalar\" as a number 0..=4294967295".into(),
                    )
                })?,
        ),
        Some("stream") => Request::Stream(mode()?, run_of(&Value::Object(map.clone()), "stream")?),
        Some("reuse") => {
            let inputs = field("inputs")
                .and_then(Value::as_array)
                .ok_or_else(|| bad(Some(id), "reuse needs \"inputs\", a list of runs".into()))?;
            let runs = inputs
                .iter()
                .enumerate()
                .map(|(i, v)| run_of(v, &format!("input {i}")))
                .collect::<Result<Vec<_>, _>>()?;
            Request::Reuse(mode()?, runs)
        }
        Some(other) => return Err(bad(Some(id), format!("unknown op {other:?}"))),
        None => return Err(bad(Some(id), "missing \"op\"".into())),
    };
    Ok((id.to_owned(), request))
}

/// A response line for `reply`, with the request's id verbatim.
pub fn response_line(id: &RawValue, reply: &Reply) -> String {
    let body = match reply {
        Reply::Decoded(answer) => fields(answer),
        Reply::Encoded(EncodeAnswer::Bytes(b)) => format!("\"bytes\":\"{}\"", hex::encode(b)),
        Reply::Encoded(EncodeAnswer::Refused(reason)) => format!(
            "\"error\":\"{}\"",
            reason.map_or("refused", EncodeError::as_str)
        ),
        Reply::Streamed(answer) => fields(answer),
        Reply::Reused(answers) => format!(
            "\"runs\":{}",
            serde_json::to_string(answers).expect("answers serialise")
        ),
    };
    join(id.get(), &body)
}

/// The response to a line that could not be understood.
pub fn bad_request_line(bad: &BadRequest) -> String {
    let reason = serde_json::to_string(&format!("bad request: {}", bad.reason))
        .expect("a string serialises");
    join(
        bad.id.as_deref().map_or("null", RawValue::get),
        &format!("\"error\":{reason}"),
    )
}

/// A struct's JSON fields without the braces.
fn fields<T: Serialize>(value: &T) -> String {
    let json = serde_json::to_string(value).expect("outcomes serialise");
    json[1..json.len() - 1].to_string()
}

fn join(id: &str, body: &str) -> String {
    if body.is_empty() {
        format!("{{\"id\":{id}}}\n")
    } else {
        format!("{{\"id\":{id},{body}}}\n")
    }
}

/// Reads a response line (the harness's side) as the reply to `request`,
/// checking its id and its shape: a reply the request cannot have (the
/// wrong number of calls, a field of the wrong type, an `error` that is
/// not an encode refusal) is a protocol error, described.
pub fn parse_response(line: &str, id: u64, request: &Request) -> Result<Reply, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    let Value::Object(mut map) = value else {
        return Err("not a JSON object".into());
    };
    let got_id = map.remove("id").unwrap_or(Value::Null);
    if got_id != id {
        return Err(format!("answered id {got_id} where {id} was due"));
    }
    let error = map.get("error").cloned();
    let object = Value::Object(map);
    let typed = |what: &str| format!("a {what} response with a field of the wrong type");
    match request {
        Request::Encode(_) => match (object.get("bytes"), error) {
            (Some(Value::String(b)), None) => hex::decode(b)
                .map(|b| Reply::Encoded(EncodeAnswer::Bytes(b)))
                .map_err(|e| format!("bytes: {e}")),
            (None, Some(Value::String(reason))) => match reason.as_str() {
                "surrogate" => Ok(Reply::Encoded(EncodeAnswer::Refused(Some(
                    EncodeError::Surrogate,
                )))),
                "out-of-range" => Ok(Reply::Encoded(EncodeAnswer::Refused(Some(
                    EncodeError::OutOfRange,
                )))),
                "refused" => Ok(Reply::Encoded(EncodeAnswer::Refused(None))),
                other => Err(format!("error: {other}")),
            },
            _ => Err("an encode response needs exactly one of \"bytes\" and \"error\"".into()),
        },
        _ if matches!(error, Some(Value::String(_))) => Err(format!(
            "error: {}",
            error
                .and_then(|e| e.as_str().map(String::from))
                .unwrap_or_default()
        )),
        Request::Decode(_) => serde_json::from_value::<Answer>(object)
            .map(Reply::Decoded)
            .map_err(|e| format!("{} ({e})", typed("decode"))),
        Request::Stream(_, run) => {
            let answer = serde_json::from_value::<StreamAnswer>(object)
                .map_err(|e| format!("{} ({e})", typed("stream")))?;
            check_calls(&answer, run)?;
            Ok(Reply::Streamed(answer))
        }
        Request::Reuse(_, runs) => {
            let answers = object
                .get("runs")
                .cloned()
                .ok_or("a reuse response needs \"runs\"")
                .and_then(|r| {
                    serde_json::from_value::<Vec<StreamAnswer>>(r)
                        .map_err(|_| "\"runs\" must be a list of stream answers")
                })?;
            if answers.len() != runs.len() {
                return Err(format!(
                    "{} runs answered for {} inputs",
                    answers.len(),
                    runs.len()
                ));
            }
            for (i, (answer, run)) in answers.iter().zip(runs).enumerate() {
                check_calls(answer, run).map_err(|e| format!("input {i}: {e}"))?;
            }
            Ok(Reply::Reused(answers))
        }
    }
}

/// A stream answer's shape against its run: a call per chunk and the
/// flush, or fewer only when an `error` names the last call made.
pub fn check_calls(answer: &StreamAnswer, run: &StreamRun) -> Result<(), String> {
    let Some(calls) = &answer.calls else {
        return match (answer.valid, answer.error) {
            (Some(_), _) | (None, Some(_)) => Ok(()),
            (None, None) => {
                Err("a stream answer needs \"calls\" (or \"valid\" from a validator)".into())
            }
        };
    };
    let want = run.calls();
    match answer.error {
        None if calls.len() == want => Ok(()),
        None => Err(format!(
            "{} calls answered for {} chunks{} with no error",
            calls.len(),
            run.chunks.len(),
            if run.flush { " and the flush" } else { "" }
        )),
        Some(e) if e.call + 1 == calls.len() && e.call < want => Ok(()),
        Some(e) => Err(format!(
            "the error is in call {} but {} calls were answered (of {want})",
            e.call,
            calls.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::StreamError;

    #[test]
    fn a_request_round_trips_through_its_line() {
        let run = StreamRun {
            chunks: vec![vec![0xF0, 0x9F], vec![], vec![0x98, 0x80]],
            flush: false,
        };
        for request in [
            Request::Decode(vec![0xC0, 0xAF]),
            Request::Encode(0xD800),
            Request::Stream(StreamMode::Lossy, run.clone()),
            Request::Reuse(
                StreamMode::Strict,
                vec![run, StreamRun::new(vec![vec![0x41]])],
            ),
        ] {
            let line = request_line(7, &request);
            let (id, parsed) = parse_request(line.trim_end()).unwrap();
            assert_eq!((id.get(), &parsed), ("7", &request), "{line}");
        }
    }

    #[test]
    fn ids_come_back_digit_for_digit() {
        let (id, _) =
            parse_request(r#"{"id": 12345678901234567890123, "op": "decode", "bytes": ""}"#)
                .unwrap();
        let line = response_line(&id, &Reply::Decoded(Answer::default()));
        assert_eq!(line, "{\"id\":12345678901234567890123}\n");
        let bad = parse_request(r#"{"id": "x", "op": "frob"}"#).unwrap_err();
        assert_eq!(
            bad_request_line(&bad),
            "{\"id\":\"x\",\"error\":\"bad request: unknown op \\\"frob\\\"\"}\n"
        );
    }

    #[test]
    fn a_stream_answer_with_the_wrong_number_of_calls_is_refused() {
        let run = StreamRun::new(vec![vec![0x41], vec![0x42]]);
        let request = Request::Stream(StreamMode::Lossy, run.clone());
        assert!(parse_response(r#"{"id":0,"calls":[[65],[66],[]]}"#, 0, &request).is_ok());
        let e = parse_response(r#"{"id":0,"calls":[[65],[66]]}"#, 0, &request).unwrap_err();
        assert!(
            e.contains("2 calls answered for 2 chunks and the flush"),
            "{e}"
        );
        // Fewer calls with an error in the last one made: a strict stop.
        let stopped = StreamAnswer {
            calls: Some(vec![vec![]]),
            error: Some(StreamError {
                call: 0,
                valid_up_to: None,
                error_len: None,
            }),
            valid: None,
        };
        assert!(check_calls(&stopped, &run).is_ok());
        let e = parse_response(r#"{"id":1,"calls":[]}"#, 0, &request).unwrap_err();
        assert!(e.contains("answered id 1 where 0"), "{e}");
    }

    #[test]
    fn hello_refuses_what_it_does_not_know() {
        let hello = |protocol: Option<u32>, caps: &[&str]| Hello {
            name: "x".into(),
            version: "1".into(),
            protocol,
            capabilities: caps.iter().map(|c| c.to_string()).collect(),
            max_input: None,
        };
        assert!(hello(None, &["strict", "lossy"])
            .parse_capabilities()
            .is_ok());
        let e = hello(None, &["stream"]).parse_capabilities().unwrap_err();
        assert!(e.contains("needs \"protocol\": 2"), "{e}");
        assert!(hello(Some(2), &["stream", "reuse"])
            .parse_capabilities()
            .is_ok());
        let e = hello(Some(2), &["streaming"])
            .parse_capabilities()
            .unwrap_err();
        assert!(e.contains("unknown capability \"streaming\""), "{e}");
        let e = hello(Some(3), &[]).parse_capabilities().unwrap_err();
        assert!(e.contains("protocol 3"), "{e}");
    }
}
