//go:build !windows

package workspace

import "os"

// fsyncDir makes a directory's entries durable.
func fsyncDir(f *os.File) error { return f.Sync() }

// busy is Windows' sharing refusals as ErrBusy; elsewhere nothing refuses
// a rename or a removal because a file is open.
func busy(_ *os.Root, _ string, err error) error { return err }

// removeAt removes name from the directory open as pd.
func removeAt(pd *os.Root, name string) error { return pd.Remove(name) }
