package main

import (
	"fmt"
	"strings"
)

// helpFor is the help of one command or family (`hostctl help review`,
// `hostctl review --help`): the entries of usageText whose command name
// starts with topic's words, so it never says other than the full help.
func helpFor(topic []string) (string, error) {
	want := strings.Join(topic, " ")
	var b strings.Builder
	in, matched := false, false
	for _, line := range strings.Split(usageText, "\n") {
		switch {
		case line == "commands:":
			in = true
			continue
		case in && !strings.HasPrefix(line, "  "):
			in = false
		}
		if !in {
			continue
		}
		entry := strings.TrimPrefix(line, "  ")
		if !strings.HasPrefix(entry, " ") { // an entry's first line, not its continuation
			matched = entry == want || strings.HasPrefix(entry, want+" ")
		}
		if matched {
			b.WriteString(line + "\n")
		}
	}
	if b.Len() == 0 {
		return "", usageErrorf("no command %q; 'hostctl help' lists them", want)
	}
	return fmt.Sprintf("usage: hostctl [flags] %s\n\n%s\nflags (anywhere on the line): --socket PATH, --json, --timeout DUR; 'hostctl help' says what each does\n", want+" …", b.String()), nil
}
