#!/usr/bin/env python3
"""CPython's UTF-8 codec with the surrogate error handlers, as utf8conform
decoders (docs/protocol.md).

    python3 adapters/python/error_handlers.py [python-surrogatepass | python-surrogateescape]

Both handlers are CPython's own (codecs module, "Error Handlers"), called
through the ordinary codec API; the adapter only reads what comes back.

python-surrogatepass
    ``'surrogatepass'``: "Allow encoding and decoding surrogate code point
    (U+D800 - U+DFFF) as normal code point" (utf-8, utf-16, utf-32 only).
    A three-byte sequence ED A0 80 .. ED BF BF decodes to the surrogate it
    spells; any other error is left to stand, as with 'strict'.

    validate, decode
        ``data.decode('utf-8', 'surrogatepass')``: valid when it returns;
        the scalars are ``ord()`` of each character. A Python str holds code
        points, not UTF-16 units: a pair of encoded surrogates (CESU-8's
        ED A0 BD ED B8 80) comes back as the two surrogates CPython produced,
        not as one character.
    position, subpart
        the ``UnicodeDecodeError`` it raises (the handler re-raises the
        decoder's own exception when it cannot pass a surrogate):
        ``.start`` is valid_up_to, ``.end - .start`` error_len, and
        ``.reason == 'unexpected end of data'`` (CPython's word for input
        that ends inside a sequence more bytes could complete) gives null,
        as in bytes_decode.py. The reason comes from the UTF-8 decoder,
        which does not know the handler would accept a surrogate: a
        truncated surrogate such as ED A0 at the end is reported as
        'invalid continuation byte', length 1.
    encode
        ``chr(n).encode('utf-8', 'surrogatepass')``: surrogates are written as
        three bytes. ``chr()`` refuses values above 0x10FFFF:
        "out-of-range"; any other UnicodeEncodeError: "refused".
    not lossy
        the handler has no replacing mode ('surrogatepass' either passes a
        surrogate or raises).

python-surrogateescape
    ``'surrogateescape'`` (PEP 383): "On decoding, replace byte with
    individual surrogate code ranging from U+DC80 to U+DCFF. This code will
    then be turned back into the same byte when the 'surrogateescape' error
    handler is used when encoding the data."

    lossy
        ``data.decode('utf-8', 'surrogateescape')``: it never fails, and each
        byte the UTF-8 decoder rejects comes out as U+DC00 + its value - the
        bytes themselves, smuggled in as lone surrogates. That is its
        replacing mode, reported as it is.
    encode
        ``chr(n).encode('utf-8', 'surrogateescape')``: U+DC80..U+DCFF come
        out as the single byte they stand for (0x80..0xFF, ill-formed UTF-8
        on its own); other surrogates raise UnicodeEncodeError with reason
        'surrogates not allowed': "surrogate". ``chr()`` refuses values
        above 0x10FFFF: "out-of-range".
    not validate, position, subpart, decode
        the handler never fails, so it never says whether the input was
        well-formed (that is plain strict decoding: python-bytes-decode).

Neither variant is RFC 3629 UTF-8 by design: both exist to carry
non-UTF-8 data through a str.
"""

import json
import platform
import sys

VARIANTS = ("python-surrogatepass", "python-surrogateescape")


def decode_surrogatepass(data):
    answer = {}
    try:
        text = data.decode("utf-8", "surrogatepass")
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
    return answer


def decode_surrogateescape(data):
    return {"lossy": [ord(c) for c in data.decode("utf-8", "surrogateescape")]}


def encode_with(handler):
    def encode(scalar):
        try:
            char = chr(scalar)
        except (ValueError, OverflowError):
            return {"error": "out-of-range"}
        try:
            return {"bytes": char.encode("utf-8", handler).hex()}
        except UnicodeEncodeError as e:
            return {"error": "surrogate" if e.reason == "surrogates not allowed" else "refused"}
    return encode


ADAPTERS = {
    "python-surrogatepass": (["validate", "position", "subpart", "decode", "encode"],
                             decode_surrogatepass, encode_with("surrogatepass")),
    "python-surrogateescape": (["lossy", "encode"],
                               decode_surrogateescape, encode_with("surrogateescape")),
}


def parse_hex(text):
    """bytes from hex digits, else None (bytes.fromhex alone accepts spaces)."""
    if not isinstance(text, str) or len(text) % 2 or not all(c in "0123456789abcdefABCDEF" for c in text):
        return None
    return bytes.fromhex(text)


def handle(line, decode, encode):
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
    name = sys.argv[1] if len(sys.argv) > 1 else VARIANTS[0]
    if name not in ADAPTERS:
        sys.exit(f"usage: {sys.argv[0]} [{' | '.join(VARIANTS)}]")
    capabilities, decode, encode = ADAPTERS[name]
    out = sys.stdout
    hello = {"name": name, "version": platform.python_version(), "capabilities": capabilities}
    out.write(json.dumps({"hello": hello}) + "\n")
    out.flush()
    for line in iter(sys.stdin.buffer.readline, b""):
        out.write(json.dumps(handle(line, decode, encode), separators=(",", ":")) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
