/*
 * proto.h — the utf8conform JSON-lines protocol (docs/protocol.md) for the C
 * adapters, written once and included by every C adapter in this folder.
 *
 * An adapter defines its hello (name, version, capabilities) and two
 * callbacks, then calls proto_serve():
 *
 *     static void my_decode(const unsigned char *b, size_t n);   // writes fields
 *     static void my_encode(uint32_t scalar);                   // writes fields
 *     int main(void) { return proto_serve("name", "1.2", "[\"strict\"]",
 *                                         my_decode, my_encode); }
 *
 * proto_serve() prints the hello, then reads stdin line by line. For each
 * line it parses the request, answers bad requests itself, and otherwise
 * opens the response object ({"id": ...), lets the callback add fields with
 * the out_*() helpers below, closes the object, writes "\n" and flushes, so
 * a pipelining harness sees every answer as soon as it is computed. It
 * returns 0 when stdin reaches end of file.
 *
 * Protocol 2 (streaming): an adapter whose library has an incremental
 * decoder also fills a struct proto_stream (modes, reuse, and three
 * callbacks: open a decoder object, run one input on it, close it) and calls
 * proto_serve_stream() instead. This file parses and checks "stream" and
 * "reuse" requests (mode, chunks, flush, inputs) before any callback runs,
 * answers the bad ones itself, and writes the "runs" wrapping; the run
 * callback writes "calls" (out_calls_open, out_call_*, out_calls_close) and
 * any "error" (out_stream_error). For reuse it tells each run whether it
 * continues the stream of the run before (that one left open with flush
 * false and stopped by no error), so that every adapter counts whole-stream
 * offsets from the same start.
 *
 * The JSON reader is deliberately small: it checks the full JSON grammar of
 * the line (so "not JSON" is detected honestly), requires a top-level object,
 * and keeps the raw text of the members it needs: "id" (echoed back
 * verbatim), "op", "bytes", "scalar", "mode", "chunks", "flush", "inputs".
 * Strings used as "op", "mode" or hex must be ASCII (escapes of ASCII
 * characters are decoded; anything else makes the value unusable, which can
 * only be a bad request for these fields).
 * This is protocol plumbing, not UTF-8 logic: no adapter decodes UTF-8 here.
 */
#ifndef UTF8CONFORM_PROTO_H
#define UTF8CONFORM_PROTO_H

#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*proto_decode_fn)(const unsigned char *bytes, size_t len);
typedef void (*proto_encode_fn)(uint32_t scalar);

/* ---- writing a response ------------------------------------------------ */

/* Each helper appends `,"key":value` to the open response object. */
static inline void out_bool(const char *key, int v) {
    printf(",\"%s\":%s", key, v ? "true" : "false");
}
static inline void out_uint(const char *key, unsigned long long v) {
    printf(",\"%s\":%llu", key, v);
}
static inline void out_null(const char *key) { printf(",\"%s\":null", key); }
/* `s` must be plain ASCII with nothing to escape (our own fixed messages). */
static inline void out_str(const char *key, const char *s) {
    printf(",\"%s\":\"%s\"", key, s);
}
static inline void out_hex(const char *key, const unsigned char *b, size_t n) {
    printf(",\"%s\":\"", key);
    for (size_t i = 0; i < n; i++) printf("%02x", b[i]);
    putchar('"');
}
static inline void u32_list(const uint32_t *v, size_t n) {
    putchar('[');
    for (size_t i = 0; i < n; i++) printf(i ? ",%lu" : "%lu", (unsigned long)v[i]);
    putchar(']');
}
static inline void out_u32_array(const char *key, const uint32_t *v, size_t n) {
    printf(",\"%s\":", key);
    u32_list(v, n);
}
/* For UTF-16 output (ICU): a well-formed surrogate pair is one code point
 * (that is what UTF-16 means); a lone surrogate is reported as itself. */
static inline void utf16_list(const uint16_t *u, size_t n) {
    putchar('[');
    for (size_t i = 0; i < n; i++) {
        unsigned long cp = u[i];
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < n && u[i + 1] >= 0xDC00 &&
            u[i + 1] <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (u[i + 1] - 0xDC00u);
            i++;
        }
        printf("%lu%s", cp, i + 1 < n ? "," : "");
    }
    putchar(']');
}
static inline void out_utf16_array(const char *key, const uint16_t *u, size_t n) {
    printf(",\"%s\":", key);
    utf16_list(u, n);
}

/* ---- writing a stream answer (protocol 2) -------------------------------
 * A run callback writes: out_calls_open(); one out_call_u32/out_call_utf16
 * per call made; out_calls_close(); then out_stream_error() if the library
 * reported an error (in the last call made). */
static int proto_calls_written;
static inline void out_calls_open(void) {
    printf("\"calls\":[");
    proto_calls_written = 0;
}
static inline void out_call_u32(const uint32_t *v, size_t n) {
    if (proto_calls_written++) putchar(',');
    u32_list(v, n);
}
static inline void out_call_utf16(const uint16_t *u, size_t n) {
    if (proto_calls_written++) putchar(',');
    utf16_list(u, n);
}
static inline void out_calls_close(void) { putchar(']'); }
/* valid_up_to < 0: the library did not tell it (left out).
 * error_len: > 0 the length, ERROR_LEN_NULL for null (incomplete input),
 * ERROR_LEN_UNKNOWN: the library did not tell it (left out). */
#define ERROR_LEN_NULL 0
#define ERROR_LEN_UNKNOWN (-1)
static inline void out_stream_error(size_t call, long long valid_up_to, long long error_len) {
    printf(",\"error\":{\"call\":%zu", call);
    if (valid_up_to >= 0) printf(",\"valid_up_to\":%lld", valid_up_to);
    if (error_len == ERROR_LEN_NULL) printf(",\"error_len\":null");
    else if (error_len > 0) printf(",\"error_len\":%lld", error_len);
    putchar('}');
}

/* ---- a minimal JSON syntax checker that remembers top-level members ---- */

struct json_span {
    const char *p; /* raw text of the value, NULL if the member is absent */
    size_t n;
};

struct json_cursor {
    const char *p, *end;
};

static inline void json_ws(struct json_cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n'))
        c->p++;
}

static inline int json_lit(struct json_cursor *c, const char *lit) {
    size_t n = strlen(lit);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0) return 0;
    c->p += n;
    return 1;
}

static inline int json_string(struct json_cursor *c) {
    if (c->p >= c->end || *c->p != '"') return 0;
    c->p++;
    while (c->p < c->end) {
        unsigned char ch = (unsigned char)*c->p++;
        if (ch == '"') return 1;
        if (ch < 0x20) return 0;
        if (ch == '\\') {
            if (c->p >= c->end) return 0;
            char e = *c->p++;
            if (e == 'u') {
                for (int i = 0; i < 4; i++)
                    if (c->p >= c->end || !isxdigit((unsigned char)*c->p++)) return 0;
            } else if (!strchr("\"\\/bfnrt", e)) {
                return 0;
            }
        }
    }
    return 0;
}

static inline int json_number(struct json_cursor *c) {
    const char *s = c->p;
    if (c->p < c->end && *c->p == '-') c->p++;
    if (c->p >= c->end) return 0;
    if (*c->p == '0') c->p++;
    else if (*c->p >= '1' && *c->p <= '9')
        while (c->p < c->end && isdigit((unsigned char)*c->p)) c->p++;
    else return 0;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (c->p >= c->end || !isdigit((unsigned char)*c->p)) return 0;
        while (c->p < c->end && isdigit((unsigned char)*c->p)) c->p++;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-')) c->p++;
        if (c->p >= c->end || !isdigit((unsigned char)*c->p)) return 0;
        while (c->p < c->end && isdigit((unsigned char)*c->p)) c->p++;
    }
    return c->p > s;
}

static inline int json_value(struct json_cursor *c, int depth);

/* The members the serving loop needs, in this order in its members[]. */
enum { M_ID, M_OP, M_BYTES, M_SCALAR, M_MODE, M_CHUNKS, M_FLUSH, M_INPUTS, M_COUNT };
static const char *const proto_wanted[M_COUNT] = {
    "\"id\"", "\"op\"", "\"bytes\"", "\"scalar\"", "\"mode\"", "\"chunks\"", "\"flush\"", "\"inputs\""};

/* Parses an object; when `members` is non-NULL records the raw spans of the
 * proto_wanted keys in members[0..M_COUNT-1] (the last one of a key wins). */
static inline int json_object(struct json_cursor *c, int depth, struct json_span *members) {
    const char *const *wanted = proto_wanted;
    c->p++; /* '{' */
    json_ws(c);
    if (c->p < c->end && *c->p == '}') { c->p++; return 1; }
    for (;;) {
        json_ws(c);
        const char *key = c->p;
        if (!json_string(c)) return 0;
        size_t keylen = (size_t)(c->p - key);
        json_ws(c);
        if (c->p >= c->end || *c->p != ':') return 0;
        c->p++;
        json_ws(c);
        const char *val = c->p;
        if (!json_value(c, depth + 1)) return 0;
        if (members)
            for (int i = 0; i < M_COUNT; i++)
                if (keylen == strlen(wanted[i]) && memcmp(key, wanted[i], keylen) == 0) {
                    members[i].p = val;
                    members[i].n = (size_t)(c->p - val);
                }
        json_ws(c);
        if (c->p < c->end && *c->p == ',') { c->p++; continue; }
        if (c->p < c->end && *c->p == '}') { c->p++; return 1; }
        return 0;
    }
}

static inline int json_value(struct json_cursor *c, int depth) {
    if (depth > 64 || c->p >= c->end) return 0;
    switch (*c->p) {
    case '{': return json_object(c, depth, NULL);
    case '[':
        c->p++;
        json_ws(c);
        if (c->p < c->end && *c->p == ']') { c->p++; return 1; }
        for (;;) {
            json_ws(c);
            if (!json_value(c, depth + 1)) return 0;
            json_ws(c);
            if (c->p < c->end && *c->p == ',') { c->p++; continue; }
            if (c->p < c->end && *c->p == ']') { c->p++; return 1; }
            return 0;
        }
    case '"': return json_string(c);
    case 't': return json_lit(c, "true");
    case 'f': return json_lit(c, "false");
    case 'n': return json_lit(c, "null");
    default: return json_number(c);
    }
}

/* Decodes a raw JSON string span into `out` (NUL-terminated, ASCII only).
 * Returns 0 if the span is not a string or holds a non-ASCII character. */
static inline int json_ascii_string(struct json_span s, char *out, size_t cap) {
    if (!s.p || s.n < 2 || s.p[0] != '"') return 0;
    size_t o = 0;
    for (size_t i = 1; i + 1 < s.n; i++) {
        unsigned char ch = (unsigned char)s.p[i];
        if (ch == '\\') {
            char e = s.p[++i];
            if (e == 'u') {
                char hex[5] = {s.p[i + 1], s.p[i + 2], s.p[i + 3], s.p[i + 4], 0};
                unsigned long v = strtoul(hex, NULL, 16);
                i += 4;
                if (v == 0 || v > 0x7F) return 0;
                ch = (unsigned char)v;
            } else {
                const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
                ch = (unsigned char)to[strchr(from, e) - from];
            }
        } else if (ch > 0x7F) {
            return 0;
        }
        if (o + 1 >= cap) return 0;
        out[o++] = (char)ch;
    }
    out[o] = 0;
    return 1;
}

/* ---- the serving loop --------------------------------------------------- */

struct proto_chunk {
    unsigned char *b;
    size_t n;
};

/* A library's incremental decoder (protocol 2). */
enum { PROTO_STRICT = 1, PROTO_LOSSY = 2 };
struct proto_stream {
    int modes;  /* PROTO_STRICT | PROTO_LOSSY: the modes the library streams in */
    int reuse;  /* answer reuse requests (all inputs on one decoder object) */
    /* a new decoder object for `mode` (PROTO_STRICT or PROTO_LOSSY) */
    void *(*open)(int mode);
    /* Feeds one input to the object: one call per chunk with "more input
     * follows", then the flush call if `flush`. `continues`: this input
     * continues the stream of the previous run (whole-stream offsets go on
     * from there) instead of starting a new one. Writes "calls" (and
     * "error"); returns 1 if it wrote an error, else 0. */
    int (*run)(void *obj, int mode, const struct proto_chunk *chunks, size_t n, int flush,
               int continues);
    void (*close)(void *obj);
};

static inline void bad_request(struct json_span id, const char *what) {
    if (id.p) printf("{\"id\":%.*s", (int)id.n, id.p);
    else printf("{\"id\":null");
    printf(",\"error\":\"bad request: %s\"}\n", what);
    fflush(stdout);
}

static inline int hexval(int ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Decodes the hex string span `s` into a new buffer (*out, *n; free it).
 * Returns 0 if `s` is not a string of hex digit pairs. */
static inline int proto_hex(struct json_span s, unsigned char **out, size_t *n) {
    *out = NULL;
    *n = 0;
    if (!s.p) return 0;
    char *hex = malloc(s.n + 1);
    if (!hex || !json_ascii_string(s, hex, s.n + 1)) { free(hex); return 0; }
    size_t h = strlen(hex);
    unsigned char *bytes = malloc(h / 2 + 1);
    int good = bytes && h % 2 == 0;
    for (size_t i = 0; good && i < h; i += 2) {
        int hi = hexval((unsigned char)hex[i]), lo = hexval((unsigned char)hex[i + 1]);
        if (hi < 0 || lo < 0) good = 0;
        else bytes[(*n)++] = (unsigned char)(hi << 4 | lo);
    }
    free(hex);
    if (!good) { free(bytes); *n = 0; return 0; }
    *out = bytes;
    return 1;
}

/* One parsed stream input: its chunks and flush flag. */
struct proto_input {
    struct proto_chunk *chunks;
    size_t n;
    int flush;
};

static inline void proto_free_input(struct proto_input *in) {
    for (size_t i = 0; i < in->n; i++) free(in->chunks[i].b);
    free(in->chunks);
    in->chunks = NULL;
    in->n = 0;
}

/* Reads "chunks" and "flush" (members m[M_CHUNKS], m[M_FLUSH]) into `in`.
 * Returns NULL, or what is wrong (a fixed message). */
static inline const char *proto_read_input(const struct json_span *m, struct proto_input *in) {
    in->chunks = NULL;
    in->n = 0;
    in->flush = 1;
    if (m[M_FLUSH].p) {
        if (m[M_FLUSH].n == 4 && memcmp(m[M_FLUSH].p, "true", 4) == 0) in->flush = 1;
        else if (m[M_FLUSH].n == 5 && memcmp(m[M_FLUSH].p, "false", 5) == 0) in->flush = 0;
        else return "flush is not a boolean";
    }
    if (!m[M_CHUNKS].p) return "missing chunks";
    struct json_cursor c = {m[M_CHUNKS].p, m[M_CHUNKS].p + m[M_CHUNKS].n};
    if (*c.p != '[') return "chunks is not a list";
    c.p++;
    size_t cap = 0;
    for (;;) {
        json_ws(&c);
        if (*c.p == ']') break;
        const char *start = c.p;
        if (!json_value(&c, 1)) break; /* cannot happen: the line was checked */
        struct json_span elem = {start, (size_t)(c.p - start)};
        if (in->n == cap) {
            cap = cap ? 2 * cap : 8;
            struct proto_chunk *more = realloc(in->chunks, cap * sizeof *more);
            if (!more) { proto_free_input(in); return "out of memory"; }
            in->chunks = more;
        }
        if (!proto_hex(elem, &in->chunks[in->n].b, &in->chunks[in->n].n)) {
            proto_free_input(in);
            return "bad hex in chunks";
        }
        in->n++;
        json_ws(&c);
        if (*c.p == ',') c.p++;
    }
    return NULL;
}

/* Answers a "stream" or "reuse" request (the line's members in m). */
static inline void proto_stream_request(const struct proto_stream *st, const struct json_span *m,
                                        int reuse) {
    struct json_span id = m[M_ID];
    char mode_name[16];
    int mode = 0;
    if (!m[M_MODE].p) { bad_request(id, "missing mode"); return; }
    if (json_ascii_string(m[M_MODE], mode_name, sizeof mode_name)) {
        if (strcmp(mode_name, "strict") == 0) mode = PROTO_STRICT;
        else if (strcmp(mode_name, "lossy") == 0) mode = PROTO_LOSSY;
    }
    if (!(mode & st->modes)) {
        bad_request(id, st->modes == (PROTO_STRICT | PROTO_LOSSY) ? "mode must be one of strict, lossy"
                        : st->modes == PROTO_STRICT ? "mode must be strict" : "mode must be lossy");
        return;
    }
    struct proto_input *inputs = NULL;
    size_t ninputs = 0, cap = 0;
    const char *wrong = NULL;
    if (!reuse) {
        inputs = malloc(sizeof *inputs);
        if (!inputs) wrong = "out of memory";
        else if (!(wrong = proto_read_input(m, &inputs[0]))) ninputs = 1;
    } else if (!m[M_INPUTS].p) {
        wrong = "missing inputs";
    } else if (*m[M_INPUTS].p != '[') {
        wrong = "inputs is not a list";
    } else {
        struct json_cursor c = {m[M_INPUTS].p + 1, m[M_INPUTS].p + m[M_INPUTS].n};
        for (;;) {
            json_ws(&c);
            if (*c.p == ']') break;
            struct json_span im[M_COUNT] = {{0}};
            if (*c.p != '{') { wrong = "an input is not an object"; break; }
            if (!json_object(&c, 1, im)) break; /* cannot happen */
            if (ninputs == cap) {
                cap = cap ? 2 * cap : 4;
                struct proto_input *more = realloc(inputs, cap * sizeof *more);
                if (!more) { wrong = "out of memory"; break; }
                inputs = more;
            }
            if ((wrong = proto_read_input(im, &inputs[ninputs]))) break;
            ninputs++;
            json_ws(&c);
            if (*c.p == ',') c.p++;
        }
    }
    if (wrong) {
        bad_request(id, wrong);
    } else {
        void *obj = st->open(mode);
        printf("{\"id\":%.*s,", (int)id.n, id.p);
        if (reuse) printf("\"runs\":[");
        int continues = 0;
        for (size_t i = 0; i < ninputs; i++) {
            if (reuse) printf(i ? ",{" : "{");
            int error = st->run(obj, mode, inputs[i].chunks, inputs[i].n, inputs[i].flush, continues);
            continues = !inputs[i].flush && !error;
            if (reuse) putchar('}');
        }
        if (reuse) putchar(']');
        printf("}\n");
        fflush(stdout);
        st->close(obj);
    }
    for (size_t i = 0; i < ninputs; i++) proto_free_input(&inputs[i]);
    free(inputs);
}

/* proto_serve with protocol 2: `st` (may be NULL: protocol 1) answers stream
 * and, if st->reuse, reuse requests. */
static inline int proto_serve_stream(const char *name, const char *version, const char *caps_json,
                                     proto_decode_fn decode, proto_encode_fn encode,
                                     const struct proto_stream *st) {
    static char stdout_buf[1 << 16];
    setvbuf(stdout, stdout_buf, _IOFBF, sizeof stdout_buf);
    printf("{\"hello\":{\"name\":\"%s\",\"version\":\"%s\",%s\"capabilities\":%s}}\n",
           name, version, st ? "\"protocol\":2," : "", caps_json);
    fflush(stdout);

    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) != -1) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
        struct json_span m[M_COUNT] = {{0}};
        struct json_cursor c = {line, line + len};
        json_ws(&c);
        int is_object = c.p < c.end && *c.p == '{';
        int ok = is_object ? json_object(&c, 0, m) : json_value(&c, 0);
        json_ws(&c);
        if (!ok || c.p != c.end) { bad_request((struct json_span){0}, "not JSON"); continue; }
        if (!is_object) { bad_request((struct json_span){0}, "not a JSON object"); continue; }
        struct json_span id = m[M_ID];
        if (!id.p) { bad_request(id, "missing id"); continue; }
        char op[16];
        if (!m[M_OP].p) { bad_request(id, "missing op"); continue; }
        if (!json_ascii_string(m[M_OP], op, sizeof op)) { bad_request(id, "unknown op"); continue; }

        if (strcmp(op, "decode") == 0) {
            size_t nbytes = 0;
            unsigned char *bytes = NULL;
            if (!m[M_BYTES].p) bad_request(id, "missing bytes");
            else if (!proto_hex(m[M_BYTES], &bytes, &nbytes)) bad_request(id, "bad hex in bytes");
            else {
                printf("{\"id\":%.*s", (int)id.n, id.p);
                decode(bytes ? bytes : (const unsigned char *)"", nbytes);
                printf("}\n");
                fflush(stdout);
            }
            free(bytes);
        } else if (st && (strcmp(op, "stream") == 0 || (st->reuse && strcmp(op, "reuse") == 0))) {
            proto_stream_request(st, m, op[0] == 'r');
        } else if (strcmp(op, "encode") == 0) {
            if (!encode) { bad_request(id, "op encode not supported by this decoder"); continue; }
            /* scalar: a JSON integer (digits only) in 0..=4294967295 */
            struct json_span s = m[M_SCALAR];
            int good = s.p && s.n > 0 && s.n <= 10;
            unsigned long long v = 0;
            for (size_t i = 0; good && i < s.n; i++) {
                if (!isdigit((unsigned char)s.p[i]) || (i == 0 && s.p[i] == '0' && s.n > 1)) good = 0;
                else v = v * 10 + (unsigned)(s.p[i] - '0');
            }
            if (!good || v > 0xFFFFFFFFull) { bad_request(id, "scalar must be an integer 0..=4294967295"); continue; }
            printf("{\"id\":%.*s", (int)id.n, id.p);
            encode((uint32_t)v);
            printf("}\n");
            fflush(stdout);
        } else {
            bad_request(id, "unknown op");
        }
    }
    free(line);
    return 0;
}

static inline int proto_serve(const char *name, const char *version, const char *caps_json,
                              proto_decode_fn decode, proto_encode_fn encode) {
    return proto_serve_stream(name, version, caps_json, decode, encode, NULL);
}

#endif
