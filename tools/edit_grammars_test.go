package tools

import (
	"strings"
	"testing"

	"github.com/hostd-dev/hostd/rpc/wire"
)

// Block ops through the edit tool in the languages added after the first
// thirteen: the resolver's span replaces the declaration with what is
// attached to it, and the file's BOM and line endings survive.
func TestEditBlockOpsInMoreLanguages(t *testing.T) {
	cases := []struct {
		name, path, src, ops, want string
	}{
		{
			name: "go method with CRLF and a BOM",
			path: "store/store.go",
			src: "\ufeffpackage store\r\n\r\n// Find returns an order.\r\nfunc (s *Store) Find(id string) Order {\r\n" +
				"\treturn s.orders[id]\r\n}\r\n\r\nfunc other() {}\r\n",
			ops: "PUT 4*:\n+func (s *Store) Find(id string) (Order, bool) {\n+\to, ok := s.orders[id]\n+\treturn o, ok\n+}",
			want: "\ufeffpackage store\r\n\r\n// Find returns an order.\r\nfunc (s *Store) Find(id string) (Order, bool) {\r\n" +
				"\to, ok := s.orders[id]\r\n\treturn o, ok\r\n}\r\n\r\nfunc other() {}\r\n",
		},
		{
			name: "java method from its first annotation",
			path: "src/Store.java",
			src:  "class Store {\n    @Override\n    @Deprecated\n    public String toString() {\n        return \"s\";\n    }\n}\n",
			ops:  "PUT 2*:\n+    @Override\n+    public String toString() {\n+        return \"store\";\n+    }",
			want: "class Store {\n    @Override\n    public String toString() {\n        return \"store\";\n    }\n}\n",
		},
		{
			name: "kotlin nested function from its declaration line, annotation kept",
			path: "Cache.kt",
			src:  "class Cache {\n    @JvmStatic\n    fun load(id: Long): User {\n        return repo.fetch(id)\n    }\n}\n",
			ops:  "PUT 3*:\n+    fun load(id: Long): User = repo.fetch(id)",
			want: "class Cache {\n    @JvmStatic\n    fun load(id: Long): User = repo.fetch(id)\n}\n",
		},
		{
			name: "a dockerfile instruction over several lines",
			path: "Dockerfile",
			src:  "FROM alpine\nRUN apk add curl && \\\n    rm -rf /var/cache/apk\nCMD [\"sh\"]\n",
			ops:  "PUT 2*:\n+RUN apk add --no-cache curl",
			want: "FROM alpine\nRUN apk add --no-cache curl\nCMD [\"sh\"]\n",
		},
		{
			name: "an hcl block nested in a resource",
			path: "infra/main.tf",
			src:  "resource \"a\" \"b\" {\n  name = \"x\"\n  tags {\n    team = \"ci\"\n  }\n}\n",
			ops:  "CUT 3*",
			want: "resource \"a\" \"b\" {\n  name = \"x\"\n}\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEditEnv(t)
			withGrammars(e)
			e.write(c.path, c.src)
			r := e.edit(c.path, e.showAll(c.path), c.ops)
			wantOK(t, r)
			wantFile(t, e, c.path, c.want)
		})
	}
}

// A block op anchored where the language's rules decline names the plain
// range instead of guessing.
func TestEditBlockDeclinesInMoreLanguages(t *testing.T) {
	e := newEditEnv(t)
	withGrammars(e)
	src := "class Store {\n    @Override\n    @Deprecated\n    public String toString() {\n        return \"s\";\n    }\n}\n"
	e.write("Store.java", src)
	r := e.edit("Store.java", e.showAll("Store.java"), "PUT 3*:\n+    @Deprecated")
	wantCode(t, r, wire.ToolBlockUnresolved)
	if !strings.Contains(r.Error.Message, "not the first of the run that starts at line 2") {
		t.Fatalf("decline %q does not say why", r.Error.Message)
	}
	wantFile(t, e, "Store.java", src)
}

// Boundary repair's parse check (edit-contract §8.4) works in Go: a range
// that swallowed the closing brace of an if is asked about, because only
// the result with it kept parses, and the repaired form keeps it.
func TestEditBoundaryRepairInGo(t *testing.T) {
	e := newEditEnv(t)
	withRepair(e)
	src := "package a\n\nfunc f(x bool) {\n\tif x {\n\t\told()\n\t}\n}\n"
	e.write("a.go", src)
	tag := e.showAll("a.go")
	form := repairedForm(t, e.edit("a.go", tag, "PUT 5.=6:\n+\t\tfresh()"))
	wantFile(t, e, "a.go", src)
	wantOK(t, e.edit("a.go", tag, form))
	wantFile(t, e, "a.go", "package a\n\nfunc f(x bool) {\n\tif x {\n\t\tfresh()\n\t}\n}\n")
}
