#!/usr/bin/env node
// ECMAScript's decodeURIComponent / encodeURIComponent (V8, in Node) as the
// utf8conform decoder "node-decodeuricomponent" (docs/protocol.md).
//
// Usage: node adapters/node/uri.js
//
// The URI functions carry their own UTF-8 decoder and encoder: ECMA-262's
// Decode abstract operation reads the octets of %XX escapes and "If Octets
// does not contain a valid UTF-8 encoding of a Unicode code point, throw a
// URIError exception"; V8 implements it in its URI code, apart from
// TextDecoder and Buffer. It is on every page that reads a URL.
//
//   validate, decode
//       decodeURIComponent(s), where s spells every input byte as a %XX
//       escape (ASCII bytes too: %41 decodes to "A", and no byte is left to
//       be read as URI syntax). Valid when it returns; scalars are the code
//       points of the result (for..of: the string is UTF-16, and for..of
//       joins a well-formed pair, a lone surrogate would come out as itself).
//       Invalid when it throws URIError ("URI malformed").
//   encode
//       encodeURIComponent(String.fromCodePoint(n)); every %XX of the result
//       is one byte, any other character (unreserved ASCII, which the
//       function leaves as it is) is the byte of its ASCII code.
//       String.fromCodePoint throws RangeError above 0x10FFFF
//       ("out-of-range"); encodeURIComponent throws URIError for a lone
//       surrogate (ECMA-262's Encode: "If C is a surrogate not part of a
//       pair"), which says nothing more: "refused".
//
// Not claimed:
//   position, subpart  URIError carries only "URI malformed": no offset, no
//                      length.
//   lossy              the URI functions have no replacing mode.
'use strict';

const readline = require('node:readline');

const NAME = 'node-decodeuricomponent';

function decode(bytes) {
  let escaped = '';
  for (const b of bytes) escaped += '%' + (b < 16 ? '0' : '') + b.toString(16);
  let str;
  try {
    str = decodeURIComponent(escaped);
  } catch (e) {
    if (e instanceof URIError) return { valid: false };
    throw e;
  }
  const scalars = [];
  for (const ch of str) scalars.push(ch.codePointAt(0));
  return { valid: true, scalars };
}

function encode(n) {
  let str;
  try {
    str = String.fromCodePoint(n);
  } catch (e) {
    if (e instanceof RangeError) return { error: 'out-of-range' };
    return { error: 'refused' };
  }
  let uri;
  try {
    uri = encodeURIComponent(str);
  } catch (e) {
    if (e instanceof URIError) return { error: 'refused' };
    throw e;
  }
  let hex = '';
  for (let i = 0; i < uri.length; ) {
    if (uri[i] === '%') {
      hex += uri.slice(i + 1, i + 3).toLowerCase();
      i += 3;
    } else {
      hex += uri.charCodeAt(i).toString(16).padStart(2, '0');
      i += 1;
    }
  }
  return { bytes: hex };
}

function handle(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    return { id: null, error: 'bad request: not JSON' };
  }
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    return { id: null, error: 'bad request: not a JSON object' };
  }
  if (!('id' in request)) return { id: null, error: 'bad request: missing id' };
  const id = request.id;
  if (!('op' in request)) return { id, error: 'bad request: missing op' };
  if (request.op === 'decode') {
    if (!('bytes' in request)) return { id, error: 'bad request: missing bytes' };
    const hex = request.bytes;
    // Buffer.from(hex, 'hex') silently stops at the first bad digit: check first.
    if (typeof hex !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(hex)) {
      return { id, error: 'bad request: bad hex in bytes' };
    }
    return { id, ...decode(Buffer.from(hex, 'hex')) };
  }
  if (request.op === 'encode') {
    const n = request.scalar;
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
      return { id, error: 'bad request: scalar must be an integer 0..=4294967295' };
    }
    return { id, ...encode(n) };
  }
  return { id, error: 'bad request: unknown op' };
}

const hello = {
  hello: { name: NAME, version: process.versions.node, capabilities: ['validate', 'decode', 'encode'] },
};
process.stdout.write(JSON.stringify(hello) + '\n');

// One answer per line, written as soon as it is computed (see decoders.js).
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', (line) => {
  process.stdout.write(JSON.stringify(handle(line)) + '\n');
});
