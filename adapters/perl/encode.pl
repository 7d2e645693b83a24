#!/usr/bin/perl
# Perl's Encode module as utf8conform decoders (docs/protocol.md).
#
# Usage: perl adapters/perl/encode.pl [perl-encode-utf8-strict | perl-encode-utf8-lax]
#
#   perl-encode-utf8-strict   Encode's 'UTF-8' (the strict one, per Encode's
#                             "UTF-8 vs. utf8 vs. UTF8" docs)
#   perl-encode-utf8-lax      Encode's 'utf8' (Perl's own lax, extended form)
#
# Library calls and what each capability maps to (ENC is 'UTF-8' or 'utf8'):
#
#   validate, decode
#       Encode::decode(ENC, $bytes, FB_CROAK | LEAVE_SRC): valid when it
#       returns (scalars: ord of each character), invalid when it dies.
#   position
#       Encode::decode(ENC, $copy, FB_QUIET): "return the portion of the data
#       that has been processed so far when an error occurs. The data
#       argument is overwritten with everything after that point; that is,
#       the unprocessed portion": valid_up_to = length(bytes) - length($copy).
#   subpart
#       error_len null when Encode::decode(ENC, $copy, FB_CROAK |
#       STOP_AT_PARTIAL) returns without dying but leaves bytes unprocessed:
#       Encode stopped at a partial character at the end, waiting for more
#       (the mode PerlIO uses for streams). Otherwise error_len is the number
#       of bytes Encode hands to a CHECK coderef on its first call: Encode
#       documents that a decode fallback "takes a list of ordinal values" -
#       the bytes it found malformed (the same bytes its FB_CROAK message
#       quotes, e.g. 'UTF-8 "\xC0\xAF" does not map to Unicode').
#   lossy
#       Encode::decode(ENC, $bytes, FB_DEFAULT | LEAVE_SRC): "replace any
#       malformed character with ... U+FFFD".
#   encode
#       Encode::encode(ENC, chr($n), FB_CROAK | LEAVE_SRC). Perl's chr() takes
#       any value here (Perl strings hold code points beyond Unicode), so the
#       encoder alone decides. Its error ('"\x{d800}" does not map to UTF-8')
#       gives no reason: "refused".
#
#   stream-strict, stream-lossy (protocol 2)
#       Encode's way of decoding input that arrives in pieces, the one
#       PerlIO::encoding uses: the encoding object's decode method
#       (OBJ = find_encoding(ENC)) with a CHECK that leaves what it has not
#       processed in the buffer, and the caller appends the next chunk to
#       that rest (Encode: FB_QUIET is "handy when you have to call decode
#       repeatedly in the case where your source data may contain partial
#       multi-byte character sequences ... $buffer now contains the
#       unprocessed partial character"; STOP_AT_PARTIAL: stop at a partial
#       character at the end instead of treating it as malformed). One call
#       per chunk ($buf .= chunk), then the flush call with no new bytes and
#       without STOP_AT_PARTIAL (the input has ended). Each call's list is
#       what that decode returned.
#       strict: OBJ->decode($buf, FB_QUIET | STOP_AT_PARTIAL). If it leaves a
#           rest, OBJ->decode(copy of rest, FB_CROAK | STOP_AT_PARTIAL) says
#           which it is: it returns (a partial character: kept for the next
#           call) or dies (malformed: the error, after which no more calls
#           are made). valid_up_to = bytes fed so far - length of the rest
#           Encode left; error_len = the number of bytes Encode hands a CHECK
#           coderef first for the rest (as for decode), null when the rest is
#           a partial character at the flush (FB_QUIET without
#           STOP_AT_PARTIAL stops there, and FB_CROAK | STOP_AT_PARTIAL
#           calls it partial). The error call keeps what FB_QUIET returned
#           before the error.
#       lossy: OBJ->decode($buf, FB_DEFAULT | STOP_AT_PARTIAL) per chunk
#           (FB_DEFAULT replaces, STOP_AT_PARTIAL keeps a partial character
#           in $buf), OBJ->decode($buf, FB_DEFAULT) at the flush, which
#           decodes all of it.
#   reuse  NOT claimed: an Encode::Encoding object keeps no decoding state
#       between calls (everything a stream carries is the caller's buffer,
#       which belongs to that stream), so a second input on one object could
#       only show what a fresh one shows.
#
# All four decode fields and encode come from Encode itself: "strict",
# "lossy", "encode" are claimed.
use strict;
use warnings;
no warnings qw(utf8 surrogate nonchar non_unicode portable);

use B ();
use Encode ();
use JSON::PP ();
# JSON::XS (Debian: libjson-xs-perl) when installed: the pure-Perl JSON::PP
# would be most of this adapter's time. Both give JSON::PP::Boolean
# booleans, so the checks below work with either.
my $JSON = eval { require JSON::XS; 'JSON::XS' } // 'JSON::PP';

my %variants = (
    'perl-encode-utf8-strict' => 'UTF-8',
    'perl-encode-utf8-lax'    => 'utf8',
);
my $name = $ARGV[0] // 'perl-encode-utf8-strict';
my $enc = $variants{$name}
  or die "usage: $0 [" . join('|', sort keys %variants) . "]\n";

my $json = $JSON->new->allow_nonref;
my $obj = Encode::find_encoding($enc) or die "Encode has no $enc\n";

sub code_points { [ map { ord } split //, $_[0] ] }

# The response fields for one decode request, as [key, value] pairs in order.
sub decode_fields {
    my ($bytes) = @_;
    my @fields;
    my $text;
    if (eval { $text = Encode::decode($enc, $bytes, Encode::FB_CROAK | Encode::LEAVE_SRC); 1 }) {
        push @fields, [valid => JSON::PP::true], [scalars => code_points($text)];
    } else {
        push @fields, [valid => JSON::PP::false];

        my $rest = $bytes;
        Encode::decode($enc, $rest, Encode::FB_QUIET);
        push @fields, [valid_up_to => length($bytes) - length($rest)];

        my $tail = $bytes;
        my $partial = eval {
            Encode::decode($enc, $tail, Encode::FB_CROAK | Encode::STOP_AT_PARTIAL);
            1;
        } && length($tail) > 0;
        if ($partial) {
            push @fields, [error_len => undef];
        } else {
            my $first;
            Encode::decode($enc, my $copy = $bytes, sub { $first //= scalar @_; "\x{FFFD}" });
            push @fields, [error_len => $first] if defined $first;
        }
    }
    push @fields, [lossy => code_points(Encode::decode($enc, $bytes, Encode::FB_DEFAULT | Encode::LEAVE_SRC))];
    return @fields;
}

# One stream: the answer fields [calls => ...] (and [error => ...]).
sub stream_fields {
    my ($mode, $chunks, $flush) = @_;
    my (@calls, $error);
    my $buf = '';
    my $fed = 0;
    my @inputs = ((map { [$_, 0] } @$chunks), ($flush ? (['', 1]) : ()));
    for my $index (0 .. $#inputs) {
        my ($chunk, $final) = @{ $inputs[$index] };
        $buf .= $chunk;
        $fed += length $chunk;
        if ($mode eq 'lossy') {
            my $text = $obj->decode($buf, $final ? Encode::FB_DEFAULT : Encode::FB_DEFAULT | Encode::STOP_AT_PARTIAL);
            $buf = '' if $final;    # FB_DEFAULT alone decodes it all (and leaves $buf as it was)
            push @calls, code_points($text);
            next;
        }
        my $text = $obj->decode($buf, $final ? Encode::FB_QUIET : Encode::FB_QUIET | Encode::STOP_AT_PARTIAL);
        push @calls, code_points($text);
        next unless length $buf;
        my $probe = $buf;
        my $partial = eval { $obj->decode($probe, Encode::FB_CROAK | Encode::STOP_AT_PARTIAL); 1 };
        next if $partial && !$final;
        my $len;
        if ($partial) {
            $len = undef;
        } else {
            my $first;
            $obj->decode(my $copy = $buf, sub { $first //= scalar @_; '' });
            $len = $first;
        }
        $error = { call => $index, valid_up_to => $fed - length($buf) };
        $error->{error_len} = $len if $partial || defined $len;
        last;
    }
    return ([calls => \@calls], $error ? ([error => $error]) : ());
}

# [chunks as byte strings, flush] from a stream request, or what is wrong.
sub stream_input {
    my ($req) = @_;
    return 'missing chunks' unless exists $req->{chunks};
    my $chunks = $req->{chunks};
    return 'chunks is not a list' unless ref $chunks eq 'ARRAY';
    for (@$chunks) {
        return 'bad hex in chunks' unless is_json_string($_) && /\A(?:[0-9a-fA-F]{2})*\z/;
    }
    my $flush = exists $req->{flush} ? $req->{flush} : JSON::PP::true;
    return 'flush is not a boolean' unless JSON::PP::is_bool($flush);
    return [[map { pack 'H*', $_ } @$chunks], $flush ? 1 : 0];
}

sub encode_fields {
    my ($n) = @_;
    my $out;
    return [error => 'refused']
      unless eval { $out = Encode::encode($enc, chr($n), Encode::FB_CROAK | Encode::LEAVE_SRC); 1 };
    return [bytes => unpack('H*', $out)];
}

# A JSON integer (not a string, not a float with a fraction) in range.
sub is_scalar_value {
    my ($v) = @_;
    return 0 if !defined $v || ref $v;
    my $flags = B::svref_2object(\$v)->FLAGS;
    return 0 unless $flags & (B::SVf_IOK | B::SVf_NOK) and !($flags & B::SVf_POK);
    return "$v" =~ /\A(?:0|[1-9][0-9]{0,9})\z/ && $v <= 4294967295;
}

# A JSON string (not a number, which Perl would also match as text).
sub is_json_string {
    my ($v) = @_;
    return 0 if !defined $v || ref $v;
    my $flags = B::svref_2object(\$v)->FLAGS;
    return ($flags & B::SVf_POK) && !($flags & (B::SVf_IOK | B::SVf_NOK));
}

sub respond {
    my ($id, @fields) = @_;
    my $line = '{"id":' . $json->encode($id);
    $line .= ',"' . $_->[0] . '":' . $json->encode($_->[1]) for @fields;
    print $line, "}\n";
}

sub bad { respond($_[0], [error => "bad request: $_[1]"]) }

binmode STDIN;
binmode STDOUT;
$| = 1;    # flush after every print

print JSON::PP->new->canonical->encode({
    hello => {
        name         => $name,
        version      => "Encode $Encode::VERSION, perl " . sprintf('%vd', $^V),
        protocol     => 2,
        capabilities => [qw(strict lossy encode stream)],
    },
}), "\n";

while (my $line = <STDIN>) {
    $line =~ s/\r?\n\z//;
    my $req = eval { $json->decode($line) };
    if (!defined $req && $@) { bad(undef, 'not JSON'); next }
    if (ref $req ne 'HASH') { bad(undef, 'not a JSON object'); next }
    if (!exists $req->{id}) { bad(undef, 'missing id'); next }
    my $id = $req->{id};
    my $op = $req->{op};
    if (!exists $req->{op}) { bad($id, 'missing op'); next }
    if (defined $op && !ref $op && $op eq 'decode') {
        if (!exists $req->{bytes}) { bad($id, 'missing bytes'); next }
        my $hex = $req->{bytes};
        if (!defined $hex || ref $hex || $hex !~ /\A(?:[0-9a-fA-F]{2})*\z/) {
            bad($id, 'bad hex in bytes');
            next;
        }
        respond($id, decode_fields(pack 'H*', $hex));
    } elsif (defined $op && !ref $op && $op eq 'encode') {
        if (!is_scalar_value($req->{scalar})) {
            bad($id, 'scalar must be an integer 0..=4294967295');
            next;
        }
        respond($id, encode_fields($req->{scalar}));
    } elsif (defined $op && !ref $op && $op eq 'stream') {
        if (!exists $req->{mode}) { bad($id, 'missing mode'); next }
        my $mode = $req->{mode};
        if (!defined $mode || ref $mode || ($mode ne 'strict' && $mode ne 'lossy')) {
            bad($id, 'mode must be one of strict, lossy');
            next;
        }
        my $input = stream_input($req);
        if (!ref $input) { bad($id, $input); next }
        respond($id, stream_fields($mode, @$input));
    } else {
        bad($id, 'unknown op');
    }
}
