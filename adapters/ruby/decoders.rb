#!/usr/bin/env ruby
# frozen_string_literal: true

# Ruby's UTF-8 decoders as utf8conform decoders (docs/protocol.md).
#
# Usage: ruby adapters/ruby/decoders.rb VARIANT
#
# ruby-string: the String API for a UTF-8 tagged string,
#   s = bytes.force_encoding(Encoding::UTF_8)
#   validate  s.valid_encoding?
#   decode    s.codepoints, on valid input
#   lossy     s.scrub ("replaces invalid byte sequences with the given
#             replacement character", U+FFFD by default for UTF-8)
#   encode    Integer#chr(Encoding::UTF_8). It raises RangeError with
#             "... out of char range" for some values ("out-of-range") and
#             "invalid codepoint 0x... in UTF-8" for others, which does not
#             say why ("refused").
#   position, subpart: NOT claimed; this API does not say where or what.
#   stream, reuse: NOT claimed (protocol 1): String methods take the whole
#             string (Ruby's incremental decoder is Encoding::Converter,
#             below).
#
# ruby-encoding-converter: Encoding::Converter.new('UTF-8', 'UTF-32LE'),
# Ruby's transcoder, driven with primitive_convert over the whole input.
#   validate, decode
#             primitive_convert returns :finished; the scalars are the
#             UTF-32LE units it wrote (unpack 'V*').
#   position  otherwise it returns :invalid_byte_sequence or
#             :incomplete_input, and primitive_errinfo gives "error_bytes"
#             (the discarded bytes) and "readagain_bytes" (bytes it read but
#             puts back); the source string is consumed as it goes. So the
#             bad sequence starts at
#             consumed - error_bytes.bytesize - readagain_bytes.bytesize.
#   subpart   error_len = error_bytes.bytesize, or null when the result is
#             :incomplete_input (Converter#last_error.incomplete_input?:
#             "caused by premature end of string").
#   lossy     bytes.encode('UTF-32LE', 'UTF-8', invalid: :replace) (the same
#             transcoder with its replacement, U+FFFD).
#   encode    NOT claimed (the transcoder has no code point API).
#   stream-strict, stream-lossy (protocol 2)
#             a new Encoding::Converter.new('UTF-8', 'UTF-32LE') per stream
#             request (with invalid: :replace for lossy: the converter's own
#             replacing mode, U+FFFD for a Unicode destination), driven as
#             the Converter docs say for input that comes in pieces: one
#             primitive_convert(chunk, dst, nil, nil, partial_input: true)
#             per chunk ("partial_input: true - source buffer may be part of
#             larger source"), then primitive_convert('', dst, nil, nil)
#             without partial_input for the flush. The converter keeps an
#             incomplete sequence itself (:source_buffer_empty means the
#             chunk was taken). Each call's list is the UTF-32LE units it
#             wrote. Strict: :invalid_byte_sequence (or, at the flush,
#             :incomplete_input) is the error, after which no more calls are
#             made; valid_up_to = the bytes fed so far in this stream, minus
#             what primitive_convert left in the chunk, minus the
#             primitive_errinfo error_bytes and readagain_bytes (as for
#             decode; left out should that fall before the stream's first
#             byte); error_len = error_bytes.bytesize, null for
#             :incomplete_input.
#   reuse     the same calls, all inputs on one converter, never re-created:
#             what it does with input after it has answered :finished, or
#             after an error, is what the next input meets.
#
# ruby-pack-u: Array#pack / String#unpack with the 'U' (UTF-8 character)
# directive.
#   validate, decode
#             bytes.unpack('U*'): the code points, or ArgumentError
#             ("malformed UTF-8 character", "redundant UTF-8 sequence").
#   encode    [n].pack('U'); RangeError "pack(U): value out of range" says
#             it is out of range.
#   stream, reuse: NOT claimed (protocol 1): unpack takes a whole string.
require 'json'

def code_points_utf32le(bytes)
  bytes.unpack('V*')
end

def hex_of(bytes)
  bytes.unpack1('H*')
end

STRING_VARIANT = {
  capabilities: %w[validate decode lossy encode],
  decode: lambda do |bytes|
    s = bytes.dup.force_encoding(Encoding::UTF_8)
    if s.valid_encoding?
      { 'valid' => true, 'scalars' => s.codepoints, 'lossy' => s.scrub.codepoints }
    else
      { 'valid' => false, 'lossy' => s.scrub.codepoints }
    end
  end,
  encode: lambda do |n|
    { 'bytes' => hex_of(n.chr(Encoding::UTF_8)) }
  rescue RangeError => e
    { 'error' => e.message.include?('out of char range') ? 'out-of-range' : 'refused' }
  end
}.freeze

# One Encoding::Converter fed in pieces (protocol 2 stream and reuse).
class ConverterStream
  def initialize(mode)
    opts = mode == 'lossy' ? { invalid: :replace } : {}
    @ec = Encoding::Converter.new('UTF-8', 'UTF-32LE', **opts)
    @fed = 0
  end

  # One input: returns { 'calls' => [...], 'error' => {...} }.
  def run(chunks, flush, continues)
    @fed = 0 unless continues
    calls = []
    inputs = chunks.map { |c| [c, true] }
    inputs << [String.new(encoding: Encoding::BINARY), false] if flush
    inputs.each_with_index do |(chunk, partial), index|
      src = chunk.dup
      @fed += src.bytesize
      dst = String.new(encoding: Encoding::BINARY)
      result = if partial
                 @ec.primitive_convert(src, dst, nil, nil, partial_input: true)
               else
                 @ec.primitive_convert(src, dst, nil, nil)
               end
      calls << code_points_utf32le(dst)
      next unless %i[invalid_byte_sequence incomplete_input].include?(result)

      _, _, _, error_bytes, readagain_bytes = @ec.primitive_errinfo
      error = { 'call' => index }
      at = @fed - src.bytesize - error_bytes.bytesize - readagain_bytes.bytesize
      error['valid_up_to'] = at if at >= 0
      error['error_len'] = result == :incomplete_input ? nil : error_bytes.bytesize
      return { 'calls' => calls, 'error' => error }
    end
    { 'calls' => calls }
  end
end

CONVERTER_VARIANT = {
  capabilities: %w[strict lossy stream reuse],
  stream: ConverterStream,
  decode: lambda do |bytes|
    ec = Encoding::Converter.new('UTF-8', 'UTF-32LE')
    src = bytes.dup
    dst = String.new(encoding: Encoding::BINARY)
    result = ec.primitive_convert(src, dst, nil, nil)
    answer = {}
    if result == :finished
      answer['valid'] = true
      answer['scalars'] = code_points_utf32le(dst)
    else
      _, _, _, error_bytes, readagain_bytes = ec.primitive_errinfo
      consumed = bytes.bytesize - src.bytesize
      answer['valid'] = false
      answer['valid_up_to'] = consumed - error_bytes.bytesize - readagain_bytes.bytesize
      answer['error_len'] = result == :incomplete_input ? nil : error_bytes.bytesize
      warn "ruby-encoding-converter: unexpected result #{result}" unless
        %i[invalid_byte_sequence incomplete_input].include?(result)
    end
    replaced = bytes.dup.force_encoding(Encoding::UTF_8).encode('UTF-32LE', invalid: :replace)
    answer['lossy'] = code_points_utf32le(replaced.force_encoding(Encoding::BINARY))
    answer
  end,
  encode: nil
}.freeze

PACK_VARIANT = {
  capabilities: %w[validate decode encode],
  decode: lambda do |bytes|
    { 'valid' => true, 'scalars' => bytes.unpack('U*') }
  rescue ArgumentError
    { 'valid' => false }
  end,
  encode: lambda do |n|
    { 'bytes' => hex_of([n].pack('U')) }
  rescue RangeError => e
    { 'error' => e.message.include?('out of range') ? 'out-of-range' : 'refused' }
  end
}.freeze

VARIANTS = {
  'ruby-string' => STRING_VARIANT,
  'ruby-encoding-converter' => CONVERTER_VARIANT,
  'ruby-pack-u' => PACK_VARIANT
}.freeze

name = ARGV[0] || 'ruby-string'
variant = VARIANTS[name]
abort "usage: #{$PROGRAM_NAME} [#{VARIANTS.keys.join('|')}]" unless variant

# [chunks (binary strings), flush] of a stream request or reuse input, or a
# string saying what is wrong with it.
def stream_input(obj)
  return 'an input is not an object' unless obj.is_a?(Hash)
  return 'missing chunks' unless obj.key?('chunks')

  chunks = obj['chunks']
  return 'chunks is not a list' unless chunks.is_a?(Array)
  return 'bad hex in chunks' unless chunks.all? { |c| c.is_a?(String) && c.match?(/\A(?:[0-9a-fA-F]{2})*\z/) }

  flush = obj.fetch('flush', true)
  return 'flush is not a boolean' unless [true, false].include?(flush)

  [chunks.map { |c| [c].pack('H*') }, flush]
end

def stream_request(request, variant)
  return 'unknown op' unless variant[:stream]
  return 'missing mode' unless request.key?('mode')
  return 'mode must be one of strict, lossy' unless %w[strict lossy].include?(request['mode'])

  if request['op'] == 'stream'
    input = stream_input(request)
    return input if input.is_a?(String)

    return variant[:stream].new(request['mode']).run(*input, false)
  end
  return 'missing inputs' unless request.key?('inputs')
  return 'inputs is not a list' unless request['inputs'].is_a?(Array)

  inputs = request['inputs'].map { |i| stream_input(i) }
  wrong = inputs.find { |i| i.is_a?(String) }
  return wrong if wrong

  stream = variant[:stream].new(request['mode'])
  continues = false
  runs = inputs.map do |chunks, flush|
    run = stream.run(chunks, flush, continues)
    continues = !flush && !run.key?('error')
    run
  end
  { 'runs' => runs }
end

def handle(line, variant)
  begin
    request = JSON.parse(line)
  rescue JSON::ParserError, EncodingError
    return { 'id' => nil, 'error' => 'bad request: not JSON' }
  end
  return { 'id' => nil, 'error' => 'bad request: not a JSON object' } unless request.is_a?(Hash)
  return { 'id' => nil, 'error' => 'bad request: missing id' } unless request.key?('id')

  id = request['id']
  return { 'id' => id, 'error' => 'bad request: missing op' } unless request.key?('op')

  case request['op']
  when 'decode'
    return { 'id' => id, 'error' => 'bad request: missing bytes' } unless request.key?('bytes')

    hex = request['bytes']
    unless hex.is_a?(String) && hex.match?(/\A(?:[0-9a-fA-F]{2})*\z/)
      return { 'id' => id, 'error' => 'bad request: bad hex in bytes' }
    end

    { 'id' => id }.merge(variant[:decode].call([hex].pack('H*')))
  when 'encode'
    unless variant[:encode]
      return { 'id' => id, 'error' => 'bad request: op encode not supported by this decoder' }
    end

    n = request['scalar']
    unless n.is_a?(Integer) && n >= 0 && n <= 0xFFFFFFFF
      return { 'id' => id, 'error' => 'bad request: scalar must be an integer 0..=4294967295' }
    end

    { 'id' => id }.merge(variant[:encode].call(n))
  when 'stream', 'reuse'
    answer = stream_request(request, variant)
    return { 'id' => id, 'error' => "bad request: #{answer}" } if answer.is_a?(String)

    { 'id' => id }.merge(answer)
  else
    { 'id' => id, 'error' => 'bad request: unknown op' }
  end
end

$stdin.binmode
$stdout.binmode
$stdout.sync = true # every write goes out at once
hello = { 'name' => name, 'version' => RUBY_VERSION, 'capabilities' => variant[:capabilities] }
hello['protocol'] = 2 if variant[:stream]
$stdout.write(JSON.generate({ 'hello' => hello }), "\n")
$stdin.each_line do |line|
  $stdout.write(JSON.generate(handle(line.chomp, variant)), "\n")
end
