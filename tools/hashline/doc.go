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
//	Lower         Patch -> IR: inserts, deletes, cuts, pastes, blocks, all
//	              anchored on original line numbers (§8.1)
//	ResolveBlocks block locators -> spans, through a BlockResolver (§8.2)
//	Expand        the clipboard pre-pass: cuts capture, pastes read (§8.3)
//	Validate      bounds, overlaps, duplicate anchors, expansion cap (§7.3)
//	Apply         lines + IR -> new lines and the changed regions
//	Commit        named-register captures, after the write has landed
//
// Every line number in an IR indexes the tagged text. Ops never see each
// other's effects, so the order of ops in the text never changes where they
// land; it only orders register captures and pastes.
//
// Failures are *Error values whose Code is an edit-contract §11 name (or
// INVALID_ARGUMENT) and whose Message names one concrete next step. They
// wrap the sentinels below, so callers branch with errors.Is.
package hashline
