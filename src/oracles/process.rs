//! A decoder in another process, spoken to over the JSON-lines protocol
//! (docs/protocol.md).
//!
//! Requests are pipelined: a batch is handed to a writer thread all at once
//! while a reader thread turns the adapter's stdout into a channel of lines,
//! so neither side waits on the other's pipe buffer and a JVM or Node adapter
//! is not held to one round trip per input.
//!
//! Responses must come back in order, one per request. When the adapter
//! crashes (its stdout closes), hangs (no line within the timeout), prints a
//! line that is not a valid response, or answers with the wrong id, the
//! failure is recorded against the first unanswered request, the adapter is
//! killed and restarted, and the rest of the batch is sent again. Answers
//! already received are kept; each request is tried once, so an input that
//! always kills the adapter cannot stall the run.

use super::{Decoder, Kind};
use crate::hex;
use crate::outcome::{Answer, Capabilities, EncodeAnswer, Failure, FailureKind};
use crate::protocol::{HelloLine, Response};
use serde_json::json;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

/// How to start an external decoder.
#[derive(Clone, Debug)]
pub struct ProcessSpec {
    /// The decoder's name in reports.
    pub name: String,
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// The working directory (the repository root, for adapters).
    pub cwd: PathBuf,
    /// How long to wait for any one response.
    pub timeout: Duration,
    /// How long to wait for the hello line (a JVM starts slowly).
    pub hello_timeout: Duration,
}

impl ProcessSpec {
    /// A spec with the default timeouts: 5 s per request, 30 s for hello.
    pub fn new(name: impl Into<String>, argv: Vec<String>, cwd: impl Into<PathBuf>) -> ProcessSpec {
        ProcessSpec {
            name: name.into(),
            argv,
            cwd: cwd.into(),
            timeout: Duration::from_secs(5),
            hello_timeout: Duration::from_secs(30),
        }
    }
}

/// One running instance of the adapter.
struct Session {
    child: Child,
    to_writer: Option<Sender<String>>,
    lines: Receiver<String>,
}

impl Session {
    fn start(
        spec: &ProcessSpec,
        stderr_tail: &Arc<Mutex<VecDeque<String>>>,
    ) -> Result<(Session, HelloLine), String> {
        let (program, args) = spec
            .argv
            .split_first()
            .ok_or_else(|| "empty command".to_string())?;
        let mut child = Command::new(program)
            .args(args)
            .current_dir(&spec.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", spec.argv.join(" ")))?;
        let mut stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let stderr = child.stderr.take().expect("stderr was piped");

        let (to_writer, requests) = mpsc::channel::<String>();
        thread::spawn(move || {
            for line in requests {
                // A write error means the adapter is gone; the reader sees
                // the closed stdout and the harness records the crash.
                if stdin.write_all(line.as_bytes()).is_err() || stdin.flush().is_err() {
                    break;
                }
            }
        });
        let (to_harness, lines) = mpsc::channel::<String>();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if to_harness.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let tail = Arc::clone(stderr_tail);
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut tail = tail.lock().expect("no panic while locked");
                if tail.len() == 20 {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        });
        let mut session = Session {
            child,
            to_writer: Some(to_writer),
            lines,
        };
        let hello = match session.lines.recv_timeout(spec.hello_timeout) {
            Ok(line) => serde_json::from_str::<HelloLine>(&line)
                .map_err(|e| format!("first line is not a hello ({e}): {}", clip(&line))),
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "no hello within {} s",
                spec.hello_timeout.as_secs_f64()
            )),
            Err(RecvTimeoutError::Disconnected) => Err("exited before saying hello".to_string()),
        };
        match hello {
            Ok(h) => Ok((session, h)),
            Err(e) => {
                session.kill();
                Err(e)
            }
        }
    }

    fn kill(&mut self) {
        self.to_writer = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Closing stdin asks a well-behaved adapter to exit; kill the rest.
        self.to_writer = None;
        if matches!(self.child.try_wait(), Ok(None)) {
            thread::sleep(Duration::from_millis(20));
            if matches!(self.child.try_wait(), Ok(None)) {
                let _ = self.child.kill();
            }
        }
        let _ = self.child.wait();
    }
}

fn clip(line: &str) -> String {
    if line.chars().count() > 120 {
        format!("{}…", line.chars().take(120).collect::<String>())
    } else {
        line.to_string()
    }
}

/// An external decoder.
pub struct ProcessDecoder {
    spec: ProcessSpec,
    version: String,
    capabilities: Capabilities,
    session: Mutex<Option<Session>>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    restarts: Mutex<u32>,
}

/// One request line and how to read its answer.
enum Op {
    Decode,
    Encode,
}

impl ProcessDecoder {
    /// Starts the adapter and reads its hello. Fails (with a one-line
    /// reason) if it cannot be started, says no hello, or claims an unknown
    /// capability.
    pub fn start(spec: ProcessSpec) -> Result<ProcessDecoder, String> {
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let (session, hello) = Session::start(&spec, &stderr_tail)?;
        let capabilities = hello.hello.parse_capabilities()?;
        Ok(ProcessDecoder {
            version: hello.hello.version,
            capabilities,
            session: Mutex::new(Some(session)),
            stderr_tail,
            restarts: Mutex::new(0),
            spec,
        })
    }

    /// The last lines the adapter wrote to stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.stderr_tail
            .lock()
            .expect("no panic while locked")
            .iter()
            .cloned()
            .collect()
    }

    /// Sends every request (pipelined) and returns one result per request,
    /// in order; see the module documentation for failure handling.
    fn exchange(&self, requests: &[(Op, String)]) -> Vec<Result<Response, Failure>> {
        let mut results: Vec<Result<Response, Failure>> = Vec::with_capacity(requests.len());
        let mut guard = self.session.lock().expect("no panic while locked");
        let mut next = 0;
        // Request ids are positions in this batch.
        while next < requests.len() {
            if guard.is_none() {
                match Session::start(&self.spec, &self.stderr_tail) {
                    Ok((s, _)) => {
                        *guard = Some(s);
                        *self.restarts.lock().expect("no panic while locked") += 1;
                    }
                    Err(e) => {
                        // It will not come back: every remaining request fails.
                        while results.len() < requests.len() {
                            results.push(Err(Failure {
                                kind: FailureKind::Crash,
                                detail: format!("could not restart: {e}"),
                            }));
                        }
                        return results;
                    }
                }
            }
            let session = guard.as_mut().expect("started above");
            let writer = session
                .to_writer
                .as_ref()
                .expect("a live session has a writer");
            for (id, (_, line)) in requests.iter().enumerate().skip(next) {
                let _ = writer.send(format!("{{\"id\":{id},{line}}}\n"));
            }
            while next < requests.len() {
                match self.read_one(session, next, &requests[next].0) {
                    Ok(response) => {
                        results.push(Ok(response));
                        next += 1;
                    }
                    Err(failure) => {
                        results.push(Err(failure));
                        next += 1;
                        session.kill();
                        *guard = None;
                        break;
                    }
                }
            }
        }
        results
    }

    fn read_one(&self, session: &mut Session, id: usize, op: &Op) -> Result<Response, Failure> {
        let fail = |kind, detail: String| Failure { kind, detail };
        let line = match session.lines.recv_timeout(self.spec.timeout) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                return Err(fail(
                    FailureKind::Timeout,
                    format!("no answer within {} s", self.spec.timeout.as_secs_f64()),
                ))
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = session
                    .child
                    .wait()
                    .map(|s| s.to_string())
                    .unwrap_or_else(|e| e.to_string());
                let stderr = self.stderr_tail().last().cloned().unwrap_or_default();
                return Err(fail(
                    FailureKind::Crash,
                    format!("exited ({status}) {}", clip(&stderr))
                        .trim_end()
                        .to_string(),
                ));
            }
        };
        let response: Response = serde_json::from_str(&line).map_err(|e| {
            fail(
                FailureKind::ProtocolError,
                format!("not a response ({e}): {}", clip(&line)),
            )
        })?;
        if response.id != json!(id) {
            return Err(fail(
                FailureKind::ProtocolError,
                format!("answered id {} where {id} was due", response.id),
            ));
        }
        if let Some(error) = &response.error {
            let refusal = matches!(op, Op::Encode) && response.to_encode_answer().is_ok();
            if !refusal {
                return Err(fail(
                    FailureKind::ProtocolError,
                    format!("error: {}", clip(error)),
                ));
            }
        }
        Ok(response)
    }
}

impl Decoder for ProcessDecoder {
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn version(&self) -> String {
        self.version.clone()
    }
    fn capabilities(&self) -> Capabilities {
        self.capabilities
    }
    fn kind(&self) -> Kind {
        Kind::External
    }
    fn restarts(&self) -> u32 {
        *self.restarts.lock().expect("no panic while locked")
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        self.decode_batch(&[bytes])
            .pop()
            .expect("one result per input")
    }
    fn decode_batch(&self, inputs: &[&[u8]]) -> Vec<Result<Answer, Failure>> {
        let requests: Vec<(Op, String)> = inputs
            .iter()
            .map(|b| {
                (
                    Op::Decode,
                    format!("\"op\":\"decode\",\"bytes\":\"{}\"", hex::encode(b)),
                )
            })
            .collect();
        self.exchange(&requests)
            .into_iter()
            .map(|r| r.map(|response| response.to_answer()))
            .collect()
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        let request = (Op::Encode, format!("\"op\":\"encode\",\"scalar\":{scalar}"));
        let response = self
            .exchange(&[request])
            .pop()
            .expect("one result per request")?;
        response.to_encode_answer().map_err(|detail| Failure {
            kind: FailureKind::ProtocolError,
            detail,
        })
    }
}
