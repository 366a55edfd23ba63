package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/hostd-dev/hostd/config"
)

// `hostd mcp --http` serves on a loopback port, which every user of the
// machine can reach; what only this user has is a file. Each start makes
// a new token (mcpface.NewToken) and writes it where only this user can
// read it; every request must carry it (docs/mcp.md).

// mcpTokenDir is the directory of the token files: a private directory
// under the state directory, found from HOME alone, so a host that starts
// hostd mcp with few environment variables and one that reads the file
// agree on it. The one place that says where.
func mcpTokenDir(cfg config.Config) string { return filepath.Join(cfg.StateDir, "mcp") }

// mcpTokenName is the token file's name for the address served: one file
// per address, so a host's configuration can name it once for a fixed
// port, and two servers never share one.
func mcpTokenName(addr *net.TCPAddr) string {
	host := addr.IP.String()
	if addr.IP.To4() == nil {
		host = "ipv6-loopback" // ::1, the only IPv6 loopback address
	}
	return "http-" + host + "-" + strconv.Itoa(addr.Port) + ".token"
}

// writeMCPToken writes token to dir's file for addr, readable by this
// user alone: 0600 in a 0700 directory of the user's (on Windows, under
// the user's profile, which its ACL keeps to the user). The file is
// written whole under another name and renamed into place, so a reader
// never sees half a token. It returns the file's path.
func writeMCPToken(dir string, addr *net.TCPAddr, token string) (string, error) {
	if err := privateTokenDir(dir); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".token-*") // 0600
	if err != nil {
		return "", fmt.Errorf("write the MCP token: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(token); err != nil {
		tmp.Close()
		return "", fmt.Errorf("write the MCP token: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write the MCP token: %w", err)
	}
	path := filepath.Join(dir, mcpTokenName(addr))
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("write the MCP token: %w", err)
	}
	return path, nil
}

// privateTokenDir creates dir 0700 if needed and checks, by the
// platform's rule (checkTokenDir), that it is a real directory no other
// user can enter.
func privateTokenDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("MCP token directory: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("MCP token directory: %w", err)
	}
	return checkTokenDir(dir, info)
}

// removeMCPToken removes the token file at exit if it still holds token
// (a later server on the same address may have replaced it).
func removeMCPToken(path, token string) {
	if b, err := os.ReadFile(path); err == nil && string(b) == token {
		os.Remove(path)
	}
}
