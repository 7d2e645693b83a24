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
 *   encode  UTF_8.newEncoder() (REPORT) .encode(CharBuffer of
 *           Character.toChars(cp)). Character.toChars throws
 *           IllegalArgumentException for a value that is not "a valid Unicode
 *           code point" (0..0x10FFFF): "out-of-range"; the encoder's
 *           CharacterCodingException gives no reason: "refused".
 *
 * java-new-string: new String(bytes, StandardCharsets.UTF_8), the everyday
 *           idiom (in Java 17 a separate fast path, not CharsetDecoder).
 *   lossy   its output (it always replaces).
 *   encode  new String(Character.toChars(cp)).getBytes(UTF_8): the bytes as
 *           they come (String.getBytes replaces what it cannot encode).
 *
 * Chars are UTF-16: String.codePoints() joins a well-formed surrogate pair
 * into one code point and yields a lone surrogate as itself.
 *
 * The request reader is a small hand-written JSON parser (no dependencies):
 * it checks the whole line's JSON syntax, needs a top-level object, echoes
 * "id" back verbatim and reads "op", "bytes" and "scalar".
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
import java.util.HashMap;
import java.util.Map;

public final class Utf8Adapter {

    /** A decode or encode implementation: appends ",\"field\":value" pairs. */
    interface Decoder {
        String capabilities();

        void decode(byte[] bytes, StringBuilder out);

        void encode(long scalar, StringBuilder out);
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
            return "[\"strict\",\"lossy\",\"encode\"]";
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
        out.append(",\"").append(key).append("\":[");
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
        } else {
            return bad(id, "unknown op");
        }
        return out.append('}').toString();
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
        String hello = "{\"hello\":{\"name\":\"" + name + "\",\"version\":\"" + System.getProperty("java.version")
                + "\",\"capabilities\":" + decoder.capabilities() + "}}\n";
        out.write(hello.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            out.write((handle(line, decoder) + "\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }
    }
}
