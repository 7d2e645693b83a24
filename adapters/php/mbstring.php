<?php
/*
 * PHP's mbstring extension as the utf8conform decoder "php-mbstring"
 * (docs/protocol.md).
 *
 * Usage: php adapters/php/mbstring.php
 *
 * Library calls and what each capability maps to:
 *
 *   validate  mb_check_encoding($bytes, 'UTF-8').
 *   decode    on valid input, mb_convert_encoding($bytes, 'UTF-32BE', 'UTF-8')
 *             read back as 32-bit big-endian units: mbstring's own decode.
 *   lossy     the same mb_convert_encoding() call on any input, with PHP's
 *             default substitute character (mb_substitute_character(), '?'
 *             = 63 unless configured): what mbstring puts in place of bad
 *             bytes. (mb_scrub() and mb_convert_encoding(.., 'UTF-8',
 *             'UTF-8') substitute the same way.)
 *   encode    mb_chr($n, 'UTF-8'): "Returns a string containing the
 *             requested character, if it can be represented in the specified
 *             encoding or false on failure" - no reason: "refused".
 *   position, subpart: NOT claimed; mbstring does not report where or how
 *             long a bad sequence is.
 *   stream, reuse: NOT claimed (protocol 1): mbstring converts whole
 *             strings only (PHP's convert.iconv.* stream filter belongs to the
 *             iconv extension, i.e. glibc's decoder).
 */

function code_points_utf32be(string $units): array
{
    return $units === '' ? [] : array_values(unpack('N*', $units));
}

function decode_fields(string $bytes): array
{
    $fields = [];
    $converted = mb_convert_encoding($bytes, 'UTF-32BE', 'UTF-8');
    if (mb_check_encoding($bytes, 'UTF-8')) {
        $fields['valid'] = true;
        $fields['scalars'] = code_points_utf32be($converted);
    } else {
        $fields['valid'] = false;
    }
    $fields['lossy'] = code_points_utf32be($converted);
    return $fields;
}

function encode_fields(int $n): array
{
    $char = mb_chr($n, 'UTF-8');
    return $char === false ? ['error' => 'refused'] : ['bytes' => bin2hex($char)];
}

function handle(string $line): array
{
    try {
        $request = json_decode($line, false, 512, JSON_THROW_ON_ERROR);
    } catch (JsonException $e) {
        return ['id' => null, 'error' => 'bad request: not JSON'];
    }
    if (!($request instanceof stdClass)) {
        return ['id' => null, 'error' => 'bad request: not a JSON object'];
    }
    if (!property_exists($request, 'id')) {
        return ['id' => null, 'error' => 'bad request: missing id'];
    }
    $id = $request->id;
    if (!property_exists($request, 'op')) {
        return ['id' => $id, 'error' => 'bad request: missing op'];
    }
    if ($request->op === 'decode') {
        if (!property_exists($request, 'bytes')) {
            return ['id' => $id, 'error' => 'bad request: missing bytes'];
        }
        $hex = $request->bytes;
        // strspn, not a regex: PCRE's backtracking limit fails on long inputs.
        if (!is_string($hex) || strlen($hex) % 2 !== 0
            || strspn($hex, '0123456789abcdefABCDEF') !== strlen($hex)) {
            return ['id' => $id, 'error' => 'bad request: bad hex in bytes'];
        }
        return ['id' => $id] + decode_fields(hex2bin($hex));
    }
    if ($request->op === 'encode') {
        $n = $request->scalar ?? null;
        if (!is_int($n) || $n < 0 || $n > 0xFFFFFFFF) {
            return ['id' => $id, 'error' => 'bad request: scalar must be an integer 0..=4294967295'];
        }
        return ['id' => $id] + encode_fields($n);
    }
    return ['id' => $id, 'error' => 'bad request: unknown op'];
}

$hello = ['hello' => [
    'name' => 'php-mbstring',
    'version' => PHP_VERSION,
    'capabilities' => ['validate', 'decode', 'lossy', 'encode'],
]];
fwrite(STDOUT, json_encode($hello) . "\n");
fflush(STDOUT);
while (($line = fgets(STDIN)) !== false) {
    $response = handle(rtrim($line, "\r\n"));
    // JSON_PRESERVE_ZERO_FRACTION echoes an id such as 1.0 as it came.
    fwrite(STDOUT, json_encode($response, JSON_PRESERVE_ZERO_FRACTION | JSON_INVALID_UTF8_SUBSTITUTE) . "\n");
    fflush(STDOUT);
}
