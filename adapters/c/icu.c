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
    int rc = proto_serve("icu-ucnv", version, "[\"strict\",\"lossy\",\"encode\"]", decode, encode);
    ucnv_close(strict_cnv);
    ucnv_close(lossy_cnv);
    ucnv_close(enc_cnv);
    return rc;
}
