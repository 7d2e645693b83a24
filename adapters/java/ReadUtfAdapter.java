/*
 * Java's Modified UTF-8 (java.io.DataInput) as the utf8conform decoder
 * "java-readutf" (docs/protocol.md).
 *
 * Build: javac -d adapters/java/readutf/build adapters/java/ReadUtfAdapter.java
 *        (adapters/build.sh readutf does this)
 * Run:   java -cp adapters/java/readutf/build ReadUtfAdapter
 *
 * DataInput's javadoc, "Modified UTF-8", is the format: '\u0000' and
 * '\u0080'..'\u07FF' in two bytes, '\u0800'..'\uFFFF' in three, "only the
 * 1-byte, 2-byte, and 3-byte formats are used", and supplementary characters
 * are "represented in the form of surrogate pairs" (each surrogate in three
 * bytes, as CESU-8 does). It is the format of class files, JNI and
 * serialization, and readUTF is the library's decoder for it.
 *
 *   validate, decode
 *       new DataInputStream(new ByteArrayInputStream(prefix + bytes))
 *       .readUTF(), where prefix is the two-byte big-endian length readUTF
 *       expects first ("two bytes are read and used to construct an unsigned
 *       16-bit integer ... the number of additional bytes to be read"). It
 *       returns: valid, scalars = String.codePoints() of the result. The
 *       result is UTF-16: codePoints() joins a well-formed surrogate pair
 *       into one code point and gives a lone surrogate as itself, as the
 *       protocol asks of a UTF-16 decoder. It throws UTFDataFormatException
 *       ("If the bytes do not represent a valid modified UTF-8 encoding of a
 *       string"): invalid.
 *   encode
 *       new DataOutputStream(ByteArrayOutputStream).writeUTF(
 *       new String(Character.toChars(n))), less the two-byte length writeUTF
 *       writes first. Character.toChars makes a surrogate pair above U+FFFF
 *       (which writeUTF then writes as two 3-byte sequences, six bytes) and a
 *       lone char for a surrogate value (written as its three bytes), and
 *       throws IllegalArgumentException above 0x10FFFF, which is not "a
 *       valid Unicode code point": "out-of-range" (the same refusal the
 *       java-charsetdecoder adapter reports). U+0000 comes out as C0 80.
 *       writeUTF's own UTFDataFormatException (over 65535 bytes) cannot
 *       happen for one character.
 *
 * Not claimed:
 *   position  the exception's message says "malformed input around byte N"
 *             or "partial character at end"; N is where readUTF's loop had
 *             got to (after the bad sequence, for a bad continuation byte),
 *             not where the bad sequence starts, and no field of the
 *             exception holds it.
 *   subpart   no length anywhere.
 *   lossy     readUTF has no replacing mode.
 *
 * Input longer than 65535 bytes cannot be given a length prefix: such a
 * request is answered as a bad request.
 *
 * The request reader is a small hand-written JSON parser (no dependencies):
 * it checks the whole line's JSON syntax, needs a top-level object, echoes
 * "id" back verbatim and reads "op", "bytes" and "scalar".
 */

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UTFDataFormatException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

public final class ReadUtfAdapter {

    static final String NAME = "java-readutf";

    // ---- the library calls --------------------------------------------------

    static void decode(byte[] bytes, StringBuilder out) {
        byte[] framed = new byte[bytes.length + 2];
        framed[0] = (byte) (bytes.length >>> 8);
        framed[1] = (byte) bytes.length;
        System.arraycopy(bytes, 0, framed, 2, bytes.length);
        String s;
        try {
            s = new DataInputStream(new ByteArrayInputStream(framed)).readUTF();
        } catch (UTFDataFormatException e) {
            out.append(",\"valid\":false");
            return;
        } catch (IOException e) {
            // EOFException cannot happen: the prefix is the array's length.
            throw new IllegalStateException("readUTF: " + e, e);
        }
        out.append(",\"valid\":true,\"scalars\":[");
        int[] cps = s.codePoints().toArray();
        for (int i = 0; i < cps.length; i++) {
            if (i > 0) out.append(',');
            out.append(cps[i]);
        }
        out.append(']');
    }

    static void encode(long scalar, StringBuilder out) {
        char[] units;
        try {
            // int cast: values above Integer.MAX_VALUE become negative,
            // which toChars rejects exactly as it rejects > 0x10FFFF.
            units = Character.toChars((int) scalar);
        } catch (IllegalArgumentException e) {
            out.append(",\"error\":\"out-of-range\"");
            return;
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try {
            new DataOutputStream(buf).writeUTF(new String(units));
        } catch (IOException e) {
            out.append(",\"error\":\"refused\"");
            return;
        }
        byte[] b = buf.toByteArray();
        out.append(",\"bytes\":\"");
        for (int i = 2; i < b.length; i++) { // past writeUTF's length prefix
            int v = b[i] & 0xff;
            out.append(Character.forDigit(v >> 4, 16)).append(Character.forDigit(v & 15, 16));
        }
        out.append('"');
    }

    // ---- a minimal JSON reader ----------------------------------------------

    static final class NotJson extends Exception {
        NotJson() {
            super(null, null, false, false);
        }
    }

    /** Parses one JSON text; keeps the raw text of top-level members. */
    static final class Json {
        private final String s;
        private int p;
        final Map<String, String> members = new HashMap<>();
        final boolean isObject;

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
            if (c == '{' || c == '[') {
                char close = c == '{' ? '}' : ']';
                p++;
                ws();
                if (peek() == close) { p++; return; }
                for (;;) {
                    ws();
                    String key = null;
                    if (c == '{') {
                        key = string();
                        ws();
                        expect(':');
                        ws();
                    }
                    int start = p;
                    value(depth + 1, false);
                    if (top && key != null) members.put(key, s.substring(start, p));
                    ws();
                    if (peek() == ',') { p++; continue; }
                    expect(close);
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
                        int v = 0;
                        for (int i = 0; i < 4; i++) {
                            int d = Character.digit(s.charAt(p + i), 16);
                            if (d < 0 || s.charAt(p + i) > 127) throw new NotJson();
                            v = v << 4 | d;
                        }
                        b.append((char) v);
                        p += 4;
                        break;
                    default: throw new NotJson();
                }
            }
        }

        private void number() throws NotJson {
            if (p < s.length() && s.charAt(p) == '-') p++;
            if (p < s.length() && s.charAt(p) == '0') p++;
            else if (!digits()) throw new NotJson();
            if (p < s.length() && s.charAt(p) == '.') { p++; if (!digits()) throw new NotJson(); }
            if (p < s.length() && (s.charAt(p) == 'e' || s.charAt(p) == 'E')) {
                p++;
                if (p < s.length() && (s.charAt(p) == '+' || s.charAt(p) == '-')) p++;
                if (!digits()) throw new NotJson();
            }
        }

        private boolean digits() {
            int start = p;
            while (p < s.length() && s.charAt(p) >= '0' && s.charAt(p) <= '9') p++;
            return p > start;
        }

        /** The decoded value of member `key` if it is a JSON string, else null. */
        String stringMember(String key) {
            String raw = members.get(key);
            if (raw == null || !raw.startsWith("\"")) return null;
            try {
                Json j = new Json(raw);
                j.p = 0;
                return j.string();
            } catch (NotJson e) {
                return null;
            }
        }
    }

    // ---- the serving loop ---------------------------------------------------

    static String handle(String line) {
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
            if (bytes.length > 0xFFFF) {
                return bad(id, "input over 65535 bytes, more than readUTF's 2-byte length prefix can say");
            }
            decode(bytes, out);
        } else if ("encode".equals(op)) {
            String raw = req.members.get("scalar");
            long v = -1;
            if (raw != null && raw.matches("0|[1-9][0-9]{0,9}")) v = Long.parseLong(raw);
            if (v < 0 || v > 0xFFFFFFFFL) return bad(id, "scalar must be an integer 0..=4294967295");
            encode(v, out);
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
            char c1 = h.charAt(2 * i), c2 = h.charAt(2 * i + 1);
            int hi = Character.digit(c1, 16), lo = Character.digit(c2, 16);
            // Character.digit also accepts non-ASCII digits: ASCII only.
            if (hi < 0 || lo < 0 || c1 > 127 || c2 > 127) return null;
            b[i] = (byte) (hi << 4 | lo);
        }
        return b;
    }

    public static void main(String[] args) throws IOException {
        OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        // Requests are ASCII JSON; reading as ISO-8859-1 never fails on any byte.
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.ISO_8859_1));
        String hello = "{\"hello\":{\"name\":\"" + NAME + "\",\"version\":\"" + System.getProperty("java.version")
                + "\",\"max_input\":65535,\"capabilities\":[\"validate\",\"decode\",\"encode\"]}}\n";
        out.write(hello.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            out.write((handle(line) + "\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }
    }
}
