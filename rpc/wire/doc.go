// Package wire is what crosses hostd's wire, written once for the daemon
// and for its clients: the LSP base-protocol frame reader and writer (the
// only one in the project; the frame cap is checked from the header,
// before a body is read), the params and result types of every method
// (the daemon's method table dispatches on them and generates the OpenRPC
// document from their json and doc tags, and clients decode the same
// types), every shape those carry (review entries, session summaries,
// limits, stats, the rewind report), the error codes with their wire
// names, and the protocol version. It imports only the standard library
// (docs/architecture_test.go holds it): a client that imports it links
// nothing of the daemon, and the domain packages convert to its shapes at
// the handler or build them for what they emit. It does no I/O beyond
// framing what it is handed.
package wire
