/*
 * utf8proc as the utf8conform decoder "utf8proc" (docs/protocol.md).
 *
 * Library calls and what each capability maps to:
 *
 *   validate, position, decode
 *             successive utf8proc_iterate(str, strlen, &cp) calls, each
 *             advancing by "the number of bytes read" it returns. The first
 *             call that returns "a negative error code" marks the input
 *             invalid at its offset (valid_up_to); if none does, the code
 *             points it stored are the scalars.
 *   subpart   NOT claimed: the error code (UTF8PROC_ERROR_INVALIDUTF8) says
 *             nothing of how many bytes are bad, nor of truncation.
 *   lossy     NOT claimed: utf8proc has no replacing decode (its
 *             utf8proc_map() fails on invalid input).
 *   encode    utf8proc_encode_char(cp, dst): "In case of success the number
 *             of bytes written is returned, and otherwise 0 is returned",
 *             and "This function does not check whether codepoint is valid
 *             Unicode": the bytes are reported as written; 0 is "refused".
 *   stream, reuse: NOT claimed (protocol 1): utf8proc has no incremental
 *             decoder (utf8proc_iterate decodes one character, statelessly).
 */
#include "proto.h"

#include <utf8proc.h>

static void decode(const unsigned char *b, size_t n) {
    int32_t *cps = malloc((n + 1) * sizeof *cps);
    size_t k = 0, i = 0;
    while (i < n) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t r = utf8proc_iterate(b + i, (utf8proc_ssize_t)(n - i), &cp);
        if (r <= 0) break; /* r == 0 cannot happen for n - i > 0; stop anyway */
        cps[k++] = cp;
        i += (size_t)r;
    }
    out_bool("valid", i == n);
    if (i == n) out_u32_array("scalars", (uint32_t *)cps, k);
    else out_uint("valid_up_to", i);
    free(cps);
}

static void encode(uint32_t scalar) {
    utf8proc_uint8_t buf[8];
    /* utf8proc_int32_t is signed: values above INT32_MAX arrive negative,
     * which utf8proc_encode_char refuses like any value it cannot encode. */
    utf8proc_ssize_t len = utf8proc_encode_char((utf8proc_int32_t)scalar, buf);
    if (len <= 0) out_str("error", "refused");
    else out_hex("bytes", buf, (size_t)len);
}

int main(void) {
    return proto_serve("utf8proc", utf8proc_version(),
                       "[\"validate\",\"position\",\"decode\",\"encode\"]", decode, encode);
}
