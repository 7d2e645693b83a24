#!/usr/bin/env node
// Node.js UTF-8 decoders as utf8conform decoders (docs/protocol.md).
//
// Usage: node adapters/node/decoders.js VARIANT
//
// node-textdecoder            WHATWG TextDecoder('utf-8') with its default
//                             options, as a typical caller writes it.
//   validate, decode  new TextDecoder('utf-8', {fatal: true}).decode(bytes):
//                     valid when it returns, invalid when it throws
//                     (TypeError ERR_ENCODING_INVALID_ENCODED_DATA).
//   position, subpart NOT claimed: the fatal decoder throws without saying
//                     where or how long the bad sequence is.
//   lossy             new TextDecoder('utf-8').decode(bytes): the replacing
//                     mode the Encoding Standard defines.
//   encode            new TextEncoder().encode(String.fromCodePoint(n)).
//                     String.fromCodePoint throws RangeError above 0x10FFFF
//                     ("out-of-range"); a lone surrogate is a valid JS string
//                     and TextEncoder encodes whatever it makes of it: the
//                     bytes are reported as they come.
//   BOM: the default ignoreBOM = false strips one leading U+FEFF (EF BB BF)
//   from the output, as the Encoding Standard says. That is reported as is;
//   node-textdecoder-ignorebom is the same decoder with ignoreBOM: true.
//
// node-textdecoder-ignorebom  as above with {ignoreBOM: true} on both.
//
// node-buffer-tostring        Buffer.from(hex, 'hex').toString('utf8'), the
//                             everyday Node idiom (V8's UTF-8 decoder).
//   lossy             its output, on every input; it never fails.
//   encode            Buffer.from(String.fromCodePoint(n), 'utf8').
//
// node-buffer-isutf8          require('node:buffer').isUtf8(bytes) (Node >=
//                             18.14): a validator only.
//   validate          its boolean. Nothing else is claimed.
//
// Strings are UTF-16: output is turned into code points with for..of, which
// joins a well-formed surrogate pair into one code point and yields a lone
// surrogate as itself (protocol: "scalars").
'use strict';

const readline = require('node:readline');
const buffer = require('node:buffer');

const variant = process.argv[2] || 'node-textdecoder';

function codePoints(str) {
  const out = [];
  for (const ch of str) out.push(ch.codePointAt(0));
  return out;
}

function textEncode(n) {
  let str;
  try {
    str = String.fromCodePoint(n);
  } catch (e) {
    if (e instanceof RangeError) return { error: 'out-of-range' };
    return { error: 'refused' };
  }
  return { bytes: Buffer.from(new TextEncoder().encode(str)).toString('hex') };
}

function textDecoderVariant(options) {
  const fatal = new TextDecoder('utf-8', { ...options, fatal: true });
  const replacing = new TextDecoder('utf-8', options);
  return {
    capabilities: ['validate', 'decode', 'lossy', 'encode'],
    decode(bytes) {
      let scalars = null;
      try {
        scalars = codePoints(fatal.decode(bytes));
      } catch (e) {
        if (!(e instanceof TypeError)) throw e; // only the "invalid data" error means invalid
      }
      const lossy = codePoints(replacing.decode(bytes));
      return scalars ? { valid: true, scalars, lossy } : { valid: false, lossy };
    },
    encode: textEncode,
  };
}

const variants = {
  'node-textdecoder': () => textDecoderVariant({}),
  'node-textdecoder-ignorebom': () => textDecoderVariant({ ignoreBOM: true }),
  'node-buffer-tostring': () => ({
    capabilities: ['lossy', 'encode'],
    decode: (bytes) => ({ lossy: codePoints(bytes.toString('utf8')) }),
    encode(n) {
      let str;
      try {
        str = String.fromCodePoint(n);
      } catch (e) {
        return { error: e instanceof RangeError ? 'out-of-range' : 'refused' };
      }
      return { bytes: Buffer.from(str, 'utf8').toString('hex') };
    },
  }),
  'node-buffer-isutf8': () => ({
    capabilities: ['validate'],
    decode: (bytes) => ({ valid: buffer.isUtf8(bytes) }),
    encode: null,
  }),
};

if (!variants[variant]) {
  process.stderr.write(`unknown variant ${variant}; one of ${Object.keys(variants).join(', ')}\n`);
  process.exit(2);
}
const decoder = variants[variant]();

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
    return { id, ...decoder.decode(Buffer.from(hex, 'hex')) };
  }
  if (request.op === 'encode') {
    if (!decoder.encode) return { id, error: 'bad request: op encode not supported by this decoder' };
    const n = request.scalar;
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) {
      return { id, error: 'bad request: scalar must be an integer 0..=4294967295' };
    }
    return { id, ...decoder.encode(n) };
  }
  return { id, error: 'bad request: unknown op' };
}

const hello = {
  hello: { name: variant, version: process.versions.node, capabilities: decoder.capabilities },
};
process.stdout.write(JSON.stringify(hello) + '\n');

// One answer per line, written as soon as it is computed. process.stdout on
// a pipe writes at once when it can and queues otherwise; Node exits once
// stdin has closed and the queue has drained.
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', (line) => {
  process.stdout.write(JSON.stringify(handle(line)) + '\n');
});
