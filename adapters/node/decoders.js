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
//   stream-strict, stream-lossy (protocol 2)
//                     the same two constructors, one new object per stream
//                     request: decoder.decode(chunk, {stream: true}) per
//                     chunk ("more input follows"), then decoder.decode()
//                     for the flush; each call's string is that call's list.
//                     A fatal call that throws the TypeError returns nothing
//                     ([]), and no more calls are made; the error has no
//                     valid_up_to or error_len because the TypeError does
//                     not say where or how long (as for decode).
//   reuse             the same calls, every input of a reuse request on one
//                     TextDecoder object, never re-created: what the object
//                     keeps after a decode() without stream, after throwing,
//                     or after seeing a BOM is what the next input meets.
//
// node-textdecoder-ignorebom  as above with {ignoreBOM: true} on both.
//
// node-buffer-tostring        Buffer.from(hex, 'hex').toString('utf8'), the
//                             everyday Node idiom (V8's UTF-8 decoder).
//   lossy             its output, on every input; it never fails.
//   encode            Buffer.from(String.fromCodePoint(n), 'utf8').
//   stream-lossy, reuse (protocol 2)
//                     new StringDecoder('utf8') (node:string_decoder), the
//                     API Node documents for decoding Buffers that arrive
//                     in pieces "in a manner that preserves encoded
//                     multi-byte UTF-8 ... characters": decoder.write(chunk)
//                     per chunk, decoder.end() for the flush ("Bytes
//                     representing incomplete UTF-8 ... characters will be
//                     replaced with substitution characters"). It decodes
//                     the whole characters of each chunk with
//                     Buffer#toString and keeps the bytes of an incomplete
//                     one. Reuse: one object for all inputs ("After end() is
//                     called, the decoder object can be reused for new
//                     input"). It has no mode that fails: no stream-strict.
//
// node-buffer-isutf8          require('node:buffer').isUtf8(bytes) (Node >=
//                             18.14): a validator only.
//   validate          its boolean. Nothing else is claimed. isUtf8 has no
//                     incremental form: protocol 1 requests only.
//
// Strings are UTF-16: output is turned into code points with for..of, which
// joins a well-formed surrogate pair into one code point and yields a lone
// surrogate as itself (protocol: "scalars").
'use strict';

const readline = require('node:readline');
const buffer = require('node:buffer');
const { StringDecoder } = require('node:string_decoder');

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

// A stream's calls on one TextDecoder. `state.open` says whether the last
// run on this object was left open (flush false, no error).
function textDecoderRun(decoder, chunks, flush) {
  const calls = [];
  const n = chunks.length + (flush ? 1 : 0);
  for (let i = 0; i < n; i++) {
    let text;
    try {
      text = i < chunks.length ? decoder.decode(chunks[i], { stream: true }) : decoder.decode();
    } catch (e) {
      if (!(e instanceof TypeError)) throw e; // only the "invalid data" error is a decoding error
      calls.push([]);
      return { calls, error: { call: i } };
    }
    calls.push(codePoints(text));
  }
  return { calls };
}

function textDecoderVariant(options) {
  const fatal = new TextDecoder('utf-8', { ...options, fatal: true });
  const replacing = new TextDecoder('utf-8', options);
  const make = (mode) => new TextDecoder('utf-8', mode === 'strict' ? { ...options, fatal: true } : options);
  return {
    capabilities: ['validate', 'decode', 'lossy', 'encode', 'stream', 'reuse'],
    streamModes: ['strict', 'lossy'],
    reuse: true,
    newStream: (mode) => {
      const decoder = make(mode);
      return (chunks, flush) => textDecoderRun(decoder, chunks, flush);
    },
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
    capabilities: ['lossy', 'encode', 'stream-lossy', 'reuse'],
    streamModes: ['lossy'],
    reuse: true,
    newStream: () => {
      const decoder = new StringDecoder('utf8');
      return (chunks, flush) => {
        const calls = chunks.map((chunk) => codePoints(decoder.write(chunk)));
        if (flush) calls.push(codePoints(decoder.end()));
        return { calls };
      };
    },
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

const HEX = /^(?:[0-9a-fA-F]{2})*$/;

// {chunks: [Buffer], flush} from a stream request or a reuse input, or a
// string saying what is wrong with it.
function parseStreamInput(obj) {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return 'an input is not an object';
  if (!('chunks' in obj)) return 'missing chunks';
  if (!Array.isArray(obj.chunks)) return 'chunks is not a list';
  if (!obj.chunks.every((c) => typeof c === 'string' && HEX.test(c))) return 'bad hex in chunks';
  const flush = 'flush' in obj ? obj.flush : true;
  if (typeof flush !== 'boolean') return 'flush is not a boolean';
  return { chunks: obj.chunks.map((c) => Buffer.from(c, 'hex')), flush };
}

function streamRequest(request) {
  if (!decoder.newStream) return 'unknown op';
  if (!('mode' in request)) return 'missing mode';
  if (!decoder.streamModes.includes(request.mode)) {
    return `mode must be one of ${decoder.streamModes.join(', ')}`;
  }
  if (request.op === 'stream') {
    const input = parseStreamInput(request);
    if (typeof input === 'string') return input;
    return decoder.newStream(request.mode)(input.chunks, input.flush);
  }
  if (!decoder.reuse) return 'unknown op';
  if (!('inputs' in request)) return 'missing inputs';
  if (!Array.isArray(request.inputs)) return 'inputs is not a list';
  const inputs = request.inputs.map(parseStreamInput);
  const wrong = inputs.find((i) => typeof i === 'string');
  if (wrong) return wrong;
  const run = decoder.newStream(request.mode);
  return { runs: inputs.map((i) => run(i.chunks, i.flush)) };
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
  if (request.op === 'stream' || request.op === 'reuse') {
    const answer = streamRequest(request);
    if (typeof answer === 'string') return { id, error: `bad request: ${answer}` };
    return { id, ...answer };
  }
  return { id, error: 'bad request: unknown op' };
}

const hello = {
  hello: { name: variant, version: process.versions.node, capabilities: decoder.capabilities },
};
if (decoder.newStream) hello.hello.protocol = 2;
process.stdout.write(JSON.stringify(hello) + '\n');

// One answer per line, written as soon as it is computed. process.stdout on
// a pipe writes at once when it can and queues otherwise; Node exits once
// stdin has closed and the queue has drained.
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', (line) => {
  process.stdout.write(JSON.stringify(handle(line)) + '\n');
});
