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
 * The JSON reader is deliberately small: it checks the full JSON grammar of
 * the line (so "not JSON" is detected honestly), requires a top-level object,
 * and keeps the raw text of the members it needs: "id" (echoed back
 * verbatim), "op", "bytes" and "scalar". Strings used as "op" or "bytes" must
 * be ASCII (escapes of ASCII characters are decoded; anything else makes the
 * value unusable, which can only be a bad request for these two fields).
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
static inline void out_u32_array(const char *key, const uint32_t *v, size_t n) {
    printf(",\"%s\":[", key);
    for (size_t i = 0; i < n; i++) printf(i ? ",%lu" : "%lu", (unsigned long)v[i]);
    putchar(']');
}
/* For UTF-16 output (ICU): a well-formed surrogate pair is one code point
 * (that is what UTF-16 means); a lone surrogate is reported as itself. */
static inline void out_utf16_array(const char *key, const uint16_t *u, size_t n) {
    printf(",\"%s\":[", key);
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

/* Parses an object; when `members` is non-NULL (top level) records the raw
 * spans of "id", "op", "bytes", "scalar" in members[0..3]. */
static inline int json_object(struct json_cursor *c, int depth, struct json_span *members) {
    static const char *const wanted[] = {"\"id\"", "\"op\"", "\"bytes\"", "\"scalar\""};
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
            for (int i = 0; i < 4; i++)
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

static inline int proto_serve(const char *name, const char *version, const char *caps_json,
                       proto_decode_fn decode, proto_encode_fn encode) {
    static char stdout_buf[1 << 16];
    setvbuf(stdout, stdout_buf, _IOFBF, sizeof stdout_buf);
    printf("{\"hello\":{\"name\":\"%s\",\"version\":\"%s\",\"capabilities\":%s}}\n",
           name, version, caps_json);
    fflush(stdout);

    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) != -1) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) len--;
        struct json_span m[4] = {{0}};
        struct json_cursor c = {line, line + len};
        json_ws(&c);
        int is_object = c.p < c.end && *c.p == '{';
        int ok = is_object ? json_object(&c, 0, m) : json_value(&c, 0);
        json_ws(&c);
        if (!ok || c.p != c.end) { bad_request((struct json_span){0}, "not JSON"); continue; }
        if (!is_object) { bad_request((struct json_span){0}, "not a JSON object"); continue; }
        struct json_span id = m[0];
        if (!id.p) { bad_request(id, "missing id"); continue; }
        char op[16];
        if (!m[1].p) { bad_request(id, "missing op"); continue; }
        if (!json_ascii_string(m[1], op, sizeof op)) { bad_request(id, "unknown op"); continue; }

        if (strcmp(op, "decode") == 0) {
            /* Hex text is at most the span length; decode it into bytes. */
            char *hex = malloc(m[2].n + 1);
            size_t nbytes = 0;
            unsigned char *bytes = NULL;
            int good = m[2].p && hex && json_ascii_string(m[2], hex, m[2].n + 1);
            if (good) {
                size_t h = strlen(hex);
                bytes = malloc(h / 2 + 1);
                good = bytes && h % 2 == 0;
                for (size_t i = 0; good && i < h; i += 2) {
                    int hi = hexval((unsigned char)hex[i]), lo = hexval((unsigned char)hex[i + 1]);
                    if (hi < 0 || lo < 0) good = 0;
                    else bytes[nbytes++] = (unsigned char)(hi << 4 | lo);
                }
            }
            if (!m[2].p) bad_request(id, "missing bytes");
            else if (!good) bad_request(id, "bad hex in bytes");
            else {
                printf("{\"id\":%.*s", (int)id.n, id.p);
                decode(bytes, nbytes);
                printf("}\n");
                fflush(stdout);
            }
            free(hex);
            free(bytes);
        } else if (strcmp(op, "encode") == 0) {
            if (!encode) { bad_request(id, "op encode not supported by this decoder"); continue; }
            /* scalar: a JSON integer (digits only) in 0..=4294967295 */
            struct json_span s = m[3];
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

#endif
