package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hostd-dev/hostd/internal/client"
	"github.com/hostd-dev/hostd/rpc/wire"
)

// completeCommand is the hidden command the completion scripts run to
// offer what only the daemon knows: `hostctl __complete WORD...`, given
// the words typed before the one being completed (flags included: they
// are parsed as on any line, so --socket reaches the right daemon),
// prints the candidates for the next word, one a line. It is silent and
// exits 0 whenever it has nothing to offer: no daemon, a daemon that does
// not answer in time, a position that takes no daemon-known value.
const completeCommand = "__complete"

// completeTimeout bounds the whole lookup: a shell waits on it at a TAB.
const completeTimeout = 2 * time.Second

// completionKind says what the word after typed is: "sessions",
// "toolcalls" or "prompts" (of session) or "methods"; "" when the daemon
// has nothing to add there.
func completionKind(typed []string) (kind, session string) {
	if len(typed) >= 4 && typed[0] == "review" && typed[1] == "rewind" {
		// review rewind SESSION [flags...] --prompt|--since|--call <TAB>
		switch typed[len(typed)-1] {
		case "--prompt":
			return "prompts", typed[2]
		case "--since", "--call":
			return "toolcalls", typed[2]
		}
		return "", ""
	}
	switch {
	case len(typed) == 1 && (typed[0] == "session" || typed[0] == "watch"):
		return "sessions", ""
	case len(typed) == 2 && (typed[0] == "session" && typed[1] == "delete" ||
		typed[0] == "review" && (typed[1] == "list" || typed[1] == "rollback" || typed[1] == "rewind")):
		return "sessions", ""
	case len(typed) == 3 && typed[0] == "review" && typed[1] == "rollback":
		return "toolcalls", typed[2]
	case len(typed) == 1 && typed[0] == "call":
		return "methods", ""
	}
	return "", ""
}

// cmdComplete prints the daemon-known candidates for the word after typed.
// Every failure is swallowed: a completion that prints an error would
// scribble over the person's command line.
func cmdComplete(ctx context.Context, a *app, typed []string) {
	if a.completing != "" {
		typed = append(slices.Clip(typed), a.completing)
	}
	kind, session := completionKind(typed)
	if kind == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, min(a.timeout, completeTimeout))
	defer cancel()
	c, err := dial(ctx, a.socket, a.maxFrame)
	if err != nil {
		return
	}
	defer c.Close()
	var words []string
	rpc := client.Typed(c)
	switch kind {
	case "sessions":
		// Live sessions, and those only the review record still knows
		// (review list and rollback take them too).
		if live, err := rpc.SessionList(ctx); err == nil {
			for _, s := range live.Sessions {
				words = append(words, s.SessionID)
			}
		}
		if recorded, err := rpc.ReviewSessions(ctx); err == nil {
			for _, s := range recorded.Sessions {
				words = append(words, s.SessionID)
			}
		}
	case "toolcalls":
		if l, err := rpc.ReviewList(ctx, wire.ReviewListParams{SessionID: session}); err == nil {
			for _, e := range l.Entries {
				words = append(words, e.ToolCallID)
			}
		}
	case "prompts":
		if l, err := rpc.ReviewList(ctx, wire.ReviewListParams{SessionID: session}); err == nil {
			for _, e := range l.Entries {
				if e.PromptID != "" {
					words = append(words, e.PromptID)
				}
			}
		}
	case "methods":
		if doc, err := rpc.RPCDiscover(ctx); err == nil {
			for _, m := range doc.Methods {
				words = append(words, m.Name)
			}
		}
	}
	slices.Sort(words)
	for _, w := range slices.Compact(words) {
		if shellSafe(w) {
			fmt.Fprintln(a.io.out, w)
		}
	}
}

// shellSafe reports whether w can go into a shell's completion list as it
// is. Session ids and toolCallIds are the clients' choice, and bash's
// compgen -W expands its list ($(…), quotes, globs): a word with anything
// beyond these characters is left out rather than quoted for three shells.
func shellSafe(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._:@/+=,%-", r)) {
			return false
		}
	}
	return true
}
