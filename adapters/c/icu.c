/*
 * ICU4C's UTF-8 converter (ucnv) as the utf8conform decoder "icu-ucnv"
 * (docs/protocol.md).
 *
 * Library calls and what each capability maps to:
 *
 *   strict (validate, position, subpart, decode)
 *       ucnv_open("UTF-8") with ucnv_setToUCallBack(UCNV_TO_U_CALLBACK_STOP),
 *       then one ucnv_toUnicode(..., flush = true). The STOP callback
 *       "STOPS at the ILLEGAL_SEQUENCE, returning the error code back to the
 *       caller immediately", with the source pointer "after the last byte of
 *       source consumed" and ucnv_getInvalidChars() returning "the error
 *       characters from the last failing conversion". So:
 *         valid        no failure status;
 *         scalars      the UTF-16 ICU wrote (pairs joined, lone surrogates
 *                      kept: see out_utf16_array in proto.h);
 *         valid_up_to  bytes consumed minus the invalid bytes ICU returns
 *                      (the bad sequence is the last thing it consumed);
 *         error_len    the number of invalid bytes ICU returns, or null when
 *                      the status is U_TRUNCATED_CHAR_FOUND ("Incomplete
 *                      input sequence") rather than U_ILLEGAL_CHAR_FOUND.
 *   lossy
 *       a second converter with ICU's default callback
 *       (UCNV_TO_U_CALLBACK_SUBSTITUTE) and ucnv_toUChars(): whatever ICU
 *       puts in place of bad input.
 *   encode
 *       U16_APPEND() (utf16.h) builds the UTF-16 string for the code point,
 *       then ucnv_fromUChars() on a UTF-8 converter with its default
 *       callback, as a typical caller does. U16_APPEND writes a surrogate
 *       value as a single unit and sets isError only for "a code point [that]
 *       is not valid", i.e. above U+10FFFF (our two-unit buffer always has
 *       room), reported as "out-of-range". Whatever ucnv_fromUChars then does
 *       with a lone surrogate (substitute, or fail) is reported as it is.
 *
 *   stream-strict, stream-lossy (protocol 2)
 *       a new ucnv_open("UTF-8") per stream request, with the STOP callback
 *       (strict) or UCNV_TO_U_CALLBACK_SUBSTITUTE (lossy): one
 *       ucnv_toUnicode(..., flush = false) per chunk, then one with no
 *       source bytes and flush = true. ucnv.h: the function "is optimized for
 *       converting a continuous stream of data in buffer-sized chunks";
 *       "When a successful error status has been returned, it means that
 *       all of the source buffer has been consumed" (a partial sequence is
 *       kept inside the converter). A U_BUFFER_OVERFLOW_ERROR is answered by
 *       calling again with more target room, as ucnv.h says, within the same
 *       protocol call. Each call's list is the UTF-16 it wrote. On a failure
 *       status (strict) that call's list keeps what ICU wrote before it, no
 *       more calls are made, and:
 *         valid_up_to  the bytes of the earlier calls (all consumed, by the
 *                      rule above) plus what this call consumed, minus the
 *                      invalid bytes ucnv_getInvalidChars() returns, which
 *                      may have come in earlier chunks (left out should that
 *                      fall before this stream's first byte);
 *         error_len    their count, or null for U_TRUNCATED_CHAR_FOUND.
 *   reuse
 *       the same calls, all inputs on one converter, never ucnv_reset():
 *       ucnv.h says it resets itself after a flush "if it finishes the
 *       previous stream without errors", so after an error it keeps what it
 *       keeps.
 *
 * Why "strict": ICU tells both where the bad sequence is and how long it
 * is, and distinguishes truncated from illegal input.
 */
#include "proto.h"

#include <unicode/ucnv.h>
#include <unicode/ucnv_err.h>
#include <unicode/uclean.h>
#include <unicode/utf16.h>
#include <unicode/uversion.h>

static UConverter *strict_cnv, *lossy_cnv, *enc_cnv;

static void decode(const unsigned char *b, size_t n) {
    UChar *out = malloc((n + 1) * sizeof *out);
    UChar *target = out;
    const char *source = (const char *)b;
    UErrorCode err = U_ZERO_ERROR;

    ucnv_reset(strict_cnv);
    ucnv_toUnicode(strict_cnv, &target, out + n + 1, &source, (const char *)b + n,
                   NULL, 1, &err);
    if (U_SUCCESS(err)) {
        out_bool("valid", 1);
        out_utf16_array("scalars", out, (size_t)(target - out));
    } else {
        char bad[32];
        int8_t badlen = sizeof bad;
        UErrorCode err2 = U_ZERO_ERROR;
        ucnv_getInvalidChars(strict_cnv, bad, &badlen, &err2);
        size_t consumed = (size_t)(source - (const char *)b);
        out_bool("valid", 0);
        if (U_SUCCESS(err2) && (size_t)badlen <= consumed) {
            out_uint("valid_up_to", consumed - (size_t)badlen);
            if (err == U_TRUNCATED_CHAR_FOUND) out_null("error_len");
            else out_uint("error_len", (unsigned long long)badlen);
        } else {
            fprintf(stderr, "icu: no invalid chars after %s\n", u_errorName(err));
        }
    }

    /* Lossy: ICU's default substitution. Each byte gives at most one UChar,
     * plus room for the NUL ucnv_toUChars appends when it can. */
    err = U_ZERO_ERROR;
    int32_t len = ucnv_toUChars(lossy_cnv, out, (int32_t)n + 1, (const char *)b,
                                (int32_t)n, &err);
    if (U_SUCCESS(err) || err == U_STRING_NOT_TERMINATED_WARNING)
        out_utf16_array("lossy", out, (size_t)len);
    else
        fprintf(stderr, "icu: ucnv_toUChars failed: %s\n", u_errorName(err));
    free(out);
}

static void encode(uint32_t scalar) {
    UChar units[2];
    int32_t nunits = 0;
    UBool bad = 0;
    /* UChar32 is signed: values above INT32_MAX become negative, which
     * U16_APPEND rejects just as it rejects everything above 0x10FFFF. */
    U16_APPEND(units, nunits, 2, (UChar32)scalar, bad);
    if (bad) {
        out_str("error", "out-of-range");
        return;
    }
    char buf[16];
    UErrorCode err = U_ZERO_ERROR;
    int32_t len = ucnv_fromUChars(enc_cnv, buf, sizeof buf, units, nunits, &err);
    if (U_FAILURE(err)) out_str("error", "refused");
    else out_hex("bytes", (unsigned char *)buf, (size_t)len);
}

/* ---- streaming (protocol 2) ---------------------------------------------- */

struct icu_stream {
    UConverter *cnv;
    unsigned long long fed; /* bytes given to the converter since its stream began */
};

static void *stream_open(int mode) {
    struct icu_stream *st = calloc(1, sizeof *st);
    UErrorCode err = U_ZERO_ERROR;
    st->cnv = ucnv_open("UTF-8", &err);
    ucnv_setToUCallBack(st->cnv, mode == PROTO_STRICT ? UCNV_TO_U_CALLBACK_STOP : UCNV_TO_U_CALLBACK_SUBSTITUTE,
                        NULL, NULL, NULL, &err);
    if (U_FAILURE(err)) {
        fprintf(stderr, "icu: %s\n", u_errorName(err));
        exit(1);
    }
    return st;
}

static int stream_run(void *obj, int mode, const struct proto_chunk *chunks, size_t n, int flush,
                      int continues) {
    struct icu_stream *st = obj;
    (void)mode;
    if (!continues) st->fed = 0;
    out_calls_open();
    for (size_t i = 0; i < n + (flush ? 1 : 0); i++) {
        const char *src = i < n ? (const char *)chunks[i].b : "";
        size_t len = i < n ? chunks[i].n : 0;
        const char *source = src, *limit = src + len;
        size_t cap = 2 * len + 16, written = 0;
        UChar *out = malloc(cap * sizeof *out);
        UErrorCode err;
        for (;;) {
            UChar *target = out + written;
            err = U_ZERO_ERROR;
            ucnv_toUnicode(st->cnv, &target, out + cap, &source, limit, NULL, i == n, &err);
            written = (size_t)(target - out);
            if (err != U_BUFFER_OVERFLOW_ERROR) break;
            cap *= 2;
            out = realloc(out, cap * sizeof *out);
        }
        out_call_utf16(out, written);
        free(out);
        if (U_FAILURE(err)) {
            char bad[32];
            int8_t badlen = sizeof bad;
            UErrorCode err2 = U_ZERO_ERROR;
            ucnv_getInvalidChars(st->cnv, bad, &badlen, &err2);
            long long at = (long long)(st->fed + (unsigned long long)(source - src)) - badlen;
            out_calls_close();
            if (U_FAILURE(err2)) {
                fprintf(stderr, "icu: no invalid chars after %s\n", u_errorName(err));
                out_stream_error(i, -1, ERROR_LEN_UNKNOWN);
            } else {
                out_stream_error(i, at, err == U_TRUNCATED_CHAR_FOUND ? ERROR_LEN_NULL : badlen);
            }
            return 1;
        }
        st->fed += len;
    }
    out_calls_close();
    return 0;
}

static void stream_close(void *obj) {
    struct icu_stream *st = obj;
    ucnv_close(st->cnv);
    free(st);
}

static const struct proto_stream icu_stream = {
    PROTO_STRICT | PROTO_LOSSY, 1, stream_open, stream_run, stream_close,
};

int main(void) {
    UErrorCode err = U_ZERO_ERROR;
    strict_cnv = ucnv_open("UTF-8", &err);
    lossy_cnv = ucnv_open("UTF-8", &err);
    enc_cnv = ucnv_open("UTF-8", &err);
    ucnv_setToUCallBack(strict_cnv, UCNV_TO_U_CALLBACK_STOP, NULL, NULL, NULL, &err);
    if (U_FAILURE(err)) {
        fprintf(stderr, "icu: %s\n", u_errorName(err));
        return 1;
    }
    UVersionInfo v;
    char version[U_MAX_VERSION_STRING_LENGTH];
    u_getVersion(v);
    u_versionToString(v, version);
    int rc = proto_serve_stream("icu-ucnv", version, "[\"strict\",\"lossy\",\"encode\",\"stream\",\"reuse\"]",
                                decode, encode, &icu_stream);
    ucnv_close(strict_cnv);
    ucnv_close(lossy_cnv);
    ucnv_close(enc_cnv);
    return rc;
}
