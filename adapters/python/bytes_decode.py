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

CPython documents (and implements) the Unicode "maximal subpart" practice
for its UTF-8 decoder, so all of strict, lossy and encode are claimed.
"""

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
    return {"id": rid, "error": "bad request: unknown op"}


def main():
    out = sys.stdout
    hello = {"name": NAME, "version": platform.python_version(), "capabilities": ["strict", "lossy", "encode"]}
    out.write(json.dumps({"hello": hello}) + "\n")
    out.flush()
    # Read raw lines (json.loads takes bytes; a line that is not UTF-8 is then
    # just "not JSON", whatever the locale says stdin's encoding is).
    for line in iter(sys.stdin.buffer.readline, b""):
        out.write(json.dumps(handle(line), separators=(",", ":")) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
