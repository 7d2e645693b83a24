#!/usr/bin/env python3
"""Protocol smoke test for the adapters listed in adapters/adapters.toml.

    python3 adapters/smoke.py [--only NAME ...] [--bench N] [--no-build]

For every adapter whose requirements are met it runs the build step, starts
the command, writes a fixed list of requests all at once (pipelined), then
reads the hello and one answer per request, closes stdin and waits for the
adapter to exit. It checks the protocol of docs/protocol.md:

  * the hello names the adapter as adapters.toml does and claims only known
    capabilities;
  * every answer is one JSON object with the request's id, in order;
  * an answer carries only the fields the claimed capabilities allow, and the
    ones they require (typed as the protocol says);
  * bad requests (bad hex, a line that is not JSON, an op the adapter does
    not claim) get {"id": ..., "error": "bad request: ..."} and the adapter
    keeps serving;
  * the adapter exits once stdin is closed, and prints nothing more.

Protocol 2 (docs/protocol.md, "Protocol 2: streaming and decoder reuse"):
the hello may say "protocol": 1 or 2; the stream and reuse capabilities are
allowed only with protocol 2. Every adapter gets the same fixed list of
"stream" and "reuse" requests, in both modes: where the adapter claims the
mode (and, for reuse, the capability) the answer's shape is checked (one call
per chunk plus the flush call, fewer only with an "error" whose "call" is the
last index; one run per input; types; "error" only in strict mode); where it
does not, the request must be answered as a bad request. So are malformed
stream and reuse requests (bad hex in a chunk, chunks not a list, missing
fields, a mode nobody knows).

Answers that differ from RFC 3629 / Unicode's maximal-subpart practice are
not failures - finding those is the harness's job - but they are printed as
DIFF lines. For stream and reuse answers the expectation comes from
StreamModel below, a byte-at-a-time model of maximal subparts written for
this file (it shares no code with any decoder): each call emits what its
bytes decide, holds back a tail more bytes could complete, and emits U+FFFD
(or, strict, the error) as soon as a sequence can no longer be completed;
the flush turns a held tail into one U+FFFD (strict: an error with
error_len null). A reuse run is expected to answer as on a fresh decoder,
except after an unflushed run without an error, which it continues.
One line per adapter: OK, SKIP (why) or PROTOCOL-FAIL (what).
Exit status 1 if any adapter failed the protocol, else 0.

--bench N also times N pipelined decode requests of 16 random bytes against
each adapter that passed, and prints requests per second.

Dependency-free: the standard library only (tomllib on Python >= 3.11, a
small reader for this file's TOML subset otherwise).
"""

import argparse
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.path.join(ROOT, "adapters", "adapters.toml")

CAPABILITIES = {"validate", "position", "subpart", "decode", "strict", "lossy", "encode"}
# Protocol 2 adds these; "stream" is shorthand for both stream modes.
CAPABILITIES_2 = {"stream", "stream-strict", "stream-lossy", "reuse"}
PROTOCOLS = {1, 2}
STRICT = {"validate", "position", "subpart", "decode"}
ENCODE_ERRORS = {"surrogate", "out-of-range", "refused"}
FFFD = 0xFFFD

# What RFC 3629 + Unicode §3.9 (maximal subparts) say about each input:
# (hex, valid, scalars-or-None, valid_up_to, error_len, lossy).
# error_len None means "incomplete at the end" (null on the wire).
DECODE_CASES = [
    ("", True, [], None, None, []),
    ("48656c6c6f", True, [72, 101, 108, 108, 111], None, None, [72, 101, 108, 108, 111]),
    ("f09f9880", True, [0x1F600], None, None, [0x1F600]),
    ("00", True, [0], None, None, [0]),
    ("efbbbf41", True, [0xFEFF, 65], None, None, [0xFEFF, 65]),
    ("c0af", False, None, 0, 1, [FFFD, FFFD]),
    ("eda080", False, None, 0, 1, [FFFD, FFFD, FFFD]),
    ("f4908080", False, None, 0, 1, [FFFD, FFFD, FFFD, FFFD]),
    ("e282", False, None, 0, None, [FFFD]),
    ("41e28241", False, None, 1, 2, [65, FFFD, 65]),
    ("ff", False, None, 0, 1, [FFFD]),
]
# (scalar, expected bytes or None when it must be refused, the reason if so)
ENCODE_CASES = [
    (8364, "e282ac", None),
    (55296, None, "surrogate"),
    (1114112, None, "out-of-range"),
]


# Protocol 2: stream requests, each sent in both modes: (chunks, flush).
STREAM_CASES = [
    (["e080", "80"], True),          # WPT: both U+FFFDs of E0 80 in the first call
    (["f09f92", "a9"], True),        # WPT: nothing until A9 completes U+1F4A9
    (["ef", "bbbf41"], True),        # a BOM split across chunks
    (["efbbbf", "efbbbf41"], True),  # two BOMs: only a leading one is ever special
    (["41", "", "e2", "", "82ac"], True),  # empty chunks between the bytes of U+20AC
    ([], True),                      # no chunks: the flush call alone
    ([""], True),
    (["e2", "82", "ac"], True),      # one byte per call
    (["f0", "9f", "98", "80"], True),
    (["41e282"], True),              # truncated at the end: the flush decides
    (["41f0", "9f", "41"], True),    # the bad sequence began two calls back
    (["e282", "41"], True),
    (["eda0", "80"], True),          # a surrogate split after its second byte
    (["f4", "90", "80", "80"], True),  # above U+10FFFF, one byte per call
    (["c0", "af"], True),
    (["f8", "41"], True),            # F8 never begins a sequence (RFC 3629 dropped 5-byte forms)
    (["41", "ff", "42"], True),
    (["41", "42ff43"], True),        # strict: the erroring call decided "B" first
    (["f09f", "9841"], True),
    (["41", "", "e2"], False),       # left open (only reuse continues it)
]

# Reuse requests, each sent in both modes: lists of (chunks, flush).
REUSE_CASES = [
    [(["ff"], True), (["41"], True)],                  # after an error
    [(["e2", "41"], True), (["82ac"], True)],          # after an error with a held lead
    [(["41f0", "41"], True), (["42"], True)],
    [(["e080", "80"], True), (["80", "41"], True)],    # after an error mid-sequence
    [(["f09f"], False), (["98", "80"], True)],         # after an unflushed tail
    [(["41e2"], False), (["82ac"], True)],
    [(["ef", "bb"], False), (["bf41"], True)],         # an unflushed half BOM
    [(["efbbbf41"], True), (["efbbbf42"], True)],      # after a BOM
    [(["e2"], True), (["82ac"], True)],                # after a flushed truncated tail
    [(["f0"], True), (["9f9880"], True)],
    [(["41"], True), ([], True), (["42"], True)],
]

# Malformed stream/reuse requests: each must get a bad request answer.
BAD_STREAM_REQUESTS = [
    {"op": "stream", "mode": "strict", "chunks": ["4"]},
    {"op": "stream", "mode": "lossy", "chunks": ["41", "zz"]},
    {"op": "stream", "mode": "strict", "chunks": "41"},
    {"op": "stream", "mode": "lossy", "chunks": [65]},
    {"op": "stream", "mode": "strict"},
    {"op": "stream", "chunks": ["41"]},
    {"op": "stream", "mode": "sloppy", "chunks": ["41"]},
    {"op": "stream", "mode": "lossy", "chunks": ["41"], "flush": "no"},
    {"op": "reuse", "mode": "strict", "inputs": [{"chunks": ["41"]}, {"chunks": ["4g"]}]},
    {"op": "reuse", "mode": "lossy", "inputs": {"chunks": ["41"]}},
    {"op": "reuse", "mode": "strict", "inputs": [{"flush": True}]},
    {"op": "reuse", "mode": "lossy", "inputs": ["41"]},
    {"op": "reuse", "mode": "strict"},
]

# ---- the streaming model -------------------------------------------------------

# Unicode Table 3-7 (well-formed byte sequences): lead byte -> (length of the
# sequence, lowest and highest allowed second byte). Every later byte is
# 80..BF. A byte not in this table and not ASCII cannot begin a sequence.
LEADS = {}
for _b in range(0xC2, 0xE0):
    LEADS[_b] = (2, 0x80, 0xBF)
for _b in range(0xE1, 0xF0):
    LEADS[_b] = (3, 0x80, 0xBF)
for _b in range(0xF1, 0xF4):
    LEADS[_b] = (4, 0x80, 0xBF)
LEADS[0xE0] = (3, 0xA0, 0xBF)
LEADS[0xED] = (3, 0x80, 0x9F)
LEADS[0xF0] = (4, 0x90, 0xBF)
LEADS[0xF4] = (4, 0x80, 0x8F)


class StreamModel:
    """One decoder object as Unicode's maximal-subpart practice (and WHATWG's
    streaming UTF-8 decode) says it behaves, fed one call at a time.

    A sequence is held while every byte so far is allowed by Table 3-7 and it
    is not yet complete; the byte that cannot continue it ends the held bytes
    as one maximal subpart (one U+FFFD, or the strict error with error_len =
    their count) and is then looked at afresh. The flush turns a held tail
    into one U+FFFD (strict: an error with error_len None)."""

    def __init__(self, strict):
        self.strict = strict
        self.held = []       # bytes of a sequence that more bytes could complete
        self.held_at = 0     # its whole-stream offset
        self.next_lo = self.next_hi = 0
        self.offset = 0      # whole-stream offset of the next byte

    def call(self, data, final):
        """(code points this call returns, (valid_up_to, error_len) or None).
        In strict mode the code points are those before the error."""
        out = []
        for b in data:
            err = self._byte(b, out)
            if err:
                return out, err
        if final and self.held:
            err = (self.held_at, None)
            self.held = []
            if self.strict:
                return out, err
            out.append(FFFD)
        return out, None

    def _byte(self, b, out):
        pos = self.offset
        self.offset += 1
        if self.held:
            if self.next_lo <= b <= self.next_hi:
                self.held.append(b)
                self.next_lo, self.next_hi = 0x80, 0xBF
                if len(self.held) == LEADS[self.held[0]][0]:
                    out.append(self._scalar())
                    self.held = []
                return None
            err = (self.held_at, len(self.held))
            self.held = []
            if self.strict:
                return err
            out.append(FFFD)
        if b < 0x80:
            out.append(b)
        elif b in LEADS:
            self.held, self.held_at = [b], pos
            _, self.next_lo, self.next_hi = LEADS[b]
        elif self.strict:
            return (pos, 1)
        else:
            out.append(FFFD)
        return None

    def _scalar(self):
        lead, rest = self.held[0], self.held[1:]
        value = lead & (0x7F >> len(self.held))
        for b in rest:
            value = value << 6 | (b & 0x3F)
        return value


def model_run(model, chunks, flush):
    """What one stream (or reuse run) should answer: {"calls": ..., "error": ...}
    with error = {"call", "valid_up_to", "error_len"}; pre_error = the code
    points the erroring call decided before its error (an adapter may report
    those or [], protocol: "usually []")."""
    calls = []
    inputs = [bytes.fromhex(c) for c in chunks] + ([b""] if flush else [])
    for i, data in enumerate(inputs):
        out, err = model.call(data, final=flush and i == len(inputs) - 1)
        calls.append(out)
        if err:
            return {"calls": calls, "error": {"call": i, "valid_up_to": err[0], "error_len": err[1]}}
    return {"calls": calls}


def model_stream(chunks, flush, strict):
    return model_run(StreamModel(strict), chunks, flush)


def model_reuse(inputs, strict):
    """Each run on a fresh decoder, except that a run after an unflushed run
    without an error continues that stream (offsets included)."""
    runs, model, carry = [], None, False
    for chunks, flush in inputs:
        if not carry:
            model = StreamModel(strict)
        run = model_run(model, chunks, flush)
        runs.append(run)
        carry = not flush and "error" not in run
    return runs


# ---- config -----------------------------------------------------------------

def load_config(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        import tomllib  # Python >= 3.11
    except ImportError:
        return parse_simple_toml(data.decode("utf-8"))
    return tomllib.loads(data.decode("utf-8"))


def parse_simple_toml(text):
    """The subset adapters.toml uses: [[adapter]] tables whose values are
    strings, booleans and one-line arrays of strings (all valid JSON)."""
    tables = {"adapter": []}
    current = None
    for raw in text.splitlines():
        line = strip_comment(raw).strip()
        if not line:
            continue
        if line == "[[adapter]]":
            current = {}
            tables["adapter"].append(current)
            continue
        key, _, value = line.partition("=")
        if current is None or not _:
            raise ValueError(f"unsupported TOML line: {raw!r}")
        current[key.strip()] = json.loads(value.strip())
    return tables


def strip_comment(line):
    in_string = escaped = False
    for i, ch in enumerate(line):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "#":
            return line[:i]
    return line


# ---- running an adapter ------------------------------------------------------

class Adapter:
    """A running adapter: lines from its stdout arrive on a queue."""

    def __init__(self, cmd):
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, bufsize=0)
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._pump_stdout, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump_stdout(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)  # EOF

    def _pump_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace").rstrip())

    def write(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read_line(self, timeout):
        """The next stdout line (bytes), None at EOF; raises queue.Empty."""
        return self.lines.get(timeout=timeout)

    def close_and_wait(self, timeout):
        """Closes stdin; returns (exit code or None if still running, extra lines)."""
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None, []
        extra = []
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                break
            if line is None:
                break
            extra.append(line)
        return code, extra

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class ProtocolError(Exception):
    pass


def parse_line(line, what):
    if line is None:
        raise ProtocolError(f"stdout closed before {what}")
    try:
        obj = json.loads(line)
    except ValueError:
        raise ProtocolError(f"{what} is not JSON: {line[:200]!r}")
    if not isinstance(obj, dict):
        raise ProtocolError(f"{what} is not a JSON object: {line[:200]!r}")
    return obj


def is_uint(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def check_hello(hello_line, name):
    obj = parse_line(hello_line, "hello")
    hello = obj.get("hello")
    if not isinstance(hello, dict):
        raise ProtocolError(f"first line has no hello object: {obj}")
    if hello.get("name") != name:
        raise ProtocolError(f"hello name {hello.get('name')!r} is not {name!r}")
    if not isinstance(hello.get("version"), str):
        raise ProtocolError("hello version is not a string")
    protocol = hello.get("protocol", 1)
    if type(protocol) is not int or protocol not in PROTOCOLS:
        raise ProtocolError(f"hello protocol {protocol!r} is not one of {sorted(PROTOCOLS)}")
    caps = hello.get("capabilities")
    if not isinstance(caps, list) or not caps or not all(isinstance(c, str) for c in caps):
        raise ProtocolError(f"hello capabilities not a non-empty list of strings: {caps!r}")
    unknown = set(caps) - CAPABILITIES - CAPABILITIES_2
    if unknown:
        raise ProtocolError(f"unknown capabilities {sorted(unknown)}")
    if protocol < 2 and set(caps) & CAPABILITIES_2:
        raise ProtocolError(f"protocol 2 capabilities {sorted(set(caps) & CAPABILITIES_2)} "
                            "in a protocol 1 hello (say \"protocol\": 2)")
    claimed = set(caps)
    if "strict" in claimed:
        claimed |= STRICT
    if "stream" in claimed:
        claimed |= {"stream-strict", "stream-lossy"}
    claimed -= {"strict", "stream"}
    if "reuse" in claimed and not claimed & {"stream-strict", "stream-lossy"}:
        raise ProtocolError("reuse claimed without a stream mode")
    return claimed, hello


def check_decode_answer(ans, hexin, caps):
    """Protocol checks of one decode answer; returns nothing or raises."""
    allowed = {"id"}
    allowed |= {"valid"} if "validate" in caps else set()
    allowed |= {"scalars"} if "decode" in caps else set()
    allowed |= {"valid_up_to"} if "position" in caps else set()
    allowed |= {"error_len"} if "subpart" in caps else set()
    allowed |= {"lossy"} if "lossy" in caps else set()
    extra = set(ans) - allowed
    if extra:
        raise ProtocolError(f"decode {hexin!r}: fields {sorted(extra)} not allowed by {sorted(caps)}: {ans}")
    n = len(hexin) // 2
    if "validate" in caps:
        if not isinstance(ans.get("valid"), bool):
            raise ProtocolError(f"decode {hexin!r}: 'valid' missing or not a boolean: {ans}")
        valid = ans["valid"]
        if valid:
            if "decode" in caps and "scalars" not in ans:
                raise ProtocolError(f"decode {hexin!r}: valid but no 'scalars': {ans}")
            if "valid_up_to" in ans or "error_len" in ans:
                raise ProtocolError(f"decode {hexin!r}: valid but has error fields: {ans}")
        else:
            if "scalars" in ans:
                raise ProtocolError(f"decode {hexin!r}: 'scalars' on invalid input: {ans}")
            if "position" in caps:
                if not is_uint(ans.get("valid_up_to")) or ans["valid_up_to"] > n:
                    raise ProtocolError(f"decode {hexin!r}: bad or missing 'valid_up_to': {ans}")
            if "subpart" in caps:
                if "error_len" not in ans:
                    raise ProtocolError(f"decode {hexin!r}: 'error_len' missing: {ans}")
                el = ans["error_len"]
                if el is not None and not (is_uint(el) and el >= 1):
                    raise ProtocolError(f"decode {hexin!r}: 'error_len' not null or >= 1: {ans}")
    elif "scalars" in ans or "valid_up_to" in ans or "error_len" in ans:
        raise ProtocolError(f"decode {hexin!r}: error/scalar fields without 'validate': {ans}")
    for key in ("scalars", "lossy"):
        if key in ans and not (isinstance(ans[key], list) and all(is_uint(v) for v in ans[key])):
            raise ProtocolError(f"decode {hexin!r}: '{key}' is not a list of code points: {ans}")
    if "lossy" in caps and "lossy" not in ans:
        raise ProtocolError(f"decode {hexin!r}: 'lossy' missing: {ans}")


def decode_findings(ans, case, caps):
    """DIFF lines where the answer differs from RFC 3629 / maximal subparts."""
    hexin, valid, scalars, up_to, err_len, lossy = case
    diffs = []

    def diff(field, got, want):
        show = lambda v: "null" if v is None else json.dumps(v)
        diffs.append(f"DIFF decode {hexin or '(empty)'}: {field} = {show(got)}, RFC/Unicode: {show(want)}")

    if "validate" in caps and ans.get("valid") != valid:
        diff("valid", ans.get("valid"), valid)
    if ans.get("valid") is True and valid and "decode" in caps and ans.get("scalars") != scalars:
        diff("scalars", ans.get("scalars"), scalars)
    if ans.get("valid") is False and not valid:
        if "position" in caps and ans.get("valid_up_to") != up_to:
            diff("valid_up_to", ans.get("valid_up_to"), up_to)
        if "subpart" in caps and ans.get("error_len") != err_len:
            diff("error_len", ans.get("error_len"), err_len)
    if "lossy" in caps and ans.get("lossy") != lossy:
        diff("lossy", ans.get("lossy"), lossy)
    return diffs


def check_encode_answer(ans, scalar, caps):
    if "encode" not in caps:
        if not isinstance(ans.get("error"), str) or not ans["error"].startswith("bad request"):
            raise ProtocolError(f"encode without the capability must be a bad request: {ans}")
        return
    extra = set(ans) - {"id", "bytes", "error"}
    if extra or ("bytes" in ans) == ("error" in ans):
        raise ProtocolError(f"encode {scalar}: need exactly one of bytes/error: {ans}")
    if "bytes" in ans:
        b = ans["bytes"]
        if not isinstance(b, str) or len(b) % 2 or any(c not in "0123456789abcdef" for c in b):
            raise ProtocolError(f"encode {scalar}: 'bytes' is not lowercase hex: {ans}")
    elif ans["error"] not in ENCODE_ERRORS:
        raise ProtocolError(f"encode {scalar}: error {ans['error']!r} is not one of {sorted(ENCODE_ERRORS)}")


def encode_findings(ans, case):
    scalar, want_bytes, want_reason = case
    if want_bytes is not None:
        if ans.get("bytes") != want_bytes:
            return [f"DIFF encode {scalar}: {json.dumps(ans)}, RFC: bytes {want_bytes}"]
        return []
    if "bytes" in ans:
        return [f"DIFF encode {scalar}: bytes {ans['bytes']}, RFC: refused ({want_reason})"]
    if ans.get("error") not in (want_reason, "refused"):
        return [f"DIFF encode {scalar}: error {ans.get('error')!r}, RFC: refused ({want_reason})"]
    return []


def show_hex_chunks(chunks, flush):
    text = "|".join(chunks) if chunks else "(no chunks)"
    if chunks and all(c == "" for c in chunks):
        text = "|".join("''" for _ in chunks)
    return text + ("" if flush else " (flush false)")


def check_run(run, chunks, flush, mode, caps, what, stream_bytes):
    """Protocol checks of one stream answer (or reuse run); stream_bytes is
    the length of the stream so far (a reuse run may continue an unflushed
    one, whose bytes count too)."""
    if not isinstance(run, dict):
        raise ProtocolError(f"{what}: a run is not a JSON object: {run!r}")
    if "calls" not in run and "valid" in run and not caps & {"decode", "lossy"}:
        # a streaming validator (protocol: "leaves calls out")
        if set(run) - {"id", "valid"} or not isinstance(run["valid"], bool):
            raise ProtocolError(f"{what}: a validator answers only 'valid' (a boolean): {run}")
        return
    extra = set(run) - {"id", "calls", "error"}
    if extra:
        raise ProtocolError(f"{what}: fields {sorted(extra)} not allowed: {run}")
    calls = run.get("calls")
    if not isinstance(calls, list) or not all(
            isinstance(c, list) and all(is_uint(v) for v in c) for c in calls):
        raise ProtocolError(f"{what}: 'calls' missing or not a list of lists of code points: {run}")
    want = len(chunks) + (1 if flush else 0)
    if "error" in run:
        if mode != "strict":
            raise ProtocolError(f"{what}: 'error' in {mode} mode: {run}")
        err = run["error"]
        if not isinstance(err, dict) or set(err) - {"call", "valid_up_to", "error_len"}:
            raise ProtocolError(f"{what}: 'error' is not an object of call/valid_up_to/error_len: {run}")
        if not is_uint(err.get("call")) or err["call"] != len(calls) - 1:
            raise ProtocolError(f"{what}: error 'call' must be the index of the last call, "
                                f"{len(calls) - 1}: {run}")
        if "valid_up_to" in err and not (is_uint(err["valid_up_to"]) and err["valid_up_to"] <= stream_bytes):
            raise ProtocolError(f"{what}: error 'valid_up_to' is not a byte offset within the "
                                f"stream's {stream_bytes} bytes: {run}")
        el = err.get("error_len", None)
        if el is not None and not (is_uint(el) and el >= 1):
            raise ProtocolError(f"{what}: error 'error_len' not null or >= 1: {run}")
        if len(calls) > want:
            raise ProtocolError(f"{what}: {len(calls)} calls for {len(chunks)} chunks"
                                f"{' and the flush' if flush else ''}: {run}")
    elif len(calls) != want:
        raise ProtocolError(f"{what}: {len(calls)} calls for {len(chunks)} chunks"
                            f"{' and the flush' if flush else ''} without an error: {run}")


def show_run(run):
    if "calls" not in run:
        return f"valid {json.dumps(run.get('valid'))}"
    text = json.dumps(run["calls"], separators=(",", ":"))
    err = run.get("error")
    if err is not None:
        parts = [f"call={err.get('call')}"]
        for key in ("valid_up_to", "error_len"):
            if key in err:
                parts.append(f"{key}={'null' if err[key] is None else err[key]}")
        text += f" error({', '.join(parts)})"
    return text


def run_differs(got, want):
    """Whether an answer differs from the model's. The erroring call may hold
    [] or what the model decided before the error; valid_up_to and error_len
    are compared where the adapter gives them (a library that does not tell
    leaves them out)."""
    if "calls" not in got:  # a validator
        return got.get("valid") != ("error" not in want and FFFD not in sum(want["calls"], []))
    if ("error" in got) != ("error" in want):
        return True
    gc, wc = got["calls"], want["calls"]
    if "error" not in got:
        return gc != wc
    ge, we = got["error"], want["error"]
    if ge.get("call") != we["call"] or gc[:-1] != wc[:-1] or gc[-1] not in ([], wc[-1]):
        return True
    return any(key in ge and ge[key] != we[key] for key in ("valid_up_to", "error_len"))


def stream_findings(ans, chunks, flush, mode):
    want = model_stream(chunks, flush, mode == "strict")
    if run_differs(ans, want):
        return [f"DIFF stream {mode} {show_hex_chunks(chunks, flush)}: "
                f"{show_run(ans)}, expected: {show_run(want)}"]
    return []


def reuse_findings(ans, inputs, mode):
    want = model_reuse(inputs, mode == "strict")
    if any(run_differs(g, w) for g, w in zip(ans["runs"], want)):
        shown = " ; ".join(show_hex_chunks(c, f) for c, f in inputs)
        got = " ; ".join(show_run(r) for r in ans["runs"])
        exp = " ; ".join(show_run(r) for r in want)
        return [f"DIFF reuse {mode} {shown}: {got}, expected: {exp}"]
    return []


def check_stream_answer(ans, payload, caps):
    """A stream or reuse answer: a bad request where the adapter does not
    claim the mode (or reuse), else the shape of docs/protocol.md."""
    op, mode, body = payload
    claimed = f"stream-{mode}" in caps and (op == "stream" or "reuse" in caps)
    if not claimed:
        if not (isinstance(ans.get("error"), str) and ans["error"].startswith("bad request")):
            raise ProtocolError(f"{op} in mode {mode} is not claimed, so it must be a bad request: {ans}")
        return False
    if "error" in ans and isinstance(ans["error"], str):
        raise ProtocolError(f"{op} {mode} {body}: refused although claimed: {ans}")
    if op == "stream":
        chunks, flush = body
        check_run(ans, chunks, flush, mode, caps, f"stream {mode} {show_hex_chunks(chunks, flush)}",
                  sum(len(c) // 2 for c in chunks))
        return True
    if set(ans) != {"id", "runs"} or not isinstance(ans["runs"], list):
        raise ProtocolError(f"reuse {mode}: answer must be id and a 'runs' list: {ans}")
    if len(ans["runs"]) != len(body):
        raise ProtocolError(f"reuse {mode}: {len(ans['runs'])} runs for {len(body)} inputs: {ans}")
    stream_bytes = 0
    for i, (run, (chunks, flush)) in enumerate(zip(ans["runs"], body)):
        stream_bytes += sum(len(c) // 2 for c in chunks)
        check_run(run, chunks, flush, mode, caps, f"reuse {mode} run {i}", stream_bytes)
        if flush or "error" in run:
            stream_bytes = 0  # the next run is a new stream
    return True


def build_requests():
    """[(request line, kind, payload)] in sending order; kind says how to check."""
    reqs = []
    rid = 0
    for case in DECODE_CASES:
        rid += 1
        reqs.append(({"id": rid, "op": "decode", "bytes": case[0]}, "decode", case))
    # a string id must come back as is
    reqs.append(({"id": "str-id", "op": "decode", "bytes": "41"}, "decode",
                 ("41", True, [65], None, None, [65])))
    rid += 1
    reqs.append(({"id": rid, "op": "decode", "bytes": "zz"}, "bad", rid))
    reqs.append(("this is not json", "bad", None))
    for case in ENCODE_CASES:
        rid += 1
        reqs.append(({"id": rid, "op": "encode", "scalar": case[0]}, "encode", case))
    rid += 1
    reqs.append(({"id": rid, "op": "frobnicate"}, "bad", rid))
    # protocol 2: every request in both modes; where the adapter does not
    # claim the mode (or reuse) the answer must be a bad request
    for chunks, flush in STREAM_CASES:
        for mode in ("strict", "lossy"):
            rid += 1
            req = {"id": rid, "op": "stream", "mode": mode, "chunks": chunks}
            if not flush:
                req["flush"] = False
            reqs.append((req, "stream", ("stream", mode, (chunks, flush))))
    for inputs in REUSE_CASES:
        for mode in ("strict", "lossy"):
            rid += 1
            wire = [{"chunks": c} if f else {"chunks": c, "flush": False} for c, f in inputs]
            reqs.append(({"id": rid, "op": "reuse", "mode": mode, "inputs": wire}, "stream",
                         ("reuse", mode, inputs)))
    for bad in BAD_STREAM_REQUESTS:
        rid += 1
        reqs.append(({"id": rid, **bad}, "bad", rid))
    # still serving after the bad requests?
    rid += 1
    reqs.append(({"id": rid, "op": "decode", "bytes": "e282ac"}, "decode",
                 ("e282ac", True, [8364], None, None, [8364])))
    lines = []
    for req, kind, payload in reqs:
        text = req if isinstance(req, str) else json.dumps(req)
        lines.append((text, req.get("id") if isinstance(req, dict) else None, kind, payload))
    return lines


def smoke(adapter, timeout):
    """Returns (status, message, findings, claimed capabilities)."""
    name = adapter["name"]
    requests = build_requests()
    proc = Adapter(adapter["cmd"])
    findings = []
    waiting_for = "hello"
    try:
        proc.write("".join(text + "\n" for text, _, _, _ in requests).encode())
        caps, _hello = check_hello(proc.read_line(timeout), name)
        for text, rid, kind, payload in requests:
            waiting_for = f"answer to {text}"
            ans = parse_line(proc.read_line(timeout), waiting_for)
            if "id" not in ans or ans["id"] != rid or type(ans["id"]) is not type(rid):
                raise ProtocolError(f"answer to {text} has id {ans.get('id')!r}, expected {rid!r}: {ans}")
            if kind == "bad":
                if not (isinstance(ans.get("error"), str) and ans["error"].startswith("bad request")):
                    raise ProtocolError(f"{text} should be a bad request: {ans}")
                if set(ans) != {"id", "error"}:
                    raise ProtocolError(f"bad request answer has extra fields: {ans}")
            elif kind == "decode":
                check_decode_answer(ans, payload[0], caps)
                findings += decode_findings(ans, payload, caps)
            elif kind == "encode":
                check_encode_answer(ans, payload[0], caps)
                if "encode" in caps:
                    findings += encode_findings(ans, payload)
            elif kind == "stream":
                if check_stream_answer(ans, payload, caps):
                    op, mode, body = payload
                    if op == "stream":
                        findings += stream_findings(ans, body[0], body[1], mode)
                    else:
                        findings += reuse_findings(ans, body, mode)
        code, extra = proc.close_and_wait(timeout)
        if code is None:
            raise ProtocolError(f"did not exit within {timeout}s of stdin closing")
        if extra:
            raise ProtocolError(f"printed {len(extra)} unexpected line(s): {extra[0][:200]!r}")
        if code != 0:
            raise ProtocolError(f"exited with status {code} after stdin closed")
    except queue.Empty:
        return ("PROTOCOL-FAIL", f"no {waiting_for} within {timeout}s "
                "(all requests were sent; is every answer flushed as it is written?)", findings, None)
    except (ProtocolError, BrokenPipeError) as e:
        return "PROTOCOL-FAIL", str(e), findings, None
    finally:
        proc.kill()
    if proc.stderr:
        findings.append(f"stderr: {proc.stderr[0][:200]}")
    return "OK", "", findings, caps


def bench(adapter, n, timeout):
    """Pipelined decode throughput: n requests of 16 random bytes, written by
    one thread while this one counts answer lines (parsing only the last, so
    that the measurement is the adapter's speed, not ours); req/s."""
    rng = random.Random(3629)
    payload = "".join(
        json.dumps({"id": i, "op": "decode", "bytes": bytes(rng.getrandbits(8) for _ in range(16)).hex()}) + "\n"
        for i in range(n)).encode()
    proc = subprocess.Popen(adapter["cmd"], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, bufsize=0)
    try:
        fd = proc.stdout.fileno()
        buf = b""
        while b"\n" not in buf:  # the hello: start timing once it is up
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise ProtocolError("no hello")
            buf += chunk
        buf = buf[buf.index(b"\n") + 1:]
        start = time.monotonic()

        def write_all():
            try:
                proc.stdin.write(payload)
                proc.stdin.flush()
            except BrokenPipeError:
                pass

        threading.Thread(target=write_all, daemon=True).start()
        count = buf.count(b"\n")
        tail = buf
        while count < n:
            if time.monotonic() - start > timeout * 10:
                raise ProtocolError(f"only {count} of {n} answers")
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise ProtocolError(f"stdout closed after {count} of {n} answers")
            count += chunk.count(b"\n")
            tail = (tail + chunk)[-(1 << 16):]
        elapsed = time.monotonic() - start
        last = parse_line(tail.rstrip(b"\n").rsplit(b"\n", 1)[-1], "last answer")
        if count != n or last.get("id") != n - 1:
            raise ProtocolError(f"last answer has id {last.get('id')!r}, expected {n - 1}")
        return n / elapsed
    finally:
        proc.kill()
        proc.wait()


# ---- main --------------------------------------------------------------------

def requirements_missing(adapter, after_build):
    """Entries of `requires` that are not there: bare names are commands on
    PATH (checked before the build), paths are files (checked after it)."""
    missing = []
    for req in adapter.get("requires", []):
        if "/" in req:
            if after_build and not os.path.exists(os.path.join(ROOT, req)):
                missing.append(req)
        elif not after_build and shutil.which(req) is None:
            missing.append(req)
    return missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only these adapters")
    ap.add_argument("--bench", type=int, default=0, metavar="N",
                    help="also time N pipelined 16-byte decode requests per adapter")
    ap.add_argument("--no-build", action="store_true", help="do not run the build steps")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for each answer")
    ap.add_argument("--config", default=CONFIG, help="adapter list (default: adapters/adapters.toml)")
    args = ap.parse_args()

    adapters = load_config(args.config)["adapter"]
    names = [a["name"] for a in adapters]
    if len(set(names)) != len(names):
        print("PROTOCOL-FAIL adapters.toml: duplicate names")
        return 1
    if args.only:
        unknown = set(args.only) - set(names)
        if unknown:
            print(f"unknown adapter(s): {', '.join(sorted(unknown))}")
            return 2
        adapters = [a for a in adapters if a["name"] in args.only]

    failed = 0
    counts = {"OK": 0, "SKIP": 0, "PROTOCOL-FAIL": 0}
    speeds = []
    for adapter in adapters:
        name = adapter["name"]
        missing = requirements_missing(adapter, after_build=False)
        if missing:
            print(f"SKIP {name}: {', '.join(missing)} not on PATH")
            counts["SKIP"] += 1
            continue
        build_note = ""
        if adapter.get("build") and not args.no_build:
            res = subprocess.run(adapter["build"], cwd=ROOT, capture_output=True, text=True)
            skips = [l for l in res.stdout.splitlines() if l.startswith(("skip", "FAILED"))]
            build_note = skips[0] if skips else ""
            if res.returncode != 0:
                build_note = f"build exited {res.returncode}: {(res.stderr or res.stdout).strip()[:200]}"
        missing = requirements_missing(adapter, after_build=True)
        if missing:
            why = f" ({build_note})" if build_note else ""
            print(f"SKIP {name}: {', '.join(missing)} missing after build{why}")
            counts["SKIP"] += 1
            continue

        status, message, findings, caps = smoke(adapter, args.timeout)
        counts[status] += 1
        if status == "OK":
            capstr = ",".join(c for c in ("validate", "position", "subpart", "decode", "lossy", "encode",
                                          "stream-strict", "stream-lossy", "reuse") if c in caps)
            extra = ""
            if args.bench:
                try:
                    rate = bench(adapter, args.bench, args.timeout)
                    speeds.append((name, rate))
                    extra = f", {rate:,.0f} decode req/s pipelined"
                except (ProtocolError, queue.Empty, BrokenPipeError) as e:
                    extra = f", bench failed: {e}"
            n_diff = sum(1 for f in findings if f.startswith("DIFF"))
            print(f"OK {name} [{capstr}]: {n_diff} finding(s){extra}")
        else:
            failed += 1
            print(f"PROTOCOL-FAIL {name}: {message}")
        for f in findings:
            print(f"    {f}")

    print(f"{counts['OK']} passed, {counts['PROTOCOL-FAIL']} failed, {counts['SKIP']} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
