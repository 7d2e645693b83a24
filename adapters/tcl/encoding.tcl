# Tcl 8.6's utf-8 encoding as the utf8conform decoder "tcl-encoding-utf8"
# (docs/protocol.md).
#
# Usage: tclsh adapters/tcl/encoding.tcl
#
# Library calls and what each capability maps to:
#
#   lossy
#       [encoding convertfrom utf-8 $bytes]. Tcl 8.6 never fails here: the
#       encoding(n) page has no error mode for convertfrom, and a byte that
#       does not start a well-formed sequence becomes the character of the
#       same value, its ISO-8859-1 meaning (Tcl's utf.test checks it: "naked
#       trail bytes" are one character each; on 8.6.13 C0 AF gives U+00C0
#       U+00AF, F4 90 80 80 four such characters). That is this decoder's
#       replacing mode, reported as it is. Each
#       character of the result is one element of [split $s ""], its value
#       [scan $c %c]. Tcl 8.6's strings hold UTF-16 code units (Debian's build
#       has TCL_UTF_MAX 3): a character above U+FFFF becomes a surrogate pair,
#       and split and scan %c of 8.6.13 hand a well-formed pair back as one
#       element and one code point, a lone surrogate as itself, as the
#       protocol asks of a UTF-16 decoder.
#   encode
#       [encoding convertto utf-8 [format %c $n]]. format %c is Tcl's way to
#       make a character from a number; in 8.6 it yields U+FFFD for every
#       value above U+FFFF (the string cannot hold the character), which the
#       encoder then writes as EF BF BD. Surrogates go through as three
#       bytes. Neither call ever refuses, so neither does this adapter.
#
# Not claimed:
#   validate, position, subpart, decode
#       Tcl 8.6 has no strict mode: `encoding convertfrom` takes only an
#       encoding name and the data ("-strict" and "-profile" are Tcl 8.7/9.0,
#       TIP 346/607/656; 8.6.13 answers "wrong # args"). Nothing in the
#       library says whether the input was well-formed, so the adapter cannot
#       say either.
#
# JSON: Debian's tcl-yajltcl (yajl's Tcl binding). Its `parse` returns typed
# tokens (`number 7`, `string str-id`), so an id goes back as the type it
# came in (tcllib's json2dict would turn the number 7 and the string "7" into
# the same Tcl value). Answers are written with its generator (for the id)
# and by hand (lists of integers).

package require Tcl 8.6
package require yajltcl

set NAME tcl-encoding-utf8

set parser [yajl create #auto]
set generator [yajl create #auto]

# A JSON value from the token list at index i: returns {type value next} for
# a scalar, {compound {} next} for an array or object (whose contents the
# protocol never needs). Raises an error on a malformed stream.
proc value_at {tokens i} {
    set type [lindex $tokens $i]
    switch -- $type {
        string - number - bool { return [list $type [lindex $tokens [expr {$i + 1}]] [expr {$i + 2}]] }
        null { return [list null {} [expr {$i + 1}]] }
        map_open - array_open {
            set depth 0
            for {set j $i} {$j < [llength $tokens]} {incr j} {
                set t [lindex $tokens $j]
                switch -- $t {
                    map_open - array_open { incr depth }
                    map_close - array_close {
                        incr depth -1
                        if {$depth == 0} { return [list compound {} [expr {$j + 1}]] }
                    }
                    map_key - string - number - bool { incr j }
                }
            }
            error "unterminated"
        }
    }
    error "no value"
}

# The top-level object of one request line as a dict key -> {type value},
# or an error "not JSON" / "not a JSON object".
proc parse_request {line} {
    global parser
    $parser reset
    if {[catch {concat [$parser parse $line] [$parser parse_complete]} tokens]} {
        error "not JSON"
    }
    if {[llength $tokens] == 0} { error "not JSON" }
    # yajl stops quietly at the end of an incomplete text: check that one
    # whole value was read.
    if {[catch {value_at $tokens 0} top] || [lindex $top 2] != [llength $tokens]} {
        error "not JSON"
    }
    if {[lindex $tokens 0] ne "map_open"} { error "not a JSON object" }
    set members {}
    set i 1
    while {[lindex $tokens $i] eq "map_key"} {
        set key [lindex $tokens [expr {$i + 1}]]
        lassign [value_at $tokens [expr {$i + 2}]] type value i
        dict set members $key [list $type $value]
    }
    return $members
}

# The JSON text of an id token (its type kept).
proc id_json {type value} {
    global generator
    $generator reset
    switch -- $type {
        string { $generator string $value }
        number { $generator number $value }
        bool { $generator bool $value }
        null { $generator null }
        default { return null }
    }
    return [$generator get]
}

proc code_points {s} {
    set r {}
    foreach c [split $s ""] { lappend r [scan $c %c] }
    return [join $r ,]
}

proc decode {bytes} {
    return ",\"lossy\":\[[code_points [encoding convertfrom utf-8 $bytes]]\]"
}

proc encode {n} {
    binary scan [encoding convertto utf-8 [format %c $n]] H* hex
    return ",\"bytes\":\"$hex\""
}

proc bad {id what} { return "{\"id\":$id,\"error\":\"bad request: $what\"}" }

proc handle {line} {
    if {[catch {parse_request $line} req]} { return [bad null $req] }
    if {![dict exists $req id]} { return [bad null "missing id"] }
    set id [id_json {*}[dict get $req id]]
    if {![dict exists $req op]} { return [bad $id "missing op"] }
    lassign [dict get $req op] optype op
    if {$optype eq "string" && $op eq "decode"} {
        if {![dict exists $req bytes]} { return [bad $id "missing bytes"] }
        lassign [dict get $req bytes] htype hex
        if {$htype ne "string" || ![regexp {^(?:[0-9a-fA-F]{2})*$} $hex]} {
            return [bad $id "bad hex in bytes"]
        }
        return "{\"id\":$id[decode [binary format H* $hex]]}"
    }
    if {$optype eq "string" && $op eq "encode"} {
        set scalar {}
        if {[dict exists $req scalar]} { lassign [dict get $req scalar] stype scalar }
        if {![info exists stype] || $stype ne "number" || ![regexp {^(?:0|[1-9][0-9]{0,9})$} $scalar]
            || $scalar > 4294967295} {
            return [bad $id "scalar must be an integer 0..=4294967295"]
        }
        return "{\"id\":$id[encode $scalar]}"
    }
    return [bad $id "unknown op"]
}

fconfigure stdin -translation binary
fconfigure stdout -translation lf -encoding ascii -buffering full
puts "{\"hello\":{\"name\":\"$NAME\",\"version\":\"[info patchlevel]\",\"capabilities\":\[\"lossy\",\"encode\"\]}}"
flush stdout
while {[gets stdin line] >= 0} {
    puts [handle [string trimright $line "\r"]]
    flush stdout
}
