# common/regions.awk - exercise regions in the lesson sources, the
# way nbgrader marks solution regions in a notebook.
#
# A region, in a chapter's kernel.cu (or a header of its own):
#
#     // ---- exercise 02.1: Keep STAGES tiles in flight ----
#     // hint: one or more lines of hint
#     ...the lesson's code: the answer...
#     // stub: code the starter gets instead (optional; a comment in the lesson)
#     // ---- end of exercise 02.1 ----
#
# The number is the chapter's and the exercise's; one exercise may have
# several regions (the title and hints of the first one name it).
#
#   awk -v mode=strip -f regions.awk FILE    the student's starter: each body
#        becomes a TODO line and the stub lines (uncommented, tagged as the
#        starter's); markers and hints stay, so the student writes between them.
#        -v only="03 04": strip only the regions of those chapters' exercises
#        and leave the others as they are (a later chapter's or a variant's
#        copy of an earlier exercise's code is a region of that exercise)
#   awk -v mode=clean -f regions.awk FILE    the file without the marker, hint
#        and stub lines (what `make diff-NN` compares)
#   awk -v mode=answers -f regions.awk FILES   one line per line of a
#        region's body, the answer, without its comments and blanks:
#        id <TAB> code
#        (make handout's leak test looks for these lines elsewhere)
#   awk -v mode=list -f regions.awk FILES    one line per region:
#        file <TAB> line <TAB> id <TAB> title <TAB> state <TAB> hint
#        state: "todo" (the starter's body, untouched) or "written"
#   awk -v mode=spans [-v name=NAME] -f regions.awk [FILE]   one line per
#        region of one file (or of the text on stdin, NAME in the messages):
#        begin <TAB> end <TAB> id <TAB> title <TAB> state, the marker lines'
#        numbers (from 1); what the grader reads a submission with
#        (tests/classroom/regions.py), so this file is the format's one owner
# Malformed markers (nested, unterminated, a mismatched end, a
# listing marker inside a region but in spans mode, where a submission's
# comment is no listing) stop it with exit 1 and a message.

function fail(msg) {
    printf "%s:%d: %s\n", name != "" ? name : FILENAME, FNR, msg > "/dev/stderr"
    failed = 1
    exit 1
}

BEGIN { STUB_TAG = "  // starter stub: replace it" }

# whether the region of exercise id is stripped (mode=strip, -v only=...)
function stripped(id) { return only == "" || index(" " only " ", " " substr(id, 1, 2) " ") > 0 }

function todo_line(id) { return "// TODO: exercise " id " - write it here, between these markers." }

function strip_comment(s) { sub(/^[ \t]*\/\/ ?/, "", s); return s }

FNR == 1 && open != "" {
    printf "%s: exercise %s has no end marker\n", prev_file, open > "/dev/stderr"
    failed = 1
    exit 1
}

{
    prev_fnr = FNR
    prev_file = FILENAME
    line = $0
    is_begin = match(line, /^[ \t]*\/\/ ---- exercise [0-9][0-9]\.[0-9]+: .* ----[ \t]*$/)
    is_end = match(line, /^[ \t]*\/\/ ---- end of exercise [0-9][0-9]\.[0-9]+ ----[ \t]*$/)
    is_hint = match(line, /^[ \t]*\/\/ hint: /)
    is_stub = match(line, /^[ \t]*\/\/ stub: /)
    is_todo = match(line, /^[ \t]*\/\/ TODO: exercise [0-9][0-9]\.[0-9]+ - /)
}

is_begin {
    if (open != "") fail("exercise region inside exercise " open)
    s = line
    sub(/^[ \t]*\/\/ ---- exercise /, "", s)
    open = substr(s, 1, index(s, ":") - 1)
    title = substr(s, index(s, ":") + 2)
    sub(/ ----[ \t]*$/, "", title)
    indent = line
    sub(/\/\/.*/, "", indent)
    begin_line = FNR
    hint = ""
    body = 0    # lines of the body that are neither hint, stub nor the TODO line
    in_hints = 1
    kept = mode == "strip" && !stripped(open)
    if (mode == "strip") print line
    next
}

is_end {
    s = line
    sub(/^[ \t]*\/\/ ---- end of exercise /, "", s)
    sub(/ ----[ \t]*$/, "", s)
    if (open == "") fail("end of exercise " s " without its beginning")
    if (s != open) fail("end of exercise " s " inside exercise " open)
    if (mode == "strip" && kept) print line
    else if (mode == "strip") {
        print indent todo_line(open)
        for (i = 1; i <= nstub; ++i) print stub[i] STUB_TAG
        print line
    }
    if (mode == "list")
        printf "%s\t%d\t%s\t%s\t%s\t%s\n", FILENAME, begin_line, open, title, body == 0 ? "todo" : "written", hint
    if (mode == "spans")
        printf "%d\t%d\t%s\t%s\t%s\n", begin_line, FNR, open, title, body == 0 ? "todo" : "written"
    open = ""
    nstub = 0
    next
}

open != "" {
    if (mode != "spans" && line ~ /^[ \t]*\/\/ \[[^]]+\][ \t]*$/) fail("a listing marker (// [name]) inside exercise " open " (the starter would lose it)")
    if (kept) { print line; next }
    if (is_hint && in_hints) {
        h = line
        sub(/^[ \t]*\/\/ hint: /, "", h)
        hint = hint (hint == "" ? "" : " ") h
        if (mode == "strip") print line
        next
    }
    in_hints = 0
    if (is_stub) {
        s = line
        sub(/\/\/ stub: /, "", s)
        stub[++nstub] = s
        next
    }
    if (index(line, STUB_TAG) > 0) { # a starter's stub: stripping a starter again keeps it
        stub[++nstub] = substr(line, 1, index(line, STUB_TAG) - 1)
        next
    }
    if (is_todo) next
    body++
    if (mode == "clean") print line
    if (mode == "answers") {
        s = line
        gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", s)
        sub(/\/\/.*/, "", s)
        gsub(/[ \t]/, "", s)
        if (s != "") printf "%s\t%s\n", open, s
    }
    next
}

# outside every region
mode == "strip" || mode == "clean" { print line }

END {
    if (failed) exit 1
    if (open != "") { FNR = prev_fnr; fail("exercise " open " has no end marker") }
}
