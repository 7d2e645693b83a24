// Go's unicode/utf8 and strings packages as utf8conform decoders
// (docs/protocol.md). Built with gccgo (Debian's gccgo package), so the
// library is the Go standard library that ships with gccgo.
//
// Usage: utf8 [go-utf8 | go-tovalidutf8]
//
// go-utf8: unicode/utf8.
//
//	validate  utf8.Valid(b).
//	position  successive utf8.DecodeRune(b[i:]) calls, each advancing by the
//	          width it returns; the first that returns (RuneError, 1) - "If
//	          the encoding is invalid, it returns (RuneError, 1)" - marks the
//	          bad sequence at i. (A real U+FFFD comes back with width 3.)
//	subpart   the width DecodeRune returns for it (Go always says 1), or null
//	          when utf8.FullRune(b[i:]) is false: FullRune "reports whether
//	          the bytes in p begin with a full UTF-8 encoding of a rune. An
//	          invalid encoding is considered a full Rune since it will
//	          convert as a width-1 error rune", so false means "more bytes
//	          could complete it".
//	decode    the runes of that loop, on valid input.
//	lossy     []rune(string(b)), the language's conversion (each invalid
//	          byte becomes U+FFFD, per the Go spec).
//	encode    utf8.AppendRune(nil, rune(n)): "If the rune is out of range,
//	          it appends the encoding of RuneError", so there is no error
//	          return: the bytes are reported as they come. (rune is int32:
//	          values above 0x7FFFFFFF arrive negative, which AppendRune
//	          treats like any other invalid rune.)
//
// go-tovalidutf8: strings.ToValidUTF8(s, "\uFFFD"), which replaces "each run
// of invalid UTF-8 byte sequences" with the replacement string.
//
//	lossy     its output as code points ([]rune of a now valid string).
//
// stream, reuse: NOT claimed by either (protocol 1). unicode/utf8 keeps no
// state: FullRune is the building block Go code uses to write its own
// buffering loop, which here would be the adapter's, not the library's.
// The standard library's stateful rune reader, bufio.Reader.ReadRune,
// pulls from a blocking io.Reader and takes any read error for the end of
// input (a held partial sequence becomes RuneError at once), so it cannot
// be fed chunk by chunk with "more input follows". strings.ToValidUTF8
// takes whole strings.
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"
)

// appendRunes writes ,"key":[r1,r2,...].
func appendRunes(out []byte, key string, runes []rune) []byte {
	out = append(out, `,"`+key+`":[`...)
	for i, r := range runes {
		if i > 0 {
			out = append(out, ',')
		}
		out = strconv.AppendInt(out, int64(r), 10)
	}
	return append(out, ']')
}

type variant struct {
	capabilities string
	decode       func(out []byte, b []byte) []byte
	encode       func(out []byte, n uint32) []byte
}

func decodeUTF8(out []byte, b []byte) []byte {
	var runes []rune
	i := 0
	for i < len(b) {
		r, width := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && width == 1 {
			break
		}
		runes = append(runes, r)
		i += width
	}
	valid := utf8.Valid(b)
	out = append(out, `,"valid":`+strconv.FormatBool(valid)...)
	if valid {
		out = appendRunes(out, "scalars", runes)
	} else {
		out = append(out, `,"valid_up_to":`+strconv.Itoa(i)...)
		if !utf8.FullRune(b[i:]) {
			out = append(out, `,"error_len":null`...)
		} else {
			_, width := utf8.DecodeRune(b[i:])
			out = append(out, `,"error_len":`+strconv.Itoa(width)...)
		}
	}
	return appendRunes(out, "lossy", []rune(string(b)))
}

func encodeUTF8(out []byte, n uint32) []byte {
	enc := utf8.AppendRune(nil, rune(n))
	return append(out, `,"bytes":"`+hex.EncodeToString(enc)+`"`...)
}

func decodeToValid(out []byte, b []byte) []byte {
	return appendRunes(out, "lossy", []rune(strings.ToValidUTF8(string(b), "\uFFFD")))
}

var variants = map[string]variant{
	"go-utf8":        {`["strict","lossy","encode"]`, decodeUTF8, encodeUTF8},
	"go-tovalidutf8": {`["lossy"]`, decodeToValid, nil},
}

// libVersion names the library in the hello. gccgo's runtime.Version()
// says "unknown", so adapters/build.sh compiles in a version.go that sets
// it from `gccgo -dumpfullversion` (gccgo ships its own copy of the
// standard library, so the compiler version is the library version).
var libVersion = runtime.Version()

var hexRe = regexp.MustCompile(`^(?:[0-9a-fA-F]{2})*$`)

func badRequest(id json.RawMessage, what string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	return []byte(fmt.Sprintf(`{"id":%s,"error":"bad request: %s"}`, id, what))
}

func handle(line []byte, v variant) []byte {
	if !json.Valid(line) {
		return badRequest(nil, "not JSON")
	}
	var req map[string]json.RawMessage
	if json.Unmarshal(line, &req) != nil || req == nil {
		return badRequest(nil, "not a JSON object")
	}
	id, ok := req["id"]
	if !ok {
		return badRequest(nil, "missing id")
	}
	rawOp, ok := req["op"]
	if !ok {
		return badRequest(id, "missing op")
	}
	var op string
	_ = json.Unmarshal(rawOp, &op)
	out := append([]byte(`{"id":`), id...)
	switch op {
	case "decode":
		rawBytes, ok := req["bytes"]
		if !ok {
			return badRequest(id, "missing bytes")
		}
		// json.Unmarshal accepts null for a string (leaving it empty): refuse it.
		var h string
		if string(rawBytes) == "null" || json.Unmarshal(rawBytes, &h) != nil || !hexRe.MatchString(h) {
			return badRequest(id, "bad hex in bytes")
		}
		b, _ := hex.DecodeString(h)
		out = v.decode(out, b)
	case "encode":
		if v.encode == nil {
			return badRequest(id, "op encode not supported by this decoder")
		}
		var n uint64
		raw := req["scalar"]
		if raw == nil || string(raw) == "null" || json.Unmarshal(raw, &n) != nil || n > 0xFFFFFFFF {
			return badRequest(id, "scalar must be an integer 0..=4294967295")
		}
		out = v.encode(out, uint32(n))
	default:
		return badRequest(id, "unknown op")
	}
	return append(out, '}')
}

func main() {
	name := "go-utf8"
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	v, ok := variants[name]
	if !ok {
		fmt.Fprintln(os.Stderr, "usage: utf8 [go-utf8|go-tovalidutf8]")
		os.Exit(2)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	fmt.Fprintf(out, `{"hello":{"name":%q,"version":%q,"capabilities":%s}}`+"\n",
		name, libVersion, v.capabilities)
	out.Flush()
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimRight(line, "\r\n")
			out.Write(handle(line, v))
			out.WriteByte('\n')
			out.Flush()
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "read:", err)
			os.Exit(1)
		}
	}
}
