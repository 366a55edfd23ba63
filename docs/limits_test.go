package docs

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/config"
)

var (
	// limitRowRE is a table row of the edit contract that names config
	// keys in its first cell and gives their defaults in the second:
	// "| ops text (`maxOpsPayloadBytes`) | 256 KiB | ... |".
	limitRowRE = regexp.MustCompile("^\\|[^|]*\\(((?:`[a-zA-Z]+`(?:, )?)+)\\)[^|]*\\|([^|]+)\\|")
	keyRE      = regexp.MustCompile("`([a-zA-Z]+)`")
	// quantityRE is a number with an optional unit: "4,096 lines", "1 MiB".
	quantityRE = regexp.MustCompile(`([0-9][0-9,]*)\s*(KiB|MiB|GiB|ms|s\b)?`)
	// configKeyRE is a config key the documents name in code spans:
	// `maxWriteBytes`, `limits.maxFrameBytes`.
	configKeyRE = regexp.MustCompile("`(?:limits\\.)?((?:max|default|repeat|recovery|shutdown)[A-Z][a-zA-Z]*)`")
)

// TestContractLimitsAreTheDefaults checks every default the edit contract's
// limit tables state against config.DefaultLimits, so the contract cannot
// promise a bound the daemon does not enforce.
func TestContractLimitsAreTheDefaults(t *testing.T) {
	root := mustRoot(t)
	defaults := defaultLimits(t)
	text := mustRead(t, root, contracts["edit-contract"])
	checked := 0
	forEachProseLine(text, func(n int, line string) {
		m := limitRowRE.FindStringSubmatch(line)
		if m == nil {
			return
		}
		keys := keyRE.FindAllStringSubmatch(m[1], -1)
		values := quantityRE.FindAllStringSubmatch(m[2], -1)
		if len(values) < len(keys) {
			t.Errorf("docs/edit-contract.md:%d: %d config keys but %d values in %q", n, len(keys), len(values), strings.TrimSpace(m[2]))
			return
		}
		for i, k := range keys {
			key := k[1]
			want, ok := defaults[key]
			if !ok {
				t.Errorf("docs/edit-contract.md:%d: %s is not a config key", n, key)
				continue
			}
			got, err := quantity(key, values[i][1], values[i][2])
			if err != nil {
				t.Errorf("docs/edit-contract.md:%d: %s: %v", n, key, err)
				continue
			}
			if got != want {
				t.Errorf("docs/edit-contract.md:%d: states %s = %s%s (%d), but its default is %d", n, key, values[i][1], values[i][2], got, want)
			}
			checked++
		}
	})
	if checked < 15 {
		t.Errorf("checked only %d limits; the tables of §4.4 and §12 hold more", checked)
	}
}

// TestContractsNameRealConfigKeys checks that every config key the two
// contracts name in a code span is one the config file accepts.
func TestContractsNameRealConfigKeys(t *testing.T) {
	root := mustRoot(t)
	defaults := defaultLimits(t)
	for _, path := range contracts {
		forEachProseLine(mustRead(t, root, path), func(n int, line string) {
			for _, m := range configKeyRE.FindAllStringSubmatch(line, -1) {
				if _, ok := defaults[m[1]]; !ok {
					t.Errorf("%s:%d: names %s, which is not a config key (config.Limits)", path, n, m[1])
				}
			}
		})
	}
}

// defaultLimits is config.DefaultLimits by JSON name.
func defaultLimits(t *testing.T) map[string]int64 {
	t.Helper()
	b, err := json.Marshal(config.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]int64
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// quantity reads a stated default in the unit of the config key: bytes
// for *Bytes keys, milliseconds for *Ms keys, a plain count otherwise.
func quantity(key, number, unit string) (int64, error) {
	v, err := strconv.ParseInt(strings.ReplaceAll(number, ",", ""), 10, 64)
	if err != nil {
		return 0, err
	}
	bytes, ms := strings.Contains(key, "Bytes"), strings.HasSuffix(key, "Ms")
	switch {
	case bytes && unit != "" && !strings.HasSuffix(unit, "iB"),
		ms && unit != "ms" && unit != "s",
		!bytes && !ms && unit != "":
		return 0, fmt.Errorf("%s%s is not in the unit of %s", number, unit, key)
	}
	switch unit {
	case "KiB":
		v <<= 10
	case "MiB":
		v <<= 20
	case "GiB":
		v <<= 30
	case "s":
		v *= 1000
	}
	return v, nil
}

func TestQuantity(t *testing.T) {
	tests := []struct {
		key, number, unit string
		want              int64
		ok                bool
	}{
		{"maxOpsPayloadBytes", "256", "KiB", 256 << 10, true},
		{"maxRetainedBytesPerSession", "8", "MiB", 8 << 20, true},
		{"maxLedgerEntries", "4,096", "", 4096, true},
		{"recoveryDiffTimeoutMs", "2", "s", 2000, true},
		{"maxParseMs", "500", "ms", 500, true},
		{"maxParseMs", "500", "MiB", 0, false},
		{"maxOpsPerCall", "200", "KiB", 0, false},
		{"maxWriteBytes", "32", "ms", 0, false},
	}
	for _, tt := range tests {
		got, err := quantity(tt.key, tt.number, tt.unit)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("quantity(%s, %s %s) = %d, %v; want %d, ok %v", tt.key, tt.number, tt.unit, got, err, tt.want, tt.ok)
		}
	}
}
