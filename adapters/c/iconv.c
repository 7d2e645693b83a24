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

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "glibc-iconv";
    const char *to, *from_enc, *caps;
    if (strcmp(name, "glibc-iconv") == 0) {
        to = "WCHAR_T", from_enc = "WCHAR_T";
        caps = "[\"validate\",\"position\",\"decode\",\"encode\"]";
    } else if (strcmp(name, "glibc-iconv-utf32") == 0) {
        to = UTF32_NATIVE, from_enc = UTF32_NATIVE;
        caps = "[\"validate\",\"position\",\"decode\",\"encode\"]";
    } else if (strcmp(name, "glibc-iconv-c") == 0) {
        to = "WCHAR_T//IGNORE", from_enc = NULL, ignore_mode = 1;
        caps = "[\"lossy\"]";
    } else {
        fprintf(stderr, "usage: %s [glibc-iconv|glibc-iconv-utf32|glibc-iconv-c]\n", argv[0]);
        return 2;
    }
    dec = iconv_open(to, "UTF-8");
    if (dec == (iconv_t)-1) { perror("iconv_open"); return 1; }
    if (from_enc) {
        enc = iconv_open("UTF-8", from_enc);
        if (enc == (iconv_t)-1) { perror("iconv_open"); return 1; }
    }
    return proto_serve(name, gnu_get_libc_version(), caps, decode, from_enc ? encode : NULL);
}
