// Package review owns every change the tools make to files (wire-contract
// §5, edit-contract §13.1): making it, and the durable record of it. For
// each path of each change it keeps the bytes needed to restore the path,
// the digests of what was there before and what landed after, and a
// bounded unified diff for the desktop app to show.
//
// A change has one way in, Store.Apply, and one way back, RestoreTxn.Restore
// for one call, RewindTxn.Rewind for many calls as one (a user turn, the
// calls since one, a session):
//
//	landed, err := store.Apply(call, edits) // intent, write (each path checked against what the tool read), commit; undone on failure
//
//	txn, err := store.BeginRestore(session, toolCallID) // a rollback: load the before bytes
//	// ... the caller (package rollback) checks each target's live file ...
//	err = txn.Restore(live, rootOf)                      // intent, restore each path, mark rolled back; undone on failure
//
//	rw, err := store.BeginRewind(session, sel)            // a rewind: per path, the selected changes and the before bytes
//	// ... the caller checks each path and decides (restore, merge, keep, force) ...
//	recorded, err := rw.Rewind(puts, rootOf)             // one intent, one write per path, one transaction; undone on failure
//
// Both record their intent durably before the first byte is written, so a
// crash at any moment leaves a record from which Open puts every path back
// to exactly its before or its after (recover.go). Every write of either,
// their undo, and recovery's restores go through one step loop (step.go).
// Apply's recording half (begin, changeTxn) is unexported: Apply is the
// one way a change is made and recorded, for the tools and for tests.
//
// review does not resolve paths, decide permissions, or touch session
// snapshots: the caller hands it resolved paths (workspace.Path) and
// invalidates its own snapshots. Every file operation goes through
// package workspace. The storage layout and the reasons behind it are in
// docs/review-store.md.
package review
