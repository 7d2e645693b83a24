//! `utf8conform serve`: any [`Decoder`] over the protocol, so the protocol
//! is tested end to end and other tools can use the built-in decoders.

use super::wire::{
    bad_request_line, parse_request, response_line, BadRequest, Hello, HelloLine, MAX_LINE,
};
use crate::decoder::{Decoder, Request};
use crate::outcome::{Capability, StreamMode};
use std::io::{self, BufRead, Write};

/// The hello line for `decoder`.
pub fn hello(decoder: &dyn Decoder) -> HelloLine {
    HelloLine {
        hello: Hello::new(decoder.name(), decoder.version(), decoder.capabilities()),
    }
}

/// What `decoder` must claim to be asked `request`, if it lacks it.
fn missing_claim(decoder: &dyn Decoder, request: &Request) -> Option<&'static str> {
    let caps = decoder.capabilities();
    let need = match request {
        Request::Decode(_) => return None,
        Request::Encode(_) => Capability::Encode,
        Request::Stream(StreamMode::Strict, _) => Capability::StreamStrict,
        Request::Stream(StreamMode::Lossy, _) => Capability::StreamLossy,
        Request::Reuse(mode, _) => {
            let stream = match mode {
                StreamMode::Strict => Capability::StreamStrict,
                StreamMode::Lossy => Capability::StreamLossy,
            };
            if !caps.has(stream) {
                return Some(stream.as_str());
            }
            Capability::Reuse
        }
    };
    (!caps.has(need)).then_some(need.as_str())
}

/// Answers one request line (without its newline) as `decoder` would: the
/// response line, newline included.
pub fn respond(decoder: &dyn Decoder, line: &str) -> String {
    let (id, request) = match parse_request(line) {
        Ok(parsed) => parsed,
        Err(bad) => return bad_request_line(&bad),
    };
    if let Some(claim) = missing_claim(decoder, &request) {
        return bad_request_line(&BadRequest {
            id: Some(id),
            reason: format!("{} does not claim {claim}", decoder.name()),
        });
    }
    match decoder.ask(std::slice::from_ref(&request)).pop() {
        Some(Ok(reply)) => response_line(&id, &reply),
        Some(Err(failure)) => bad_request_line(&BadRequest {
            id: Some(id),
            reason: failure.to_string(),
        }),
        None => bad_request_line(&BadRequest {
            id: Some(id),
            reason: "no answer".into(),
        }),
    }
}

/// Serves `decoder` over the protocol until `input` ends: the hello line,
/// then one response line per request line, flushed as soon as written so
/// a pipelining client never waits on a buffer. A line longer than
/// [`MAX_LINE`] is answered as a bad request and skipped without being held
/// in memory.
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
        let (read, complete) = read_line_capped(&mut input, &mut line, MAX_LINE)?;
        if read == 0 {
            return Ok(());
        }
        if !complete {
            skip_line(&mut input)?;
            output.write_all(
                bad_request_line(&BadRequest {
                    id: None,
                    reason: format!("line longer than {MAX_LINE} bytes"),
                })
                .as_bytes(),
            )?;
            output.flush()?;
            continue;
        }
        while matches!(line.last(), Some(b'\n' | b'\r')) {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let response = match std::str::from_utf8(&line) {
            Ok(text) => respond(decoder, text),
            Err(e) => bad_request_line(&BadRequest {
                id: None,
                reason: format!("request line is not UTF-8: {e}"),
            }),
        };
        output.write_all(response.as_bytes())?;
        output.flush()?;
    }
}

/// Reads one line into `buf`, up to `cap` bytes. Returns the bytes read
/// (0 at the end of input) and whether the line fitted; a line that does
/// not fit is left unread past the cap ([`skip_line`] drops the rest), so
/// that a line with no end costs `cap` bytes of memory and no more waiting.
pub fn read_line_capped(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<(usize, bool)> {
    let mut read = 0;
    let fitted = line_pieces(input, |piece| {
        if buf.len() + piece.len() > cap {
            return false;
        }
        buf.extend_from_slice(piece);
        read += piece.len();
        true
    })?;
    if fitted {
        Ok((read, true))
    } else {
        buf.clear();
        Ok((read.max(1), false))
    }
}

/// Reads and drops the rest of a line (through its newline, or to the end
/// of input), holding none of it.
pub fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    line_pieces(input, |_| true).map(drop)
}

/// Hands `take` the next line piece by piece, as the reader buffers it,
/// through its newline or to the end of input. A piece `take` refuses
/// (returns false for) is left unread and the walk stops: the result is
/// then false, else true.
fn line_pieces(input: &mut impl BufRead, mut take: impl FnMut(&[u8]) -> bool) -> io::Result<bool> {
    loop {
        let available = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(true);
        }
        let (len, ends) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (available.len(), false),
        };
        if !take(&available[..len]) {
            return Ok(false);
        }
        input.consume(len);
        if ends {
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoders::ReferenceDecoder;

    #[test]
    fn design_md_example_round_trips() {
        // docs/protocol.md: → {"id": 7, "op": "decode", "bytes": "f4908080"}
        let r = respond(
            &ReferenceDecoder,
            r#"{"id": 7, "op": "decode", "bytes": "f4908080"}"#,
        );
        assert_eq!(
            r,
            "{\"id\":7,\"valid\":false,\"valid_up_to\":0,\"error_len\":1,\"lossy\":[65533,65533,65533,65533]}\n"
        );
        let r = respond(
            &ReferenceDecoder,
            r#"{"id": 8, "op": "encode", "scalar": 55296}"#,
        );
        assert_eq!(r, "{\"id\":8,\"error\":\"surrogate\"}\n");
    }

    #[test]
    fn protocol_md_stream_examples_round_trip() {
        // Written by hand in docs/protocol.md from the WHATWG rule.
        for (request, response) in [
            (
                r#"{"id": 3, "op": "stream", "mode": "lossy", "chunks": ["e080", "80"]}"#,
                r#"{"id":3,"calls":[[65533,65533],[65533],[]]}"#,
            ),
            (
                r#"{"id": 4, "op": "stream", "mode": "lossy", "chunks": ["f09f92", "a9"]}"#,
                r#"{"id":4,"calls":[[],[128169],[]]}"#,
            ),
            (
                r#"{"id": 6, "op": "stream", "mode": "strict", "chunks": ["41f0", "9f", "41"]}"#,
                r#"{"id":6,"calls":[[65],[],[]],"error":{"call":2,"valid_up_to":1,"error_len":2}}"#,
            ),
            (
                r#"{"id": 7, "op": "stream", "mode": "strict", "chunks": ["41e282"]}"#,
                r#"{"id":7,"calls":[[65],[]],"error":{"call":1,"valid_up_to":1,"error_len":null}}"#,
            ),
            (
                r#"{"id": 9, "op": "reuse", "mode": "strict", "inputs": [{"chunks": ["ff"]}, {"chunks": ["41"]}]}"#,
                r#"{"id":9,"runs":[{"calls":[[]],"error":{"call":0,"valid_up_to":0,"error_len":1}},{"calls":[[65],[]]}]}"#,
            ),
            (
                r#"{"id": 10, "op": "reuse", "mode": "lossy", "inputs": [{"chunks": ["f09f"], "flush": false}, {"chunks": ["98", "80"]}]}"#,
                r#"{"id":10,"runs":[{"calls":[[]]},{"calls":[[],[128512],[]]}]}"#,
            ),
        ] {
            assert_eq!(
                respond(&ReferenceDecoder, request).trim_end(),
                response,
                "{request}"
            );
        }
    }

    #[test]
    fn bad_requests_say_what_was_wrong_and_keep_the_id() {
        for (line, id, needle) in [
            ("not json", "null", "not JSON"),
            (r#"{"op":"decode","bytes":""}"#, "null", "missing \"id\""),
            (
                r#"{"id":3,"op":"decode","bytes":"zz"}"#,
                "3",
                "not a hex digit",
            ),
            (r#"{"id":4,"op":"frob"}"#, "4", "unknown op"),
            (r#"{"id":5,"op":"encode","scalar":-1}"#, "5", "scalar"),
            (
                r#"{"id":6,"op":"stream","mode":"both","chunks":[]}"#,
                "6",
                "\"mode\"",
            ),
            (
                r#"{"id":7,"op":"stream","mode":"lossy","chunks":["4"]}"#,
                "7",
                "chunk 0",
            ),
            (r#"{"id":8,"op":"reuse","mode":"lossy"}"#, "8", "\"inputs\""),
        ] {
            let r = respond(&ReferenceDecoder, line);
            let v: serde_json::Value = serde_json::from_str(&r).unwrap();
            assert_eq!(v["id"].to_string(), id, "{line}");
            let error = v["error"].as_str().unwrap();
            assert!(
                error.starts_with("bad request: ") && error.contains(needle),
                "{line}: {error}"
            );
        }
    }

    #[test]
    fn a_line_past_the_cap_is_refused_without_being_kept() {
        let long = format!(
            "{{\"id\":1,\"op\":\"decode\",\"bytes\":\"{}\"}}\n",
            "41".repeat(64)
        );
        let input = format!("{long}{{\"id\":2,\"op\":\"decode\",\"bytes\":\"41\"}}\n");
        let mut reader = io::BufReader::with_capacity(16, input.as_bytes());
        let mut buf = Vec::new();
        let (_, fits) = read_line_capped(&mut reader, &mut buf, 100).unwrap();
        assert!(!fits && buf.is_empty());
        skip_line(&mut reader).unwrap();
        let (_, fits) = read_line_capped(&mut reader, &mut buf, 100).unwrap();
        assert!(fits && buf.starts_with(b"{\"id\":2"));
        // Through serve: the long line is a bad request, the next answered.
        let lines = format!(
            "{{\"id\":1,\"op\":\"decode\",\"bytes\":\"{}\"}}\n{{\"id\":2,\"op\":\"decode\",\"bytes\":\"41\"}}\n",
            "41".repeat(MAX_LINE)
        );
        let mut out = Vec::new();
        serve(
            &ReferenceDecoder,
            io::BufReader::new(lines.as_bytes()),
            &mut out,
        )
        .unwrap();
        let answers: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
        assert!(answers[1].contains("line longer than"), "{}", answers[1]);
        assert!(
            answers[2].starts_with("{\"id\":2,\"valid\":true"),
            "{}",
            answers[2]
        );
    }
}
