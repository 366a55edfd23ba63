package main

import (
	"encoding/xml"
	"io"
	"os"
	"strings"
	"testing"
)

// The service files in contrib/ run hostd with flags: a renamed or removed
// flag must fail here, not at a user's login. The systemd unit's
// ExecStart and the launchd agent's ProgramArguments are parsed by
// parseConfig, as hostd would parse them.
func TestContribUnitsParse(t *testing.T) {
	unit, err := os.ReadFile("../../contrib/systemd/hostd.service")
	if err != nil {
		t.Fatal(err)
	}
	var execStart []string
	for line := range strings.SplitSeq(string(unit), "\n") {
		if rest, ok := strings.CutPrefix(line, "ExecStart="); ok {
			execStart = strings.Fields(rest)
		}
	}
	if len(execStart) == 0 || !strings.HasSuffix(execStart[0], "/hostd") {
		t.Fatalf("the systemd unit's ExecStart does not run hostd: %q", execStart)
	}
	if _, err := parseConfig(execStart[1:], io.Discard); err != nil {
		t.Errorf("the systemd unit's flags %q: %v", execStart[1:], err)
	}

	plist, err := os.ReadFile("../../contrib/launchd/dev.hostd.hostd.plist")
	if err != nil {
		t.Fatal(err)
	}
	args, err := plistProgramArguments(plist)
	if err != nil {
		t.Fatal(err)
	}
	if len(args) == 0 || !strings.HasSuffix(args[0], "/hostd") {
		t.Fatalf("the launchd agent does not run hostd: %q", args)
	}
	if _, err := parseConfig(args[1:], io.Discard); err != nil {
		t.Errorf("the launchd agent's flags %q: %v", args[1:], err)
	}
}

// plistProgramArguments reads the ProgramArguments array of a launchd
// property list: the <array> right after <key>ProgramArguments</key>.
func plistProgramArguments(data []byte) ([]string, error) {
	d := xml.NewDecoder(strings.NewReader(string(data)))
	var lastKey string
	var inArgs bool
	var args []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return args, nil
		}
		if err != nil {
			return nil, err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			switch el.Name.Local {
			case "key":
				var k string
				if err := d.DecodeElement(&k, &el); err != nil {
					return nil, err
				}
				lastKey = k
			case "array":
				inArgs = lastKey == "ProgramArguments"
			case "string":
				var s string
				if err := d.DecodeElement(&s, &el); err != nil {
					return nil, err
				}
				if inArgs {
					args = append(args, s)
				}
			}
		case xml.EndElement:
			if el.Name.Local == "array" {
				inArgs = false
			}
		}
	}
}
