// Package hashline owns the edit language of the edit tool (edit-contract
// §6-§8, §11, §12): the ops text a model sends, and how it turns into new
// file content. It is pure: text in, text out. It never reads or writes a
// file, never consults a session and never decides whether a tag is fresh;
// the tool layer does those things with the anchors this package reports.
//
// An edit runs as separate steps over plain data, so later phases (drift
// recovery, tree-sitter blocks, named registers, boundary repair) slot in
// as steps without rewriting the others:
//
//	Parse         ops text -> Patch (ops in source order, verbatim headers)
//	lowerStep     Patch -> IR: inserts, deletes, cuts, pastes, blocks, all
//	              anchored on original line numbers (§8.1)
//	resolveStep   block locators -> spans, through a BlockResolver (§8.2)
//	expandStep    the clipboard pre-pass: cuts capture, pastes read (§8.3)
//	validateStep  bounds, overlaps, duplicate anchors, expansion cap (§7.3)
//	repairStep    replacement-boundary repair through a Syntax (§8.4): it
//	              never changes the edit; it asks, or warns
//	Apply         lines + IR -> new lines, the changed regions, and where
//	              each new line came from (kept, moved, or written)
//	Commit        named-register captures, after the write has landed
//
// Each step is tested alone, inside this package; the steps between a
// patch and the IR to apply are unexported, so the compiler holds that
// they are chained in one place, pipeline.go, which every caller runs:
// Plan (Anchor: lowerStep and resolveStep, with a gate the tool puts its
// version and provenance checks in; then Settle: expandStep, validateStep,
// repairStep) and Run (Parse, Plan, Apply, Commit). The edit tool, its
// text path for benchmarks (tools.EditPath), cmd/hostbench and the tests
// all run these functions, so a benchmark times what an edit call runs.
//
// The steps that read line content (expandStep, Apply) take any Text, a
// line count and a line by number: expandStep, ApplyText and RunText then
// read only the lines the ops touch and return the new text as Copies of
// original runs and Rows, without building it, for a caller that holds
// the file as bytes (workspace.Index) and writes it back run by run.
//
// Every line number in an IR indexes the tagged text. Ops never see each
// other's effects, so the order of ops in the text never changes where they
// land; it only orders register captures and pastes.
//
// # Boundary repair (§8.4)
//
// repairStep runs between validateStep and Apply. It only looks at replacement
// ops whose body the model wrote (PUT N.=M: and a resolved PUT N*:); gap
// inserts name no range, and a span paste's rows are captured content,
// not a slip. It searches for the repairs below exactly as a repair that
// answered did, but it never applies one: real edits pass through states
// that do not parse and real files repeat lines, so neither a parse nor
// equality proves a slip (issue 28 replayed four honest edits that such
// repairs changed). When the search finds a repair, the edit is refused
// with EDIT_REPAIR_AMBIGUOUS and a Question: the edit as sent and as
// repaired, ready to send, numbered as the model's tag numbers them
// (Env.Shown for an edit moved by drift recovery). The same request sent
// again, which the tool remembers (Env.AsSent), applies as sent.
//
// A restatement is a candidate on line equality alone, grammar or not: a
// body whose first row equals line N-1, or whose last row equals line M+1,
// where that line survives and nothing else is inserted between it and the
// body. Only the one line immediately outside counts, and only a non-blank
// row restates it: an empty or whitespace-only row carries nothing a model
// could have copied by mistake. A row equal to the range's own boundary
// row is not an echo: it is that row's final text, which the body is meant
// to carry (§7.4). A body made only of restatements (its repaired form is
// the deletion) and an edit whose only change is a restated row (its
// repaired form is no edit) are asked about the same way.
//
// Where a grammar exists, the result as written parses and the result
// without the restated rows does not, the body applies as written and
// nothing is asked: a body may end in "}" before a line that is also "}".
//
// Retention candidates exist only where the file has a grammar and the
// result (restatements dropped) does not parse. A candidate keeps the
// range's first row before the body or its effective-last row (the last
// non-blank one) after it, at most one per op, on top of the dropped
// restatements. A kept row must pass every rule: the original text parsed;
// deleting that row alone from it breaks the parse; the row is only
// structure (brackets, comment fences, bare tags, fi/done/esac, with ; and
// ,); its indentation fits the body (a row kept after the body that starts
// by closing sits shallower than the body's last non-blank row, or at its
// depth for a comment's "*/", whose rows align with it; a row kept before
// the body that ends by opening sits shallower than its first; a pure
// closer kept before the body, or a pure opener kept after it, has exactly
// that row's indentation); a kept closer lines up with the line that opens
// what it closes (the nearest line above not indented deeper has its
// indentation and ends by opening; for "*/" the comment's "/*" has its
// indentation or one space less); a kept closer is missing from the body:
// the line that opens what it closes, when that line is in the range, does
// not appear in the body (same text apart from indentation) with the body
// closing that bracket itself, as when a body wraps the range's block in a
// new "try {" that a later call closes; it does not duplicate the body row
// beside it; the candidate passes validateStep and its whole text parses. Each
// dropped restatement and each kept row costs 1; the cheapest admissible
// candidates are the repair asked about, and when they give different
// texts, each is offered. A closer withheld because the body re-authored
// its construct is named in a warning when the result does not parse, with
// the insert that puts it back, numbered in the result.
//
// A check that cannot run never leads to a guess: with no checker (a nil
// Syntax), a checker that cannot judge a text of a file that has a grammar
// (over the parse limit, declined), the call's parse time spent, or the
// search's bounds reached, the rows apply exactly as sent with one warning
// that says so and names each row or line repair would have asked about,
// with the edit that changes it, numbered in the result. A file type with
// no grammar (Language() == "") has nothing to check: restatements are
// asked about on equality, and nothing is ever kept.
//
// A call spends at most 32 syntax checks, parses at most 24 MiB of text
// in all (a few checks of a file at the 4 MiB parse limit) and builds at
// most 128 candidates, within the parse time the tool gives the call's
// checks (config.Limits.MaxParseMs, shared with block resolution).
//
// Failures are *Error values whose Code is the kind of an edit-contract
// §11 failure (or of an invalid argument), which the tools report by its
// wire code, and whose Message names one concrete next step. They wrap
// the sentinels below, so callers branch with errors.Is.
package hashline
