/*
 * GNU libunistring's <unistr.h> as the utf8conform decoder "libunistring"
 * (docs/protocol.md).
 *
 * Library calls and what each capability maps to:
 *
 *   validate  u8_check(s, n): "Return NULL if valid, or a pointer to the
 *             first invalid unit otherwise."
 *   position  that pointer: valid_up_to = u8_check(s, n) - s.
 *   subpart   at that position, u8_mbtoucr() "returns -1 for an invalid
 *             sequence of units, -2 ... for an incomplete sequence"; for -2
 *             error_len is null, for -1 it is the count u8_mbtouc() returns
 *             there ("Upon failure, *PUC is set to 0xfffd, and an
 *             appropriate number of units is returned"): the library's own
 *             length of the bad sequence.
 *   decode    on valid input, the code points of successive u8_mbtouc()
 *             calls, each advancing by the count it returns.
 *   lossy     the same u8_mbtouc() loop on any input: libunistring's
 *             replacing decode (0xFFFD for each failure, over the number of
 *             units it says it consumed).
 *   encode    u8_uctomb(buf, uc, 6): "Return -1 upon failure" (no reason:
 *             "refused").
 *   stream, reuse: NOT claimed (protocol 1): <unistr.h> decodes one
 *             character per call and keeps no state; its conversions
 *             (uniconv.h) take whole strings.
 *
 * Why "strict": every field comes from one of the calls above.
 */
#include "proto.h"

#include <unistr.h>
#include <unistring/version.h>

/* u8_mbtouc over the whole input: libunistring's own replacing decode. */
static void mbtouc_loop(const char *key, const uint8_t *s, size_t n) {
    uint32_t *cps = malloc((n + 1) * sizeof *cps);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        ucs4_t uc;
        int len = u8_mbtouc(&uc, s + i, n - i);
        cps[k++] = uc;
        i += len > 0 ? (size_t)len : 1; /* it never returns < 1; guard anyway */
    }
    out_u32_array(key, cps, k);
    free(cps);
}

static void decode(const unsigned char *b, size_t n) {
    const uint8_t *bad = u8_check(b, n);
    out_bool("valid", bad == NULL);
    if (bad == NULL) {
        mbtouc_loop("scalars", b, n);
    } else {
        size_t pos = (size_t)(bad - b);
        ucs4_t uc;
        out_uint("valid_up_to", pos);
        int r = u8_mbtoucr(&uc, b + pos, n - pos);
        if (r == -2) out_null("error_len");
        else if (r == -1) out_uint("error_len", (unsigned long long)u8_mbtouc(&uc, b + pos, n - pos));
        else fprintf(stderr, "libunistring: u8_check and u8_mbtoucr disagree at %zu\n", pos);
    }
    mbtouc_loop("lossy", b, n);
}

static void encode(uint32_t scalar) {
    uint8_t buf[6];
    int len = u8_uctomb(buf, scalar, sizeof buf);
    if (len < 0) out_str("error", "refused");
    else out_hex("bytes", buf, (size_t)len);
}

int main(void) {
    /* The runtime library's version: (major<<16) + (minor<<8) + subminor. */
    char version[16];
    snprintf(version, sizeof version, "%d.%d.%d", _libunistring_version >> 16,
             (_libunistring_version >> 8) & 0xff, _libunistring_version & 0xff);
    return proto_serve("libunistring", version, "[\"strict\",\"lossy\",\"encode\"]", decode, encode);
}
