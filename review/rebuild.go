package review

import (
	"bytes"
	"strconv"
	"strings"
)

// rebuild applies to before a unified diff that renderDiff made from it,
// and returns the text the diff describes; ok is false for anything that
// is not such a diff (a summary line, a clipped diff, a diff with a note
// after it, context that does not match). The store keeps the bytes
// before each change and its diff, not the bytes after: this is how a
// rewind that merges gets the agent's version of a file back. The caller
// checks the result against the recorded digest, so a diff of decoded
// text or of content that drifted on save is never taken for the bytes.
func rebuild(before []byte, diff string) (after []byte, ok bool) {
	type line struct {
		op   byte
		text string
		nl   bool
	}
	type hunk struct {
		start, count int
		lines        []line
	}
	var hunks []hunk
	rows := strings.Split(diff, "\n")
	if len(rows) > 0 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	i := 0
	for i < len(rows) && !strings.HasPrefix(rows[i], "@@ ") {
		if !strings.HasPrefix(rows[i], "--- ") && !strings.HasPrefix(rows[i], "+++ ") {
			return nil, false
		}
		i++
	}
	for ; i < len(rows); i++ {
		r := rows[i]
		switch {
		case strings.HasPrefix(r, "@@ "):
			start, count, ok := hunkOld(r)
			if !ok {
				return nil, false
			}
			hunks = append(hunks, hunk{start: start, count: count})
		case len(r) > 0 && (r[0] == ' ' || r[0] == '-' || r[0] == '+'):
			h := &hunks[len(hunks)-1]
			h.lines = append(h.lines, line{op: r[0], text: r[1:], nl: true})
		case r == `\ No newline at end of file`:
			h := &hunks[len(hunks)-1]
			if len(h.lines) == 0 {
				return nil, false
			}
			h.lines[len(h.lines)-1].nl = false
		default:
			return nil, false
		}
	}
	old := strings.SplitAfter(string(before), "\n")
	if len(old) > 0 && old[len(old)-1] == "" {
		old = old[:len(old)-1]
	}
	var out bytes.Buffer
	next := 0 // the next line of before to copy, 0-based
	for _, h := range hunks {
		first := h.start - 1 // 0-based first line the hunk covers
		if h.count == 0 {
			first = h.start // an insertion goes after line start
		}
		if first < next || first > len(old) {
			return nil, false
		}
		for ; next < first; next++ {
			out.WriteString(old[next])
		}
		for _, l := range h.lines {
			text := l.text
			if l.nl {
				text += "\n"
			}
			switch l.op {
			case '+':
				out.WriteString(text)
				continue
			case ' ':
				out.WriteString(text)
			}
			if next >= len(old) || old[next] != text {
				return nil, false
			}
			next++
		}
	}
	for ; next < len(old); next++ {
		out.WriteString(old[next])
	}
	return out.Bytes(), true
}

// hunkOld reads the old side of a hunk header, "@@ -START[,COUNT] +... @@".
func hunkOld(header string) (start, count int, ok bool) {
	rest, found := strings.CutPrefix(header, "@@ -")
	if !found {
		return 0, 0, false
	}
	old, _, found := strings.Cut(rest, " ")
	if !found {
		return 0, 0, false
	}
	s, c, hasCount := strings.Cut(old, ",")
	start, err := strconv.Atoi(s)
	if err != nil {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(c); err != nil {
			return 0, 0, false
		}
	}
	return start, count, true
}
