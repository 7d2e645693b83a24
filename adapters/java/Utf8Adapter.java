/*
 * Java's UTF-8 decoders as utf8conform decoders (docs/protocol.md).
 *
 * Build: javac -d adapters/java/build adapters/java/Utf8Adapter.java
 *        (adapters/build.sh java does this)
 * Run:   java -cp adapters/java/build Utf8Adapter VARIANT
 *
 * java-charsetdecoder: java.nio.charset.CharsetDecoder for UTF-8.
 *   strict  StandardCharsets.UTF_8.newDecoder() with CodingErrorAction.REPORT,
 *           one decode(in, out, endOfInput = false) call over the whole input:
 *           - a CoderResult with isError(): invalid; the javadoc says the input
 *             position is then at the start of the erroneous input
 *             (valid_up_to = in.position()) and length() is "the length of
 *             the erroneous input" (error_len);
 *           - UNDERFLOW with input remaining: the decoder stopped because it
 *             needs more bytes to finish a sequence it has not found
 *             malformed ("this method should be invoked again with further
 *             input"): invalid at in.position(), error_len null. (Told that
 *             no more input comes, CharsetDecoder would turn that tail into a
 *             malformed result of length in.remaining(); the library itself
 *             thus distinguishes the two, and the streaming answer is the one
 *             that says so.)
 *           - UNDERFLOW with nothing left: decode(.., true) + flush() finish
 *             it; valid, scalars = the chars it wrote.
 *   lossy   UTF_8.newDecoder() with CodingErrorAction.REPLACE, decode(ByteBuffer).
 *   stream-strict, stream-lossy (protocol 2)
 *           a new UTF_8.newDecoder() per stream request (REPORT for strict,
 *           REPLACE for lossy), driven as the CharsetDecoder javadoc's
 *           "decoding operation": decode(in, out, endOfInput = false) once per
 *           chunk, then decode(in, out, true) and flush(out) for the flush
 *           call. The javadoc says that on UNDERFLOW "the invoker should ...
 *           read more input", and that input the decoder has not consumed
 *           stays in the buffer: "any remaining input ... should be
 *           preserved", so each call's buffer is the bytes the previous calls
 *           left unconsumed followed by the chunk (the flush call's: those
 *           bytes alone, no new ones). That is the API's own state, which a
 *           CharsetDecoder keeps in the caller's buffer instead of itself.
 *           Each call's list is the chars written by that call (OVERFLOW is
 *           drained and the call repeated, as the javadoc says). A strict
 *           call that returns an error CoderResult keeps the chars it wrote
 *           before it, and no more calls are made: valid_up_to is the bytes
 *           consumed by earlier calls plus in.position() ("the input buffer's
 *           position will be at the start of the erroneous input"), both
 *           positions the decoder reported; error_len is length(). Told that
 *           the input has ended, CharsetDecoder reports a held tail as
 *           malformed input of its length (it has no "incomplete" result at
 *           the end), so the flush's error_len is that length, not null.
 *   reuse   NOT claimed: a CharsetDecoder runs one decoding operation at a
 *           time and the javadoc makes the caller start each one with
 *           reset() (decode after flush throws IllegalStateException); the
 *           protocol forbids a reset the library does not do itself, and
 *           with it every run would start afresh by the adapter's hand.
 *   encode  UTF_8.newEncoder() (REPORT) .encode(CharBuffer of
 *           Character.toChars(cp)). Character.toChars throws
 *           IllegalArgumentException for a value that is not "a valid Unicode
 *           code point" (0..0x10FFFF): "out-of-range"; the encoder's
 *           CharacterCodingException gives no reason: "refused".
 *
 * java-new-string: new String(bytes, StandardCharsets.UTF_8), the everyday
 *           idiom (in Java 17 a separate fast path, not CharsetDecoder).
 *           Protocol 1 only: a String constructor has no incremental form
 *           (Java's streaming decoders are CharsetDecoder's, above).
 *   lossy   its output (it always replaces).
 *   encode  new String(Character.toChars(cp)).getBytes(UTF_8): the bytes as
 *           they come (String.getBytes replaces what it cannot encode).
 *
 * Chars are UTF-16: String.codePoints() joins a well-formed surrogate pair
 * into one code point and yields a lone surrogate as itself.
 *
 * The request reader is a small hand-written JSON parser (no dependencies):
 * it checks the whole line's JSON syntax, needs a top-level object, echoes
 * "id" back verbatim and reads "op", "bytes" and "scalar" (and, for stream
 * and reuse requests, "mode", "chunks", "flush" and "inputs", through
 * Json.tree()).
 */

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Utf8Adapter {

    /** A decode or encode implementation: appends ",\"field\":value" pairs. */
    interface Decoder {
        String capabilities();

        void decode(byte[] bytes, StringBuilder out);

        void encode(long scalar, StringBuilder out);

        /** The stream modes this decoder answers ("strict", "lossy"); none by default. */
        default List<String> streamModes() {
            return List.of();
        }

        /** Appends ,"calls":[...] (and ,"error":{...}) for one stream request. */
        default void stream(String mode, List<byte[]> chunks, boolean flush, StringBuilder out) {
            throw new UnsupportedOperationException();
        }
    }

    // ---- java-charsetdecoder ------------------------------------------------

    static final class CharsetDecoderAdapter implements Decoder {
        private final CharsetDecoder strict = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        private final CharsetDecoder lossy = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);

        public String capabilities() {
            return "[\"strict\",\"lossy\",\"encode\",\"stream\"]";
        }

        public List<String> streamModes() {
            return List.of("strict", "lossy");
        }

        public void stream(String mode, List<byte[]> chunks, boolean flush, StringBuilder out) {
            CodingErrorAction action = mode.equals("strict") ? CodingErrorAction.REPORT : CodingErrorAction.REPLACE;
            CharsetDecoder dec = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(action)
                    .onUnmappableCharacter(action);
            ByteBuffer left = ByteBuffer.allocate(0); // input the decoder has not consumed
            long consumed = 0; // bytes it consumed in earlier calls
            int n = chunks.size() + (flush ? 1 : 0);
            out.append(",\"calls\":[");
            String error = null;
            for (int i = 0; i < n && error == null; i++) {
                boolean end = i == chunks.size();
                byte[] chunk = end ? new byte[0] : chunks.get(i);
                ByteBuffer in = ByteBuffer.allocate(left.remaining() + chunk.length);
                in.put(left).put(chunk).flip();
                StringBuilder text = new StringBuilder();
                CharBuffer chars = CharBuffer.allocate(in.remaining() + 2);
                for (;;) {
                    CoderResult r = dec.decode(in, chars, end);
                    if (r.isOverflow()) {
                        text.append(chars.flip());
                        chars.clear();
                        continue;
                    }
                    if (r.isError()) {
                        error = "{\"call\":" + i + ",\"valid_up_to\":" + (consumed + in.position())
                                + ",\"error_len\":" + r.length() + "}";
                    }
                    break;
                }
                while (end && error == null) {
                    CoderResult r = dec.flush(chars);
                    if (!r.isOverflow()) break;
                    text.append(chars.flip());
                    chars.clear();
                }
                text.append(chars.flip());
                consumed += in.position();
                left = in; // what it left unconsumed, presented again with the next chunk
                if (i > 0) out.append(',');
                codePointList(out, text.toString());
            }
            out.append(']');
            if (error != null) out.append(",\"error\":").append(error);
        }

        public void decode(byte[] bytes, StringBuilder out) {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            // UTF-8 never yields more chars than bytes (maxCharsPerByte is 1).
            CharBuffer chars = CharBuffer.allocate(bytes.length + 1);
            strict.reset();
            CoderResult r = strict.decode(in, chars, false);
            if (r.isError()) {
                out.append(",\"valid\":false,\"valid_up_to\":").append(in.position());
                out.append(",\"error_len\":").append(r.length());
            } else if (in.hasRemaining()) {
                out.append(",\"valid\":false,\"valid_up_to\":").append(in.position());
                out.append(",\"error_len\":null");
            } else {
                r = strict.decode(in, chars, true);
                CoderResult f = strict.flush(chars);
                if (r.isError() || f.isError()) {
                    // Not expected with nothing left; report the library's word.
                    out.append(",\"valid\":false,\"valid_up_to\":").append(in.position());
                    out.append(",\"error_len\":").append(r.isError() ? r.length() : f.length());
                } else {
                    chars.flip();
                    out.append(",\"valid\":true");
                    codePoints(out, "scalars", chars.toString());
                }
            }
            try {
                codePoints(out, "lossy", lossy.decode(ByteBuffer.wrap(bytes)).toString());
            } catch (CharacterCodingException e) {
                System.err.println("java-charsetdecoder: REPLACE decoder threw " + e);
            }
        }

        public void encode(long scalar, StringBuilder out) {
            char[] units;
            try {
                // int cast: values above Integer.MAX_VALUE become negative,
                // which toChars rejects exactly as it rejects > 0x10FFFF.
                units = Character.toChars((int) scalar);
            } catch (IllegalArgumentException e) {
                out.append(",\"error\":\"out-of-range\"");
                return;
            }
            try {
                ByteBuffer b = StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap(units));
                hex(out, b);
            } catch (CharacterCodingException e) {
                out.append(",\"error\":\"refused\"");
            }
        }
    }

    // ---- java-new-string ----------------------------------------------------

    static final class NewStringAdapter implements Decoder {
        public String capabilities() {
            return "[\"lossy\",\"encode\"]";
        }

        public void decode(byte[] bytes, StringBuilder out) {
            codePoints(out, "lossy", new String(bytes, StandardCharsets.UTF_8));
        }

        public void encode(long scalar, StringBuilder out) {
            char[] units;
            try {
                units = Character.toChars((int) scalar); // see CharsetDecoderAdapter
            } catch (IllegalArgumentException e) {
                out.append(",\"error\":\"out-of-range\"");
                return;
            }
            hex(out, ByteBuffer.wrap(new String(units).getBytes(StandardCharsets.UTF_8)));
        }
    }

    // ---- output helpers -----------------------------------------------------

    static void codePoints(StringBuilder out, String key, String s) {
        out.append(",\"").append(key).append("\":");
        codePointList(out, s);
    }

    static void codePointList(StringBuilder out, String s) {
        out.append('[');
        int[] cps = s.codePoints().toArray();
        for (int i = 0; i < cps.length; i++) {
            if (i > 0) out.append(',');
            out.append(cps[i]);
        }
        out.append(']');
    }

    static void hex(StringBuilder out, ByteBuffer b) {
        out.append(",\"bytes\":\"");
        while (b.hasRemaining()) {
            int v = b.get() & 0xff;
            out.append(Character.forDigit(v >> 4, 16)).append(Character.forDigit(v & 15, 16));
        }
        out.append('"');
    }

    // ---- a minimal JSON reader ----------------------------------------------

    /** Thrown for a line that is not JSON. */
    static final class NotJson extends Exception {
        NotJson() {
            super(null, null, false, false);
        }
    }

    /** Parses one JSON text; remembers the raw text of top-level members. */
    static final class Json {
        private final String s;
        private int p;
        /** Top-level member name -> raw JSON text of its value. */
        final Map<String, String> members = new HashMap<>();
        boolean isObject;

        Json(String s) throws NotJson {
            this.s = s;
            ws();
            isObject = p < s.length() && s.charAt(p) == '{';
            value(0, true);
            ws();
            if (p != s.length()) throw new NotJson();
        }

        private void ws() {
            while (p < s.length() && " \t\r\n".indexOf(s.charAt(p)) >= 0) p++;
        }

        private char peek() throws NotJson {
            if (p >= s.length()) throw new NotJson();
            return s.charAt(p);
        }

        private void expect(char c) throws NotJson {
            if (peek() != c) throw new NotJson();
            p++;
        }

        private void value(int depth, boolean top) throws NotJson {
            if (depth > 64) throw new NotJson();
            char c = peek();
            if (c == '{') {
                p++;
                ws();
                if (peek() == '}') { p++; return; }
                for (;;) {
                    ws();
                    String key = string();
                    ws();
                    expect(':');
                    ws();
                    int start = p;
                    value(depth + 1, false);
                    if (top) members.put(key, s.substring(start, p));
                    ws();
                    if (peek() == ',') { p++; continue; }
                    expect('}');
                    return;
                }
            } else if (c == '[') {
                p++;
                ws();
                if (peek() == ']') { p++; return; }
                for (;;) {
                    ws();
                    value(depth + 1, false);
                    ws();
                    if (peek() == ',') { p++; continue; }
                    expect(']');
                    return;
                }
            } else if (c == '"') {
                string();
            } else if (s.startsWith("true", p)) {
                p += 4;
            } else if (s.startsWith("false", p)) {
                p += 5;
            } else if (s.startsWith("null", p)) {
                p += 4;
            } else {
                number();
            }
        }

        /** Parses a JSON string at p and returns its decoded value. */
        String string() throws NotJson {
            expect('"');
            StringBuilder b = new StringBuilder();
            for (;;) {
                char c = peek();
                p++;
                if (c == '"') return b.toString();
                if (c < 0x20) throw new NotJson();
                if (c != '\\') { b.append(c); continue; }
                char e = peek();
                p++;
                switch (e) {
                    case '"': case '\\': case '/': b.append(e); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    case 't': b.append('\t'); break;
                    case 'u':
                        if (p + 4 > s.length()) throw new NotJson();
                        try {
                            b.append((char) Integer.parseInt(s.substring(p, p + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw new NotJson();
                        }
                        p += 4;
                        break;
                    default: throw new NotJson();
                }
            }
        }

        private void number() throws NotJson {
            int start = p;
            if (p < s.length() && s.charAt(p) == '-') p++;
            if (p < s.length() && s.charAt(p) == '0') p++;
            else if (!digits()) throw new NotJson();
            if (p < s.length() && s.charAt(p) == '.') { p++; if (!digits()) throw new NotJson(); }
            if (p < s.length() && (s.charAt(p) == 'e' || s.charAt(p) == 'E')) {
                p++;
                if (p < s.length() && (s.charAt(p) == '+' || s.charAt(p) == '-')) p++;
                if (!digits()) throw new NotJson();
            }
            if (p == start) throw new NotJson();
        }

        private boolean digits() {
            int start = p;
            while (p < s.length() && Character.isDigit(s.charAt(p)) && s.charAt(p) < 128) p++;
            return p > start;
        }

        /** The decoded value of member `key` if it is a JSON string, else null. */
        String stringMember(String key) {
            String raw = members.get(key);
            if (raw == null || !raw.startsWith("\"")) return null;
            try {
                return new Json(raw).stringValue();
            } catch (NotJson e) {
                return null;
            }
        }

        private String stringValue() throws NotJson {
            p = 0;
            return string();
        }

        /** The JSON value of member `key` as Map / List / String / Boolean /
         *  NULL / Double, or null when absent. */
        Object tree(String key) {
            String raw = members.get(key);
            if (raw == null) return null;
            try {
                Json j = new Json(raw);
                j.p = 0;
                return j.build(0);
            } catch (NotJson e) {
                return null; // cannot happen: raw was checked with the line
            }
        }

        /** JSON null in a tree. */
        static final Object NULL = new Object();

        private Object build(int depth) throws NotJson {
            ws();
            char c = peek();
            if (c == '{') {
                p++;
                Map<String, Object> m = new LinkedHashMap<>();
                ws();
                if (peek() == '}') { p++; return m; }
                for (;;) {
                    ws();
                    String key = string();
                    ws();
                    expect(':');
                    m.put(key, build(depth + 1));
                    ws();
                    if (peek() == ',') { p++; continue; }
                    expect('}');
                    return m;
                }
            } else if (c == '[') {
                p++;
                List<Object> l = new ArrayList<>();
                ws();
                if (peek() == ']') { p++; return l; }
                for (;;) {
                    l.add(build(depth + 1));
                    ws();
                    if (peek() == ',') { p++; continue; }
                    expect(']');
                    return l;
                }
            } else if (c == '"') {
                return string();
            } else if (s.startsWith("true", p)) {
                p += 4;
                return Boolean.TRUE;
            } else if (s.startsWith("false", p)) {
                p += 5;
                return Boolean.FALSE;
            } else if (s.startsWith("null", p)) {
                p += 4;
                return NULL;
            }
            int start = p;
            number();
            return Double.valueOf(s.substring(start, p));
        }
    }

    // ---- the serving loop ---------------------------------------------------

    static String handle(String line, Decoder decoder) {
        Json req;
        try {
            req = new Json(line);
        } catch (NotJson e) {
            return bad(null, "not JSON");
        }
        if (!req.isObject) return bad(null, "not a JSON object");
        String id = req.members.get("id");
        if (id == null) return bad(null, "missing id");
        if (!req.members.containsKey("op")) return bad(id, "missing op");
        String op = req.stringMember("op");
        StringBuilder out = new StringBuilder("{\"id\":").append(id);
        if ("decode".equals(op)) {
            if (!req.members.containsKey("bytes")) return bad(id, "missing bytes");
            byte[] bytes = parseHex(req.stringMember("bytes"));
            if (bytes == null) return bad(id, "bad hex in bytes");
            decoder.decode(bytes, out);
        } else if ("encode".equals(op)) {
            String raw = req.members.get("scalar");
            long v = -1;
            if (raw != null && raw.matches("0|[1-9][0-9]{0,9}")) v = Long.parseLong(raw);
            if (v < 0 || v > 0xFFFFFFFFL) return bad(id, "scalar must be an integer 0..=4294967295");
            decoder.encode(v, out);
        } else if ("stream".equals(op) && !decoder.streamModes().isEmpty()) {
            if (!req.members.containsKey("mode")) return bad(id, "missing mode");
            String mode = req.stringMember("mode");
            if (mode == null || !decoder.streamModes().contains(mode)) {
                return bad(id, "mode must be one of " + String.join(", ", decoder.streamModes()));
            }
            Map<String, Object> input = new HashMap<>();
            for (String key : new String[] {"chunks", "flush"}) {
                if (req.members.containsKey(key)) input.put(key, req.tree(key));
            }
            List<byte[]> chunks = new ArrayList<>();
            String wrong = streamInput(input, chunks);
            if (wrong != null) return bad(id, wrong);
            decoder.stream(mode, chunks, !Boolean.FALSE.equals(input.get("flush")), out);
        } else {
            return bad(id, "unknown op");
        }
        return out.append('}').toString();
    }

    /** Reads {"chunks": [hex...], "flush": bool} into `chunks`; returns what
     *  is wrong with it, or null. */
    static String streamInput(Object obj, List<byte[]> chunks) {
        if (!(obj instanceof Map)) return "an input is not an object";
        Map<?, ?> m = (Map<?, ?>) obj;
        if (!m.containsKey("chunks")) return "missing chunks";
        if (!(m.get("chunks") instanceof List)) return "chunks is not a list";
        for (Object c : (List<?>) m.get("chunks")) {
            byte[] b = c instanceof String ? parseHex((String) c) : null;
            if (b == null) return "bad hex in chunks";
            chunks.add(b);
        }
        if (m.containsKey("flush") && !(m.get("flush") instanceof Boolean)) return "flush is not a boolean";
        return null;
    }

    static String bad(String id, String what) {
        return "{\"id\":" + (id == null ? "null" : id) + ",\"error\":\"bad request: " + what + "\"}";
    }

    static byte[] parseHex(String h) {
        if (h == null || h.length() % 2 != 0) return null;
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) {
            int hi = Character.digit(h.charAt(2 * i), 16), lo = Character.digit(h.charAt(2 * i + 1), 16);
            // Character.digit also accepts non-ASCII digits: allow ASCII only.
            if (hi < 0 || lo < 0 || h.charAt(2 * i) > 127 || h.charAt(2 * i + 1) > 127) return null;
            b[i] = (byte) (hi << 4 | lo);
        }
        return b;
    }

    public static void main(String[] args) throws IOException {
        String name = args.length > 0 ? args[0] : "java-charsetdecoder";
        Decoder decoder;
        if (name.equals("java-charsetdecoder")) decoder = new CharsetDecoderAdapter();
        else if (name.equals("java-new-string")) decoder = new NewStringAdapter();
        else {
            System.err.println("usage: Utf8Adapter [java-charsetdecoder|java-new-string]");
            System.exit(2);
            return;
        }
        OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        // Requests are ASCII JSON; reading as ISO-8859-1 never fails on any byte.
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.ISO_8859_1));
        String protocol = decoder.streamModes().isEmpty() ? "" : ",\"protocol\":2";
        String hello = "{\"hello\":{\"name\":\"" + name + "\",\"version\":\"" + System.getProperty("java.version")
                + "\"" + protocol + ",\"capabilities\":" + decoder.capabilities() + "}}\n";
        out.write(hello.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            out.write((handle(line, decoder) + "\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }
    }
}
