// Package parsepool runs the daemon's parses in worker processes: the
// pool that starts, routes, ends and replaces them (Workers), the wire
// between the daemon and a worker (one gob stream each way over the
// worker's stdin and stdout, wire.go), the worker's side (ServeWorker,
// which answers with tools/blocks' in-process API over a tree cache of
// its own), their limits (a worker's memory, its parse time and the
// grace past it, the wait for a free worker, process groups and the
// parent-death signal, Windows' job object), and Parser, the
// tools.Parser the executor parses through.
//
// Tree-sitter is C code, and some of its parses cannot be stopped or end
// the process that runs them (an assertion, a grammar's buffer overrun):
// in a worker, a parse past its time is ended by ending the worker, and
// an abort ends only the worker. Either is answered as a decline of that
// file's parse, the worker is replaced, and the daemon and every other
// call go on. What needs no parse (the grammar a path gets, the parse
// limit, the line range, the wording of a decline) is answered in the
// daemon by tools/blocks, which owns the grammars and the rules; this
// package owns processes and knows nothing of sessions (a call's owner
// is an opaque name), tags or the ops text.
package parsepool
