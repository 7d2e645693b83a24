/*
 * glibc iconv(3) as a utf8conform decoder (docs/protocol.md).
 *
 * Usage: iconv [glibc-iconv | glibc-iconv-utf32 | glibc-iconv-c]
 *
 * Library calls and what each capability maps to:
 *
 *   glibc-iconv        iconv_open("WCHAR_T", "UTF-8"): the path a C program
 *                      takes to decode UTF-8 into wchar_t, and the one that
 *                      shows glibc's UTF-8 decoder itself (glibc's WCHAR_T
 *                      is its internal UCS-4 form: no second check behind
 *                      the decoder; UTF-8 -> UTF-8 behaves the same).
 *   glibc-iconv-utf32  iconv_open("UTF-32LE", "UTF-8") (BE on big-endian
 *                      machines, to match our native buffers): the same decoder
 *                      followed by glibc's UTF-32 encoder, which refuses
 *                      some code points the UTF-8 decoder lets through.
 *   glibc-iconv-c      iconv_open("WCHAR_T//IGNORE", "UTF-8"): what
 *                      `iconv -c` does, dropping what it cannot convert.
 *
 *   validate  iconv() converts the whole input (returns != (size_t)-1).
 *   position  on failure iconv(3) leaves *inbuf "pointing to the beginning
 *             of the invalid multibyte sequence" (EILSEQ) or of the
 *             incomplete one (EINVAL): valid_up_to = *inbuf - start.
 *   decode    the wchar_t / UTF-32LE units iconv() wrote.
 *   subpart   NOT claimed: EINVAL does mean "incomplete multibyte sequence
 *             at the end", but EILSEQ gives no length for the bad sequence.
 *   lossy     glibc-iconv-c only: the units written with //IGNORE, calling
 *             iconv() again after each EILSEQ as iconv -c does; an
 *             incomplete tail (EINVAL) is left unconverted, as iconv -c
 *             leaves it. Nothing is put in place of dropped bytes.
 *   encode    iconv_open("UTF-8", "WCHAR_T") (resp. "UTF-32LE") on one
 *             native-endian 32-bit unit. EILSEQ does not say why, so a
 *             refusal is "refused".
 *
 *   stream-strict (glibc-iconv, glibc-iconv-utf32), stream-lossy
 *   (glibc-iconv-c), reuse: protocol 2
 *             a new iconv_open() descriptor per request (the same tocode),
 *             one iconv() call per chunk. iconv(3): EINVAL means "An
 *             incomplete multibyte sequence has been encountered in the
 *             input" with *inbuf left at its beginning, and the documented
 *             use is to keep those bytes and present them again in front of
 *             the next input ("the caller ... should retry with more
 *             input"), so each call's buffer is the bytes iconv left
 *             unconsumed before followed by the chunk. The flush call has no
 *             new bytes: it presents what is left (if anything), then calls
 *             iconv(cd, NULL, NULL, &outbuf, &outbytesleft), which iconv(3)
 *             documents as the end of the input ("sets cd's conversion state
 *             to the initial state and stores a corresponding shift sequence
 *             at *outbuf"). Each call's list is the units it wrote.
 *             Strict: EILSEQ, or EINVAL for the bytes left at the flush, is
 *             the error, after which no more calls are made; valid_up_to =
 *             bytes iconv consumed in earlier calls + (*inbuf - buffer),
 *             both positions iconv reported; error_len is null for EINVAL at
 *             the flush (iconv says the sequence is incomplete and the
 *             stream has ended) and left out for EILSEQ (no length).
 *             Lossy (//IGNORE, glibc-iconv-c): iconv() again after an EILSEQ
 *             that made progress, as for decode (that is how iconv -c goes
 *             on); EINVAL keeps the tail for the next chunk; at the flush an
 *             incomplete tail gives EINVAL again and nothing is written for
 *             it (iconv -c drops it too, with "incomplete character or shift
 *             sequence at end of buffer"). That is honest streaming: //IGNORE
 *             is glibc's own mode and the calls are iconv's; what it puts in
 *             place of bad bytes is nothing.
 *             glibc-iconv and -utf32 have no replacing mode (no stream-lossy);
 *             glibc-iconv-c has no failing one (no stream-strict).
 *             Reuse: all inputs on one descriptor, never reset by the
 *             adapter; only a flush call's iconv(cd, NULL, ...) resets it.
 *             The bytes a stream left unconsumed belong to that stream: a new
 *             stream starts with none (an input after one left open with
 *             flush false, and no error, continues it and them).
 */
#include "proto.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <iconv.h>

/* Our buffers are native uint32_t, so ask for the native byte order. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define UTF32_NATIVE "UTF-32BE"
#else
#define UTF32_NATIVE "UTF-32LE"
#endif

static iconv_t dec, enc;
static int ignore_mode;
static const char *to_code;

/* Runs iconv over the whole input; returns the (size_t)-1-or-count result of
 * the last call and leaves errno, the consumed and the produced counts. */
static size_t convert(iconv_t cd, const unsigned char *b, size_t n, uint32_t *out,
                      size_t *consumed, size_t *units, int *err) {
    char *in = (char *)b, *o = (char *)out;
    size_t inleft = n, outleft = (n + 1) * sizeof(uint32_t);
    size_t r;
    iconv(cd, NULL, NULL, NULL, NULL); /* back to the initial state */
    for (;;) {
        char *before = in;
        r = iconv(cd, &in, &inleft, &o, &outleft);
        *err = r == (size_t)-1 ? errno : 0;
        /* With //IGNORE, glibc may return EILSEQ after skipping; iconv -c
         * calls again to convert the rest. Without progress, stop. */
        if (!(ignore_mode && r == (size_t)-1 && *err == EILSEQ && inleft > 0 && in != before))
            break;
    }
    *consumed = (size_t)(in - (char *)b);
    *units = (size_t)(o - (char *)out) / sizeof(uint32_t);
    return r;
}

static void decode(const unsigned char *b, size_t n) {
    uint32_t *out = malloc((n + 1) * sizeof *out);
    size_t consumed, units;
    int err;
    size_t r = convert(dec, b, n, out, &consumed, &units, &err);
    if (ignore_mode) {
        out_u32_array("lossy", out, units);
    } else if (r != (size_t)-1) {
        out_bool("valid", 1);
        out_u32_array("scalars", out, units);
    } else {
        out_bool("valid", 0);
        if (err == EILSEQ || err == EINVAL) out_uint("valid_up_to", consumed);
        else fprintf(stderr, "iconv: unexpected errno %d\n", err);
    }
    free(out);
}

static void encode(uint32_t scalar) {
    char *in = (char *)&scalar, buf[16], *o = buf;
    size_t inleft = sizeof scalar, outleft = sizeof buf;
    iconv(enc, NULL, NULL, NULL, NULL);
    if (iconv(enc, &in, &inleft, &o, &outleft) == (size_t)-1)
        out_str("error", "refused");
    else
        out_hex("bytes", (unsigned char *)buf, (size_t)(o - buf));
}

/* ---- streaming (protocol 2) ---------------------------------------------- */

struct iconv_stream {
    iconv_t cd;
    unsigned char *left; /* bytes iconv left unconsumed (EINVAL), presented again */
    size_t nleft;
    unsigned long long consumed; /* bytes iconv consumed in this stream's earlier calls */
};

static void *stream_open(int mode) {
    (void)mode;
    struct iconv_stream *st = calloc(1, sizeof *st);
    st->cd = iconv_open(to_code, "UTF-8");
    if (st->cd == (iconv_t)-1) { perror("iconv_open"); exit(1); }
    return st;
}

static int stream_run(void *obj, int mode, const struct proto_chunk *chunks, size_t n, int flush,
                      int continues) {
    struct iconv_stream *st = obj;
    (void)mode;
    if (!continues) st->consumed = 0, st->nleft = 0;
    out_calls_open();
    for (size_t i = 0; i < n + (flush ? 1 : 0); i++) {
        size_t len = i < n ? chunks[i].n : 0, size = st->nleft + len;
        unsigned char *buf = malloc(size + 1);
        if (st->nleft) memcpy(buf, st->left, st->nleft);
        if (len) memcpy(buf + st->nleft, chunks[i].b, len);
        uint32_t *out = malloc((size + 1) * sizeof *out);
        char *in = (char *)buf, *o = (char *)out;
        size_t inleft = size, outleft = (size + 1) * sizeof *out, r = 0;
        int err = 0;
        if (inleft > 0 || i < n) {
            for (;;) {
                char *before = in;
                r = iconv(st->cd, &in, &inleft, &o, &outleft);
                err = r == (size_t)-1 ? errno : 0;
                if (!(ignore_mode && err == EILSEQ && inleft > 0 && in != before)) break;
            }
        }
        if (i == n && (err == 0 || (ignore_mode && err == EINVAL))) {
            err = 0;
            if (iconv(st->cd, NULL, NULL, &o, &outleft) == (size_t)-1) err = errno;
        }
        size_t took = (size_t)(in - (char *)buf);
        out_call_u32(out, (size_t)(o - (char *)out) / sizeof *out);
        free(out);
        if (err && !ignore_mode && (err == EILSEQ || (err == EINVAL && i == n))) {
            out_calls_close();
            out_stream_error(i, (long long)(st->consumed + took),
                             err == EINVAL ? ERROR_LEN_NULL : ERROR_LEN_UNKNOWN);
            free(buf);
            st->nleft = 0;
            return 1;
        }
        /* //IGNORE: EILSEQ once all is consumed only says bytes were skipped */
        if (err && err != EINVAL && !(ignore_mode && err == EILSEQ && inleft == 0))
            fprintf(stderr, "iconv: unexpected errno %d in a stream\n", err);
        st->consumed += took;
        free(st->left);
        st->nleft = size - took;
        st->left = malloc(st->nleft + 1);
        if (st->nleft) memcpy(st->left, buf + took, st->nleft);
        free(buf);
    }
    out_calls_close();
    return 0;
}

static void stream_close(void *obj) {
    struct iconv_stream *st = obj;
    iconv_close(st->cd);
    free(st->left);
    free(st);
}

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "glibc-iconv";
    const char *to, *from_enc, *caps;
    if (strcmp(name, "glibc-iconv") == 0) {
        to = "WCHAR_T", from_enc = "WCHAR_T";
        caps = "[\"validate\",\"position\",\"decode\",\"encode\",\"stream-strict\",\"reuse\"]";
    } else if (strcmp(name, "glibc-iconv-utf32") == 0) {
        to = UTF32_NATIVE, from_enc = UTF32_NATIVE;
        caps = "[\"validate\",\"position\",\"decode\",\"encode\",\"stream-strict\",\"reuse\"]";
    } else if (strcmp(name, "glibc-iconv-c") == 0) {
        to = "WCHAR_T//IGNORE", from_enc = NULL, ignore_mode = 1;
        caps = "[\"lossy\",\"stream-lossy\",\"reuse\"]";
    } else {
        fprintf(stderr, "usage: %s [glibc-iconv|glibc-iconv-utf32|glibc-iconv-c]\n", argv[0]);
        return 2;
    }
    to_code = to;
    dec = iconv_open(to, "UTF-8");
    if (dec == (iconv_t)-1) { perror("iconv_open"); return 1; }
    if (from_enc) {
        enc = iconv_open("UTF-8", from_enc);
        if (enc == (iconv_t)-1) { perror("iconv_open"); return 1; }
    }
    struct proto_stream stream = {
        ignore_mode ? PROTO_LOSSY : PROTO_STRICT, 1, stream_open, stream_run, stream_close,
    };
    return proto_serve_stream(name, gnu_get_libc_version(), caps, decode, from_enc ? encode : NULL,
                              &stream);
}
