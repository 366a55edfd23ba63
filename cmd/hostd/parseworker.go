package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/spawn"
	"github.com/hostd-dev/hostd/tools"
	"github.com/hostd-dev/hostd/tools/parsepool"
)

// parseWorkerCommand is the first argument that makes hostd a parse
// worker: the daemon starts itself again with it for each of its parse
// workers (parsepool.Workers), which speak to it over stdin and stdout. It
// is not for people, and not in --help.
const parseWorkerCommand = "parse-worker"

// runParseWorker is the worker mode: tree-sitter parses for the daemon
// that started this process, until the daemon closes stdin. A signal
// (ctx) ends it at once: it holds nothing that needs an orderly end.
func runParseWorker(ctx context.Context, std stdio) error {
	go func() {
		<-ctx.Done()
		os.Exit(1)
	}()
	if err := parsepool.ServeWorker(std.in, std.out); err != nil {
		return fmt.Errorf("parse worker: %w", err)
	}
	return nil
}

// startSpawner starts this program as the daemon's process spawner
// (spawn.Command), which starts the parse workers; nil where the
// platform has none (the daemon then starts them itself).
func startSpawner() (*spawn.Spawner, error) {
	cmd, err := parsepool.SelfCommand(spawn.Command)
	if err != nil {
		return nil, err
	}
	sp, err := spawn.Start(cmd.Path, cmd.Args[1:]...)
	if err != nil {
		return nil, err
	}
	return sp, nil
}

// newParseWorkers is the daemon's pool of parse workers: this program in
// its worker mode, as many as limits.maxParseWorkers at once, each with
// its share of limits.maxParseTreeBytes and at most
// limits.maxParseWorkerBytes of memory, one parse of a session at a time.
// One worker starts now, so the first parse does not wait for it.
func newParseWorkers(lim config.Limits, log *zap.Logger, spawner *spawn.Spawner) (*parsepool.Workers, error) {
	w, err := parsepool.NewWorkers(parsepool.WorkersConfig{
		Command:        func() (*exec.Cmd, error) { return parsepool.SelfCommand(parseWorkerCommand) },
		Spawner:        spawner,
		Count:          lim.MaxParseWorkers,
		MaxTreeBytes:   lim.MaxParseTreeBytes,
		MaxMemoryBytes: lim.MaxParseWorkerBytes,
		Owner:          tools.CallSession,
		OnEvent: func(ev parsepool.WorkerEvent) {
			switch {
			case ev.Started:
				log.Debug("parse worker started", zap.Int("workerPid", ev.PID), zap.Duration("took", ev.Took), zap.String("memoryLimit", ev.Limit))
			case ev.PID == 0:
				log.Warn("a parse worker could not start", zap.String("why", ev.Why))
			default:
				log.Warn("parse worker ended", zap.Int("workerPid", ev.PID), zap.String("path", ev.Path), zap.String("why", ev.Why))
			}
		},
	})
	if err != nil {
		return nil, err
	}
	w.Start()
	return w, nil
}
