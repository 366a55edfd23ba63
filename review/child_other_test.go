//go:build !linux

package review

func runChild() bool { return runPortableChild() }
