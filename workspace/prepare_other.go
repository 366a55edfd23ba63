//go:build !linux

package workspace

import (
	"errors"
	"os"
)

var errNoAnon = errors.New("unnamed files need Linux's O_TMPFILE")

func openAnon(*os.Root) (*os.File, error) { return nil, errNoAnon }

func linkAnon(*os.Root, *os.File, string) (string, error) { return "", errNoAnon }
