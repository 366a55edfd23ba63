package docs

import (
	"reflect"
	"testing"
)

// The citation scanner reads every form the code writes citations in.
func TestCitationForms(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []citation
	}{
		{"one", "the gate (edit-contract §9.1).", []citation{{"edit-contract", "9.1", 1}}},
		{"sentence end", "limits, edit-contract §12.", []citation{{"edit-contract", "12", 1}}},
		{"list", "(edit-contract §7.1, §7.2, §8.2)", []citation{
			{"edit-contract", "7.1", 1}, {"edit-contract", "7.2", 1}, {"edit-contract", "8.2", 1}}},
		{"and", "(edit-contract §4.4 and §12)", []citation{{"edit-contract", "4.4", 1}, {"edit-contract", "12", 1}}},
		{"range", "(edit-contract §5.3-§5.4, wire-contract §4 write)", []citation{
			{"edit-contract", "5.3", 1}, {"edit-contract", "5.4", 1}, {"wire-contract", "4", 1}}},
		{"wrapped name", "// owns the edit language (edit-contract\n// §6-§8, §11)", []citation{
			{"edit-contract", "6", 2}, {"edit-contract", "8", 2}, {"edit-contract", "11", 2}}},
		{"wrapped list", "edit-contract §4.4 and\n// §19.", []citation{{"edit-contract", "4.4", 1}, {"edit-contract", "19", 2}}},
		{"words between end the list", "edit-contract §9 branch B, §10", []citation{{"edit-contract", "9", 1}}},
		{"unnamed", "(§8.4) and the seed", nil},
	}
	for _, tt := range tests {
		if got := citations(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: citations(%q) = %v, want %v", tt.name, tt.text, got, tt.want)
		}
	}
}

func TestSeedAndBareCitations(t *testing.T) {
	text := "a (rpc.md §5.4)\nb (edit-contract §3.1, §3.2) and (§4.5)\nc rpc.md\n// §6"
	if got, want := seedCitations(text), []int{1, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("seedCitations = %v, want %v", got, want)
	}
	// The seed's §5.4 and §6 are bare too; the named ones are not.
	want := []citation{{"", "5.4", 1}, {"", "4.5", 2}, {"", "6", 4}}
	if got := bareSections(text); !reflect.DeepEqual(got, want) {
		t.Errorf("bareSections = %v, want %v", got, want)
	}
}

func TestHeadings(t *testing.T) {
	text := "# Title\n## 8. Lowering\n### 8.4 Repair\n#### 13.1 Review\n## Notes\n```\n## 99. In a fence\n```\n##9. No space\n"
	want := map[string]bool{"8": true, "8.4": true, "13.1": true}
	if got := headings(text); !reflect.DeepEqual(got, want) {
		t.Errorf("headings = %v, want %v", got, want)
	}
}

func TestRelativeLinks(t *testing.T) {
	text := "See [a](docs/a.md), [b](b.md#part) and ![img](img/x.png \"title\").\n" +
		"Not [web](https://example.com), [mail](mailto:x@y), [here](#top), `[code](no.md)`.\n" +
		"```\n[fenced](no.md)\n```\n[last](<../c d.md>)\n"
	want := []link{{"docs/a.md", 1}, {"b.md", 1}, {"img/x.png", 1}}
	got := relativeLinks(text)
	if len(got) < 3 || !reflect.DeepEqual(got[:3], want) {
		t.Errorf("relativeLinks = %v, want %v first", got, want)
	}
	for _, l := range got {
		if l.target == "no.md" {
			t.Errorf("a link in code was taken: %v", l)
		}
	}
}
