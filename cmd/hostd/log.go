package main

import (
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/hostd-dev/hostd/config"
)

// newLogger builds the daemon's structured logger: JSON lines to
// --log-file when given, else to stderr. Never to stdout: in --stdio mode
// stdout carries the protocol, and one stray byte breaks the framing.
func newLogger(cfg config.Config, stderr io.Writer) (*zap.Logger, func(), error) {
	level, err := zapcore.ParseLevel(cfg.LogLevel)
	if err != nil {
		return nil, nil, err
	}
	sink := zapcore.AddSync(stderr)
	closeSink := func() {}
	if cfg.LogFile != "" {
		f, err := os.OpenFile(cfg.LogFile, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, nil, fmt.Errorf("log file: %w", err)
		}
		sink = zapcore.Lock(f)
		closeSink = func() { f.Sync(); f.Close() }
	} else {
		sink = zapcore.Lock(sink)
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), sink, level)
	log := zap.New(core, zap.ErrorOutput(sink))
	return log, func() { log.Sync(); closeSink() }, nil
}
