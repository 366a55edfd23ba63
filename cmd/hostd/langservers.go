package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/spawn"
	"github.com/hostd-dev/hostd/tools/langserver"
)

// newLanguageServers is the daemon's language servers as the config
// file sets them, started through spawner when there is one; nil when
// they are turned off.
func newLanguageServers(ls config.LanguageServers, lim config.Limits, log *zap.Logger, spawner *spawn.Spawner) (*langserver.Manager, error) {
	if !ls.Enabled {
		return nil, nil
	}
	known := langserver.Languages()
	for lang := range ls.Servers {
		if !slices.Contains(known, lang) {
			return nil, fmt.Errorf("config: languageServers.servers has %q, which is not a language hostd knows; use one of %s", lang, strings.Join(known, ", "))
		}
	}
	return langserver.New(langserver.Options{
		Servers:        ls.Servers,
		Off:            ls.Off,
		MaxServers:     ls.MaxServers,
		MaxServerBytes: ls.MaxServerBytes,
		StartTimeout:   time.Duration(ls.StartMs) * time.Millisecond,
		IdleTimeout:    time.Duration(ls.IdleMs) * time.Millisecond,
		MaxRestarts:    ls.MaxRestarts,
		MaxFrameBytes:  lim.MaxFrameBytes,
		Log:            log.Named("langserver"),
		Spawner:        spawner,
	}), nil
}
