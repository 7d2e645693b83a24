//! A decoder in another process, spoken to over the JSON-lines protocol
//! (docs/protocol.md).
//!
//! **Pipelining.** A batch of requests goes to a writer thread all at once
//! while a reader thread turns the adapter's stdout into a channel of
//! lines, so neither side waits on the other's pipe buffer.
//!
//! **Misbehaviour.** Responses must come back in order, one per request.
//! When the adapter crashes (its stdout closes), hangs (no line within the
//! timeout), prints a line that is not a valid response or answers with
//! the wrong id, the failure is recorded against the first unanswered
//! request, the adapter's whole process group is killed (a `sh -c` wrapper
//! and whatever the adapter started go with it), the adapter is restarted
//! and the rest of the batch is sent again. Answers already received are
//! kept. A line longer than [`MAX_LINE`] is a protocol error, read and
//! dropped without being held.
//!
//! **Cost.** A decoder that hangs on every input holding some byte would
//! cost a timeout per such input: hours. So each failure is narrowed down
//! (a poison): the failing input is minimised with the adapter itself
//! (a bounded number of probes), and once two more inputs that contain the
//! minimised bytes have failed the same way, the remaining ones are not
//! sent: they come back as [`FailureKind::NotRun`], with the reason, and
//! the report lists each poison with its minimised input, how many
//! requests failed and how many were not run. An input of the class that
//! then succeeds drops the poison. Past that, [`ProcessSpec::budget`]
//! bounds a decoder's total time, and a run of failures with no answer in
//! between ([`ProcessSpec::max_failures_in_a_row`]) stops the decoder.

use crate::decoder::{Decoder, Kind, Reply, Request};
use crate::outcome::{
    Answer, Capabilities, EncodeAnswer, Failure, FailureKind, Incident, StreamAnswer, StreamMode,
    StreamRun,
};
use crate::protocol::serve::{read_line_capped, skip_line};
use crate::protocol::wire::{self, HelloLine, MAX_LINE};
use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How to start an external decoder, and how much to let it cost.
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
    /// The most time all of this decoder's requests may take; past it,
    /// the rest is not run (and the report says so).
    pub budget: Option<Duration>,
    /// Failures in a row, with no answer in between, after which the
    /// decoder is not asked anything more.
    pub max_failures_in_a_row: u32,
}

impl ProcessSpec {
    /// A spec with the default limits: 5 s per request, 30 s for hello,
    /// 10 minutes in all, 16 failures in a row.
    pub fn new(name: impl Into<String>, argv: Vec<String>, cwd: impl Into<PathBuf>) -> ProcessSpec {
        ProcessSpec {
            name: name.into(),
            argv,
            cwd: cwd.into(),
            timeout: Duration::from_secs(5),
            hello_timeout: Duration::from_secs(30),
            budget: Some(Duration::from_secs(600)),
            max_failures_in_a_row: 16,
        }
    }
}

/// What the stdout reader hands over.
enum Event {
    Line(String),
    TooLong,
}

/// The last lines an adapter wrote to stderr, read as bytes (an adapter
/// that writes non-UTF-8 must not stop the reading, or it blocks on a full
/// pipe and looks like a crash).
#[derive(Default)]
struct StderrTail {
    lines: VecDeque<String>,
}

impl StderrTail {
    const LINES: usize = 20;
    const WIDTH: usize = 500;

    fn push(&mut self, raw: &[u8]) {
        let mut line = String::from_utf8_lossy(raw).trim_end().to_string();
        if line.chars().count() > Self::WIDTH {
            line = line.chars().take(Self::WIDTH).collect::<String>() + "…";
        }
        if self.lines.len() == Self::LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }
}

/// One running instance of the adapter.
struct Session {
    child: Child,
    to_writer: Option<Sender<String>>,
    events: Receiver<Event>,
}

impl Session {
    fn start(
        spec: &ProcessSpec,
        stderr: &Arc<Mutex<StderrTail>>,
    ) -> Result<(Session, HelloLine), String> {
        let (program, args) = spec
            .argv
            .split_first()
            .ok_or_else(|| "empty command".to_string())?;
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(&spec.cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", spec.argv.join(" ")))?;
        LIVE.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(child.id());
        let mut stdin = child.stdin.take().expect("stdin was piped");
        let stdout = child.stdout.take().expect("stdout was piped");
        let stderr_pipe = child.stderr.take().expect("stderr was piped");

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
        let (to_harness, events) = mpsc::channel::<Event>();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                let event = match read_line_capped(&mut reader, &mut buf, MAX_LINE) {
                    Ok((0, _)) | Err(_) => break,
                    Ok((_, false)) => Event::TooLong,
                    Ok((_, true)) => {
                        Event::Line(String::from_utf8_lossy(&buf).trim_end().to_string())
                    }
                };
                let too_long = matches!(event, Event::TooLong);
                if to_harness.send(event).is_err() {
                    break;
                }
                // The harness ends the session on it; meanwhile the rest of
                // the line is read and dropped, never held.
                if too_long && skip_line(&mut reader).is_err() {
                    break;
                }
            }
        });
        let tail = Arc::clone(stderr);
        thread::spawn(move || {
            let mut reader = BufReader::new(stderr_pipe);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match read_line_capped(&mut reader, &mut buf, 64 << 10) {
                    Ok((0, _)) | Err(_) => break,
                    Ok((_, true)) => tail.lock().expect("no panic while locked").push(&buf),
                    Ok((_, false)) => {
                        tail.lock()
                            .expect("no panic while locked")
                            .push(b"(a line longer than 64 KiB, not kept)");
                        if skip_line(&mut reader).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let mut session = Session {
            child,
            to_writer: Some(to_writer),
            events,
        };
        let hello = match session.events.recv_timeout(spec.hello_timeout) {
            Ok(Event::Line(line)) => serde_json::from_str::<HelloLine>(&line)
                .map_err(|e| format!("first line is not a hello ({e}): {}", clip(&line))),
            Ok(Event::TooLong) => Err(format!("first line is longer than {MAX_LINE} bytes")),
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "no hello within {} s",
                spec.hello_timeout.as_secs_f64()
            )),
            Err(RecvTimeoutError::Disconnected) => Err("exited before saying hello".to_string()),
        };
        match hello {
            Ok(h) => Ok((session, h)),
            Err(e) => {
                session.stop();
                Err(e)
            }
        }
    }

    /// Kills the adapter's whole process group and reaps it.
    fn stop(&mut self) {
        self.to_writer = None;
        kill_group(&mut self.child);
        let _ = self.child.wait();
    }

    /// How the adapter ended, once its stdout closed: killed first, since
    /// an adapter can close stdout and go on running.
    fn exit_status(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(200);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.to_string();
            }
            thread::sleep(Duration::from_millis(5));
        }
        self.stop();
        "closed its stdout but kept running; killed".to_string()
    }
}

/// The process groups of the adapters now running, so that a harness
/// stopped by Ctrl-C can take them down with it ([`kill_all`]).
static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Kills every adapter this process started and has not stopped: for a
/// harness about to exit without running destructors.
pub fn kill_all() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|e| e.into_inner()));
    for pid in live {
        #[cfg(unix)]
        if let Ok(pid) = libc::pid_t::try_from(pid) {
            // SAFETY: killpg only sends a signal; a stale group id at worst
            // fails with ESRCH, which is ignored.
            unsafe {
                libc::killpg(pid, libc::SIGKILL);
            }
        }
    }
}

/// Kills `child` and every process in its group (it must have been started
/// as a group leader, `process_group(0)`): how an adapter's build and the
/// adapter itself are stopped, children and a `sh -c` wrapper included.
pub fn kill_process_group(child: &mut Child) {
    kill_group(child);
    let _ = child.wait();
}

#[cfg(unix)]
fn kill_group(child: &mut Child) {
    LIVE.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&pid| pid != child.id());
    // The group was made with the child as its leader (process_group(0)),
    // so its id is the child's pid.
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: killpg only sends a signal; a stale or reused group id
        // at worst fails with ESRCH, which is ignored.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
}

#[cfg(not(unix))]
fn kill_group(child: &mut Child) {
    let _ = child.kill();
}

impl Drop for Session {
    fn drop(&mut self) {
        // Closing stdin asks a well-behaved adapter to exit; the group is
        // killed either way, so nothing it started outlives it.
        self.to_writer = None;
        let deadline = Instant::now() + Duration::from_millis(100);
        while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
            thread::sleep(Duration::from_millis(5));
        }
        kill_group(&mut self.child);
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

/// A failure narrowed to the bytes that cause it.
#[derive(Clone, Debug)]
struct Poison {
    kind: FailureKind,
    /// The minimised input: any input holding these bytes is expected to
    /// fail the same way.
    core: Vec<u8>,
    first_seen: Vec<u8>,
    detail: String,
    failures: u64,
    not_run: u64,
    /// An input of the class that was answered: the poison no longer
    /// predicts anything and is kept only for the report.
    disproved: bool,
}

impl Poison {
    /// Failures needed before inputs of the class are skipped: the first,
    /// and two more that confirm the class.
    const CONFIRMED: u64 = 3;

    fn matches(&self, request: &Request) -> bool {
        // An empty core is "any request at all": an encode too.
        !self.disproved
            && (self.core.is_empty()
                || request_bytes(request).is_some_and(|b| contains(&b, &self.core)))
    }
}

/// The bytes a request carries, if it decodes any.
fn request_bytes(request: &Request) -> Option<Vec<u8>> {
    match request {
        Request::Decode(b) => Some(b.clone()),
        Request::Stream(_, run) => Some(run.bytes()),
        Request::Reuse(_, runs) => Some(runs.iter().flat_map(StreamRun::bytes).collect()),
        Request::Encode(_) => None,
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// Everything behind the decoder's lock.
struct State {
    session: Option<Session>,
    restarts: u32,
    next_id: u64,
    spent: Duration,
    in_a_row: u32,
    /// Why nothing more is asked, once that is so.
    stopped: Option<String>,
    poisons: Vec<Poison>,
    /// Failures not narrowed to a poison (encode requests, or past the
    /// limit of poisons): kind, first input, detail, count.
    other_failures: Vec<(FailureKind, Vec<u8>, String, u64)>,
}

/// An external decoder.
pub struct ProcessDecoder {
    spec: ProcessSpec,
    version: String,
    capabilities: Capabilities,
    max_input: Option<usize>,
    state: Mutex<State>,
    stderr: Arc<Mutex<StderrTail>>,
}

/// The most poisons learned per decoder; failures past it are counted
/// without being narrowed.
const MAX_POISONS: usize = 8;

/// The most probes spent minimising one failure, and the most of those
/// that may fail (each failing probe of a hang costs a timeout).
const MINIMIZE_PROBES: u32 = 24;
const MINIMIZE_FAILING_PROBES: u32 = 5;

impl ProcessDecoder {
    /// Starts the adapter and reads its hello. Fails (with a one-line
    /// reason) if it cannot be started, says no hello, or claims something
    /// the protocol does not know.
    pub fn start(spec: ProcessSpec) -> Result<ProcessDecoder, String> {
        let stderr = Arc::new(Mutex::new(StderrTail::default()));
        let (session, hello) = Session::start(&spec, &stderr)?;
        let capabilities = hello.hello.parse_capabilities()?;
        Ok(ProcessDecoder {
            version: hello.hello.version,
            capabilities,
            max_input: hello
                .hello
                .max_input
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
            state: Mutex::new(State {
                session: Some(session),
                restarts: 0,
                next_id: 0,
                spent: Duration::ZERO,
                in_a_row: 0,
                stopped: None,
                poisons: Vec::new(),
                other_failures: Vec::new(),
            }),
            stderr,
            spec,
        })
    }

    /// Sends every request (pipelined) and returns one result per
    /// request, in order; see the module documentation for failures.
    fn exchange(&self, requests: &[Request]) -> Vec<Result<Reply, Failure>> {
        let mut state = self.state.lock().expect("no panic while locked");
        let started = Instant::now();
        let mut results: Vec<Option<Result<Reply, Failure>>> = vec![None; requests.len()];
        let mut next = 0;
        while next < requests.len() {
            // What is not to be sent: the decoder has stopped, or the
            // request belongs to a confirmed poison.
            let spent = state.spent + started.elapsed();
            if state.stopped.is_none() {
                if let Some(budget) = self.spec.budget.filter(|b| spent > *b) {
                    state.stopped = Some(format!(
                        "its time budget of {} s was spent",
                        budget.as_secs_f64()
                    ));
                }
            }
            let mut batch = Vec::new();
            for (i, request) in requests.iter().enumerate().skip(next) {
                if results[i].is_some() {
                    continue;
                }
                if let Some(why) = &state.stopped {
                    results[i] = Some(Err(not_run(why.clone())));
                } else if let Some(p) = state
                    .poisons
                    .iter_mut()
                    .find(|p| p.matches(request) && p.failures >= Poison::CONFIRMED)
                {
                    p.not_run += 1;
                    results[i] = Some(Err(not_run(format!(
                        "it holds {}, on which the decoder's answer was {} {} times",
                        crate::hex::spaced(&p.core),
                        p.kind.as_str(),
                        p.failures
                    ))));
                } else {
                    batch.push(i);
                }
            }
            if batch.is_empty() {
                break;
            }
            let sent: Vec<&Request> = batch.iter().map(|&i| &requests[i]).collect();
            let outcome = self.send(&mut state, &sent);
            let answered = outcome.len();
            for (k, result) in outcome.into_iter().enumerate() {
                let i = batch[k];
                match &result {
                    Ok(_) => {
                        state.in_a_row = 0;
                        for p in state.poisons.iter_mut().filter(|p| p.matches(&requests[i])) {
                            p.disproved = true;
                        }
                    }
                    Err(failure) => self.on_failure(&mut state, &requests[i], failure),
                }
                results[i] = Some(result);
            }
            // Up to the last request read, the batch is done; the rest goes
            // round again, filtered anew (a poison may have been learned).
            next = batch.get(answered).copied().unwrap_or(requests.len());
        }
        state.spent += started.elapsed();
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(not_run("the decoder stopped".into()))))
            .collect()
    }

    /// Sends `batch` on the live session (starting one if needed) and reads
    /// answers in order until the end or the first failure, which ends the
    /// session. Returns the results read, the failure last.
    fn send(&self, state: &mut State, batch: &[&Request]) -> Vec<Result<Reply, Failure>> {
        if state.session.is_none() {
            match Session::start(&self.spec, &self.stderr) {
                Ok((s, _)) => {
                    state.session = Some(s);
                    state.restarts += 1;
                }
                Err(e) => {
                    let why = format!("it could not be restarted: {e}");
                    state.stopped = Some(why.clone());
                    return vec![Err(Failure {
                        kind: FailureKind::Crash,
                        detail: why,
                    })];
                }
            }
        }
        let first_id = state.next_id;
        state.next_id += batch.len() as u64;
        let session = state.session.as_mut().expect("started above");
        let writer = session
            .to_writer
            .as_ref()
            .expect("a live session has a writer");
        for (k, request) in batch.iter().enumerate() {
            let _ = writer.send(wire::request_line(first_id + k as u64, request));
        }
        let mut out = Vec::with_capacity(batch.len());
        for (k, request) in batch.iter().enumerate() {
            let (result, in_step) = self.read_one(session, first_id + k as u64, request);
            let failed = result.is_err();
            out.push(result);
            // An answer with the right id but the wrong content (a bad
            // request, a field of the wrong type) leaves the adapter in
            // step: the next answers are still the next requests'. Anything
            // else (no answer, garbage, a wrong id) ends the session.
            if failed && !in_step {
                session.stop();
                state.session = None;
                state.in_a_row += 1;
                break;
            }
        }
        out
    }

    /// Reads the answer to request `id`, and whether the adapter is still
    /// in step (the line it wrote was an answer to this very request).
    fn read_one(
        &self,
        session: &mut Session,
        id: u64,
        request: &Request,
    ) -> (Result<Reply, Failure>, bool) {
        let fail = |kind, detail: String| Err(Failure { kind, detail });
        let line = match session.events.recv_timeout(self.spec.timeout) {
            Ok(Event::Line(line)) => line,
            Ok(Event::TooLong) => {
                return (
                    fail(
                        FailureKind::ProtocolError,
                        format!("an answer longer than {MAX_LINE} bytes"),
                    ),
                    false,
                )
            }
            Err(RecvTimeoutError::Timeout) => {
                let detail = format!("no answer within {} s", self.spec.timeout.as_secs_f64());
                return (fail(FailureKind::Timeout, detail), false);
            }
            Err(RecvTimeoutError::Disconnected) => {
                let status = session.exit_status();
                let stderr = self.stderr_tail().last().cloned().unwrap_or_default();
                let detail = format!("exited ({status}) {}", clip(&stderr))
                    .trim_end()
                    .to_string();
                return (fail(FailureKind::Crash, detail), false);
            }
        };
        match wire::parse_response(&line, id, request) {
            Ok(reply) => (Ok(reply), true),
            Err(e) => {
                let in_step = serde_json::from_str::<serde_json::Value>(&line)
                    .is_ok_and(|v| v.get("id") == Some(&serde_json::Value::from(id)));
                (
                    fail(FailureKind::ProtocolError, format!("{e}: {}", clip(&line))),
                    in_step,
                )
            }
        }
    }

    /// Records a failure: against a poison it belongs to, or by narrowing
    /// it to a new one.
    fn on_failure(&self, state: &mut State, request: &Request, failure: &Failure) {
        if failure.kind == FailureKind::NotRun {
            return;
        }
        if state.in_a_row >= self.spec.max_failures_in_a_row && state.stopped.is_none() {
            state.stopped = Some(format!(
                "{} requests in a row failed with no answer in between",
                state.in_a_row
            ));
        }
        if let Some(p) = state
            .poisons
            .iter_mut()
            .find(|p| p.kind == failure.kind && p.matches(request))
        {
            p.failures += 1;
            return;
        }
        let learnable = matches!(request, Request::Decode(_)) && state.poisons.len() < MAX_POISONS;
        if !learnable || state.stopped.is_some() {
            let first = request_bytes(request).unwrap_or_default();
            match state
                .other_failures
                .iter_mut()
                .find(|f| f.0 == failure.kind)
            {
                Some(f) => f.3 += 1,
                None => state
                    .other_failures
                    .push((failure.kind, first, failure.detail.clone(), 1)),
            }
            return;
        }
        let Request::Decode(bytes) = request else {
            unreachable!("learnable requests decode")
        };
        let core = self.minimize(state, bytes, failure.kind);
        state.poisons.push(Poison {
            kind: failure.kind,
            core,
            first_seen: bytes.clone(),
            detail: failure.detail.clone(),
            failures: 1,
            not_run: 0,
            disproved: false,
        });
    }

    /// The shortest input found, within the probe limits, that fails the
    /// way `bytes` did.
    fn minimize(&self, state: &mut State, bytes: &[u8], kind: FailureKind) -> Vec<u8> {
        let mut probes = 0;
        let mut failing = 0;
        let mut fails = |candidate: &[u8]| {
            if probes >= MINIMIZE_PROBES || failing >= MINIMIZE_FAILING_PROBES {
                return false;
            }
            probes += 1;
            let request = Request::Decode(candidate.to_vec());
            let result = self.send(state, &[&request]).pop();
            let fails = matches!(result, Some(Err(f)) if f.kind == kind);
            failing += u32::from(fails);
            fails
        };
        // A decoder that fails on everything (one that hangs after its
        // hello) is found in one probe.
        if fails(b"") {
            return Vec::new();
        }
        crate::differential::minimize(bytes, fails)
    }

    /// What the decoder failed on, each narrowed to its input class.
    pub fn incidents(&self) -> Vec<Incident> {
        let state = self.state.lock().expect("no panic while locked");
        let mut out: Vec<Incident> = state
            .poisons
            .iter()
            .map(|p| Incident {
                kind: p.kind,
                input: p.core.clone(),
                minimized: true,
                first_seen: p.first_seen.clone(),
                detail: p.detail.clone(),
                failures: p.failures,
                not_run: p.not_run,
                note: p
                    .disproved
                    .then(|| "an input holding these bytes was later answered".to_string()),
            })
            .collect();
        out.extend(
            state
                .other_failures
                .iter()
                .map(|(kind, first, detail, n)| Incident {
                    kind: *kind,
                    input: first.clone(),
                    minimized: false,
                    first_seen: first.clone(),
                    detail: detail.clone(),
                    failures: *n,
                    not_run: 0,
                    note: None,
                }),
        );
        out
    }

    /// Why the decoder was stopped before the end, if it was.
    pub fn stopped(&self) -> Option<String> {
        self.state
            .lock()
            .expect("no panic while locked")
            .stopped
            .clone()
    }

    fn stderr_lines(&self) -> Vec<String> {
        self.stderr
            .lock()
            .expect("no panic while locked")
            .lines
            .iter()
            .cloned()
            .collect()
    }

    fn one(&self, request: Request) -> Result<Reply, Failure> {
        self.exchange(std::slice::from_ref(&request))
            .pop()
            .expect("one result per request")
    }
}

fn not_run(why: String) -> Failure {
    Failure {
        kind: FailureKind::NotRun,
        detail: format!("not run: {why}"),
    }
}

fn wrong(reply: Reply) -> Failure {
    crate::decoder::wrong_reply(&reply)
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
        self.state.lock().expect("no panic while locked").restarts
    }
    fn stderr_tail(&self) -> Vec<String> {
        self.stderr_lines()
    }
    fn incidents(&self) -> Vec<Incident> {
        ProcessDecoder::incidents(self)
    }
    fn stopped(&self) -> Option<String> {
        ProcessDecoder::stopped(self)
    }
    fn max_input(&self) -> Option<usize> {
        self.max_input
    }
    fn ask(&self, requests: &[Request]) -> Vec<Result<Reply, Failure>> {
        self.exchange(requests)
    }
    fn decode(&self, bytes: &[u8]) -> Result<Answer, Failure> {
        match self.one(Request::Decode(bytes.to_vec()))? {
            Reply::Decoded(a) => Ok(a),
            other => Err(wrong(other)),
        }
    }
    fn encode(&self, scalar: u32) -> Result<EncodeAnswer, Failure> {
        match self.one(Request::Encode(scalar))? {
            Reply::Encoded(a) => Ok(a),
            other => Err(wrong(other)),
        }
    }
    fn stream(&self, mode: StreamMode, run: &StreamRun) -> Result<StreamAnswer, Failure> {
        match self.one(Request::Stream(mode, run.clone()))? {
            Reply::Streamed(a) => Ok(a),
            other => Err(wrong(other)),
        }
    }
    fn reuse(&self, mode: StreamMode, runs: &[StreamRun]) -> Result<Vec<StreamAnswer>, Failure> {
        match self.one(Request::Reuse(mode, runs.to_vec()))? {
            Reply::Reused(a) => Ok(a),
            other => Err(wrong(other)),
        }
    }
}
