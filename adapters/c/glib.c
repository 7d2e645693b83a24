/*
 * GLib's UTF-8 functions (gutf8.c) as the utf8conform decoder "glib"
 * (docs/protocol.md).
 *
 * Library calls and what each capability maps to:
 *
 *   validate  g_utf8_validate_len(str, len, &end): "TRUE if the text was
 *             valid UTF-8". Documented: it "will always return FALSE if any
 *             of the bytes of str are nul", so "00" is invalid here.
 *   position  the `end` it returns: "the first byte of the first invalid
 *             character if some bytes were invalid".
 *   decode    g_utf8_to_ucs4(str, len, NULL, &written, &error) on input
 *             g_utf8_validate_len accepted: the UCS-4 GLib returns. (Should
 *             it fail there, scalars are left out and stderr says so.)
 *   subpart   NOT claimed: neither call gives the length of the bad
 *             sequence. (g_utf8_to_ucs4 can tell a trailing partial
 *             character, G_CONVERT_ERROR_PARTIAL_INPUT, but without a
 *             length for the other errors `error_len` cannot be answered.)
 *   lossy     g_utf8_make_valid(str, len): GLib's replacing mode; its UTF-8
 *             result is turned into code points with g_utf8_to_ucs4.
 *   encode    g_unichar_to_utf8(c, buf): GLib's encoder has no error return,
 *             so whatever bytes it writes are reported, for every value.
 *   stream, reuse: NOT claimed (protocol 1). GLib's UTF-8 code has no
 *             incremental decoder: g_utf8_get_char_validated() decodes one
 *             character (-2 = partial), so a streaming loop around it would
 *             be this adapter's; GIConv / g_convert and GIO's
 *             GCharsetConverter convert with the system iconv (glibc's
 *             decoder, streamed by glibc-iconv).
 */
#include "proto.h"

#include <glib.h>

static void decode(const unsigned char *b, size_t n) {
    const gchar *str = (const gchar *)b, *end = NULL;
    if (n == 0) str = ""; /* GLib wants a real pointer even for no bytes */

    gboolean valid = g_utf8_validate_len(str, n, &end);
    out_bool("valid", valid);
    if (!valid) {
        out_uint("valid_up_to", (unsigned long long)(end - str));
    } else {
        glong written = 0;
        GError *error = NULL;
        gunichar *ucs4 = g_utf8_to_ucs4(str, (glong)n, NULL, &written, &error);
        if (ucs4) out_u32_array("scalars", ucs4, (size_t)written);
        else fprintf(stderr, "glib: g_utf8_to_ucs4 refused validated input: %s\n", error->message);
        g_clear_error(&error);
        g_free(ucs4);
    }

    gchar *fixed = g_utf8_make_valid(str, (gssize)n);
    glong written = 0;
    GError *error = NULL;
    gunichar *ucs4 = g_utf8_to_ucs4(fixed, -1, NULL, &written, &error);
    if (ucs4) out_u32_array("lossy", ucs4, (size_t)written);
    else fprintf(stderr, "glib: g_utf8_to_ucs4 refused g_utf8_make_valid output: %s\n", error->message);
    g_clear_error(&error);
    g_free(ucs4);
    g_free(fixed);
}

static void encode(uint32_t scalar) {
    gchar buf[8];
    gint len = g_unichar_to_utf8((gunichar)scalar, buf);
    out_hex("bytes", (unsigned char *)buf, (size_t)len);
}

int main(void) {
    char version[32];
    snprintf(version, sizeof version, "%u.%u.%u", glib_major_version, glib_minor_version,
             glib_micro_version);
    return proto_serve("glib", version, "[\"validate\",\"position\",\"decode\",\"lossy\",\"encode\"]",
                       decode, encode);
}
