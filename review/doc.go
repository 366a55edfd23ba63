// Package review owns the durable record of every change the tools make to
// files (wire-contract §5, edit-contract §13.1): for each path of each mutation it
// keeps the bytes needed to restore the path, the digests of what was there
// before and what landed after, and a bounded unified diff for the desktop
// app to show.
//
// The protocol around a mutation is intent first, record second:
//
//	txn, err := store.Begin(session, toolCallID, tool, changes) // durable intent with the before bytes
//	// ... the tool layer writes the files through workspace.WriteFile / RemoveFile ...
//	entries, err := txn.Commit(landed)                          // durable entries, intent dropped
//	// or txn.Abort() when the tool gives up: whatever landed is undone
//
// so that a crash at any moment leaves a record from which Open can put
// every path back to exactly its before or its after. Rollback of a
// recorded call runs the same way through BeginRestore (the rollback
// package drives it); recovery finishes an interrupted rollback.
//
// review does not resolve paths, decide permissions, or touch session
// snapshots: the caller hands it canonical paths and invalidates its own
// snapshots. The only file writes it makes are restores through
// workspace.WriteFile and workspace.RemoveFile. The storage layout and the
// reasons behind it are in docs/review-store.md.
package review
