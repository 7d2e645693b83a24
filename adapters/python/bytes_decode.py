#!/usr/bin/env python3
"""CPython's UTF-8 codec as the utf8conform decoder "python-bytes-decode".

Speaks the JSON-lines protocol of docs/protocol.md on stdin/stdout.

Library calls and what each capability maps to:

  validate, decode
      ``data.decode('utf-8', 'strict')``: valid when it returns; the scalars
      are ``ord()`` of each character of the returned str.
  position, subpart
      the ``UnicodeDecodeError`` it raises: ``.start`` is the index of the
      first bad byte (valid_up_to) and ``.end - .start`` the number of bytes
      CPython says are bad (error_len). CPython's ``.reason`` tells a
      truncated sequence apart: it is 'unexpected end of data' when the input
      ends inside a sequence that more bytes could complete ('invalid start
      byte' / 'invalid continuation byte' otherwise); for that reason only,
      error_len is null.
  lossy
      ``data.decode('utf-8', 'replace')``: whatever CPython puts in place of
      bad bytes.
  encode
      ``chr(n).encode('utf-8')``. ``chr()`` raises ValueError for values
      above 0x10FFFF ("chr() arg not in range(0x110000)"): "out-of-range".
      ``str.encode`` raises UnicodeEncodeError with reason 'surrogates not
      allowed' for U+D800..U+DFFF: "surrogate". Any other refusal: "refused".

  stream-strict, stream-lossy (protocol 2)
      ``codecs.getincrementaldecoder('utf-8')(errors)``, errors 'strict' or
      'replace', one new object per stream request: ``decode(chunk,
      final=False)`` per chunk, then ``decode(b'', final=True)`` for the
      flush. Each call's str is that call's list. A strict call that raises
      UnicodeDecodeError returns nothing ([]), and no more calls are made.
      The exception's ``.start``/``.end`` index ``e.object``, which is what
      the decoder decoded in that call: the bytes it had buffered from
      earlier calls followed by this call's chunk
      (codecs.BufferedIncrementalDecoder: ``data = self.buffer + input``).
      ``e.object`` ends where the bytes fed so far end, so its first byte is
      at whole-stream offset ``fed - len(e.object)``, and valid_up_to is that
      plus ``.start``: arithmetic on what the exception says, no search of
      the input. error_len is ``.end - .start``, null only for the reason
      'unexpected end of data' (as for decode).
  reuse
      the same calls, all inputs on one decoder object, with no reset():
      whatever the object keeps after a final call or after raising is what
      the next input meets. Offsets count from the start of the stream an
      input belongs to: a new stream begins with each input, except that an
      input after one left open (``"flush": false``, no error) continues it.
      Should the object still hold bytes of an earlier stream (it keeps its
      buffer when it raises) and the error begin in them, the position lies
      before this stream's first byte, which a whole-stream offset cannot
      say: valid_up_to is then left out (error_len is still the library's).

CPython documents (and implements) the Unicode "maximal subpart" practice
for its UTF-8 decoder, so all of strict, lossy and encode are claimed; its
incremental decoder is the same codec behind a buffer, so both stream modes
and reuse are claimed.
"""

import codecs
import json
import platform
import sys

NAME = "python-bytes-decode"


def decode(data):
    """The response fields for one decode request."""
    answer = {}
    try:
        text = data.decode("utf-8", "strict")
    except UnicodeDecodeError as e:
        answer["valid"] = False
        answer["valid_up_to"] = e.start
        if e.reason == "unexpected end of data":
            answer["error_len"] = None
        else:
            answer["error_len"] = e.end - e.start
    else:
        answer["valid"] = True
        answer["scalars"] = [ord(c) for c in text]
    answer["lossy"] = [ord(c) for c in data.decode("utf-8", "replace")]
    return answer


def encode(scalar):
    """The response fields for one encode request."""
    try:
        char = chr(scalar)
    except (ValueError, OverflowError):
        return {"error": "out-of-range"}
    try:
        return {"bytes": char.encode("utf-8").hex()}
    except UnicodeEncodeError as e:
        return {"error": "surrogate" if e.reason == "surrogates not allowed" else "refused"}


class Stream:
    """One incremental decoder object and the bytes fed to its current stream."""

    def __init__(self, mode):
        errors = "strict" if mode == "strict" else "replace"
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors)
        self.fed = 0  # bytes fed since the current stream began
        self.open = False  # the last run was left open (flush false, no error)

    def run(self, chunks, flush):
        """Feeds one input; returns its answer fields (calls, error)."""
        if not self.open:
            self.fed = 0
        calls = []
        inputs = [(c, False) for c in chunks] + ([(b"", True)] if flush else [])
        for index, (data, final) in enumerate(inputs):
            self.fed += len(data)
            try:
                text = self.decoder.decode(data, final)
            except UnicodeDecodeError as e:
                calls.append([])
                error = {"call": index}
                position = self.fed - len(e.object) + e.start
                if position >= 0:
                    error["valid_up_to"] = position
                error["error_len"] = None if e.reason == "unexpected end of data" else e.end - e.start
                self.open = False
                return {"calls": calls, "error": error}
            calls.append([ord(c) for c in text])
        self.open = not flush
        return {"calls": calls}


MODES = ("strict", "lossy")


def parse_stream_input(obj):
    """(chunks as bytes, flush) from {"chunks": [...], "flush": bool}, or a
    string saying what is wrong."""
    if not isinstance(obj, dict):
        return "an input is not an object"
    if "chunks" not in obj:
        return "missing chunks"
    chunks = obj["chunks"]
    if not isinstance(chunks, list):
        return "chunks is not a list"
    flush = obj.get("flush", True)
    if type(flush) is not bool:
        return "flush is not a boolean"
    parsed = [parse_hex(c) for c in chunks]
    if any(c is None for c in parsed):
        return "bad hex in chunks"
    return parsed, flush


def stream_request(request):
    """The answer fields of a stream or reuse request, or an error string."""
    mode = request.get("mode")
    if "mode" not in request:
        return "missing mode"
    if mode not in MODES:
        return "mode must be one of " + ", ".join(MODES)
    if request["op"] == "stream":
        parsed = parse_stream_input(request)
        if isinstance(parsed, str):
            return parsed
        return Stream(mode).run(*parsed)
    if "inputs" not in request:
        return "missing inputs"
    if not isinstance(request["inputs"], list):
        return "inputs is not a list"
    inputs = [parse_stream_input(i) for i in request["inputs"]]
    for parsed in inputs:
        if isinstance(parsed, str):
            return parsed
    stream = Stream(mode)
    return {"runs": [stream.run(*parsed) for parsed in inputs]}


def parse_hex(text):
    """bytes from lowercase (or uppercase) hex digits, else None.

    bytes.fromhex alone would also accept spaces, which the protocol does not.
    """
    if not isinstance(text, str) or len(text) % 2 or not all(c in "0123456789abcdefABCDEF" for c in text):
        return None
    return bytes.fromhex(text)


def handle(line):
    """One request line in, one response object out."""
    try:
        request = json.loads(line)
    except ValueError:
        return {"id": None, "error": "bad request: not JSON"}
    if not isinstance(request, dict):
        return {"id": None, "error": "bad request: not a JSON object"}
    if "id" not in request:
        return {"id": None, "error": "bad request: missing id"}
    rid = request["id"]
    op = request.get("op")
    if op is None:
        return {"id": rid, "error": "bad request: missing op"}
    if op == "decode":
        if "bytes" not in request:
            return {"id": rid, "error": "bad request: missing bytes"}
        data = parse_hex(request["bytes"])
        if data is None:
            return {"id": rid, "error": "bad request: bad hex in bytes"}
        return {"id": rid, **decode(data)}
    if op == "encode":
        scalar = request.get("scalar")
        if type(scalar) is not int or not 0 <= scalar <= 0xFFFFFFFF:
            return {"id": rid, "error": "bad request: scalar must be an integer 0..=4294967295"}
        return {"id": rid, **encode(scalar)}
    if op in ("stream", "reuse"):
        answer = stream_request(request)
        if isinstance(answer, str):
            return {"id": rid, "error": "bad request: " + answer}
        return {"id": rid, **answer}
    return {"id": rid, "error": "bad request: unknown op"}


def main():
    out = sys.stdout
    hello = {"name": NAME, "version": platform.python_version(), "protocol": 2,
             "capabilities": ["strict", "lossy", "encode", "stream", "reuse"]}
    out.write(json.dumps({"hello": hello}) + "\n")
    out.flush()
    # Read raw lines (json.loads takes bytes; a line that is not UTF-8 is then
    # just "not JSON", whatever the locale says stdin's encoding is).
    for line in iter(sys.stdin.buffer.readline, b""):
        out.write(json.dumps(handle(line), separators=(",", ":")) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
