// Command hostd is the daemon: it serves hostd's JSON-RPC wire contract to
// the desktop app that spawns it (--stdio) and to every other local client
// over a private Unix socket (the default). It owns the process: flags and
// config, logging, the socket and its security, signals and the shutdown
// sequence. Everything a client can call lives in package rpc and below.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	if err != nil {
		if !errors.Is(err, errHelp) { // --help and --version printed already
			fmt.Fprintln(os.Stderr, "hostd:", err)
		}
		os.Exit(exitCode(err))
	}
}
