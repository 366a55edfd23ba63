package blocks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hostd-dev/hostd/tools/syntax"
)

// rowsOf renders an outline as "depth line start-end" rows, one a line.
func rowsOf(t *testing.T, path, text string) string {
	t.Helper()
	ds, err := Outline(context.Background(), path, text, defaultLimit)
	if err != nil {
		t.Fatalf("Outline(%s): %v", path, err)
	}
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%d %d %d-%d\n", d.Depth, d.Line, d.Start, d.End)
	}
	return b.String()
}

func TestOutline(t *testing.T) {
	cases := []struct {
		name, path, text, want string
	}{
		{"typescript: top level, members, decorators, exports", "a.ts", `import { x } from 'y';

// a utility
export function foo(a: string): number {
  const local = 1;
  return local;
}

export interface Options {
  tui?: boolean;
  run(n: number): void;
}

@Component({
  selector: 'x',
})
export class Widget extends Base {
  private n = 0;

  @Input()
  value: string;

  constructor() {
    super();
  }

  get size(): number {
    return this.n;
  }
}

type Id = string;
const LIMIT = 10;
enum Color { Red, Green }

namespace Inner {
  export function g() {}
}

export default function (api: Api) {
  api.on('x', () => {});
}
`, `0 4 4-7
0 9 9-12
1 10 10-10
1 11 11-11
0 17 14-30
1 18 18-18
1 21 20-21
1 23 23-25
1 27 27-29
0 32 32-32
0 33 33-33
0 34 34-34
0 36 36-38
1 37 37-37
0 40 40-42
`},
		{"python: classes, decorated methods, constants", "m.py", `"""Module."""
import os

LIMIT = 3


@dataclass
class Point:
    x: int = 0
    KIND = "p"

    def norm(self):
        def inner():
            return 1
        return inner()

    @staticmethod
    def origin():
        return Point()


async def main():
    await run()
`, `0 4 4-4
0 8 7-19
1 9 9-9
1 10 10-10
1 12 12-15
1 18 17-19
0 22 22-23
`},
		{"rust: attributes and impl members", "lib.rs", `use std::fmt;

#[derive(Debug)]
pub struct S {
    a: u32,
}

impl S {
    /// Makes one.
    pub fn new() -> Self {
        S { a: 1 }
    }
}
`, `0 4 3-6
1 5 5-5
0 8 8-13
1 10 10-12
`},
		{"markdown: headings span their sections", "README.md", `# Title

Intro.

## Install

Run it.

### Linux

Apt.

## Use

Call it.
`, `0 1 1-15
1 5 5-11
2 9 9-11
1 13 13-15
`},
		{"json: keys and nested keys", "package.json", `{
  "name": "x",
  "scripts": {
    "test": "go test"
  }
}
`, `0 2 2-2
0 3 3-5
1 4 4-4
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := rowsOf(t, c.path, c.text); got != c.want {
				t.Fatalf("outline of %s:\n%s\nwant:\n%s", c.path, got, c.want)
			}
		})
	}
}

// TestOutlineSpansAreBlockSpans: a row that spans several lines and starts
// at its own line is exactly the block N* resolves there, so the outline
// and block ops never disagree about where a declaration ends.
func TestOutlineSpansAreBlockSpans(t *testing.T) {
	t.Run("decorated, nested and inside a block", func(t *testing.T) {
		text := `@Component({
  a: 1,
})
export class A {
  @Input()
  set v(x: number) {
    if (x) {
      this.x = x;
    }
    for (const y of ys) {
      use(y);
    }
  }
}
`
		r := mustResolver(t, "a.ts", text)
		var all []syntax.Decl
		for _, w := range [][2]int{{1, 0}, {6, 13}} {
			ds, err := OutlineLines(context.Background(), "a.ts", text, defaultLimit, w[0], w[1])
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, ds...)
		}
		if len(all) != 4 {
			t.Fatalf("rows %+v", all)
		}
		for _, d := range all {
			s, e, err := r.Resolve(d.Start)
			if err != nil || s != d.Start || e != d.End {
				t.Errorf("row %+v: block op at %d resolves %d-%d (%v)", d, d.Start, s, e, err)
			}
		}
	})

	text := `export class A {
  m() {
    return 1;
  }

  // trailing comment
}
// after

function f() {
  return 2;
} // tail
`
	ds, err := Outline(context.Background(), "a.ts", text, defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	r := mustResolver(t, "a.ts", text)
	for _, d := range ds {
		if d.Start != d.Line || d.End == d.Line {
			continue
		}
		s, e, err := r.Resolve(d.Line)
		if err != nil || s != d.Start || e != d.End {
			t.Errorf("row %+v: block op resolves %d-%d (%v)", d, s, e, err)
		}
	}
	if len(ds) != 3 {
		t.Fatalf("rows %+v, want the class, its method and the function", ds)
	}
}

func TestOutlineDepthIsBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "%snamespace N%d {\n", strings.Repeat("  ", i), i)
	}
	for i := 5; i >= 0; i-- {
		fmt.Fprintf(&b, "%s}\n", strings.Repeat("  ", i))
	}
	ds, err := Outline(context.Background(), "n.ts", b.String(), defaultLimit)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != MaxOutlineDepth {
		t.Fatalf("%d rows for 6 nested namespaces, want %d: %+v", len(ds), MaxOutlineDepth, ds)
	}
}

func TestOutlineErrors(t *testing.T) {
	cases := []struct {
		name, path, text string
		limit            int64
		kind             error
		says             string
	}{
		{"no grammar", "notes.txt", "hello\n", defaultLimit, ErrUnsupported, `no outline for ".txt" files`},
		{"broken file", "a.ts", "function f( {\n", defaultLimit, ErrNotClean, "does not parse cleanly"},
		{"over the parse limit", "a.ts", "const a = 1;\n", 4, ErrTooLarge, "over 4 bytes"},
		{"guarded text", "a.md", strings.Repeat("> ", 200) + "x\n", defaultLimit, ErrUnsafe, "no outline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Outline(context.Background(), c.path, c.text, c.limit)
			if !errors.Is(err, c.kind) {
				t.Fatalf("error %v, want %v", err, c.kind)
			}
			if !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), plainRead) {
				t.Fatalf("message %q must say %q and name plain read", err, c.says)
			}
			if strings.Contains(err.Error(), "PUT") {
				t.Fatalf("message %q talks about edit ops", err)
			}
		})
	}
	t.Run("a spent parse time", func(t *testing.T) {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		_, err := Outline(ctx, "a.ts", "const a = 1;\n", defaultLimit)
		if !errors.Is(err, ErrParseTime) {
			t.Fatalf("error %v, want ErrParseTime", err)
		}
	})
}

// TestOutlineLines: the outline of a block's own span lists what is
// inside it; one-line locals are read with their function, not listed.
func TestOutlineLines(t *testing.T) {
	py := `def handle(req):
    user = req.user
    if user is None:
        raise Missing()
    for item in req.items:
        check(item)
    def log(msg):
        print(msg)
    return user
`
	ds, err := OutlineLines(context.Background(), "h.py", py, defaultLimit, 1, 9)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(ds); got != "[{3 3 4 0} {5 5 6 0} {7 7 8 0}]" {
		t.Fatalf("outline of the function's lines: %s", got)
	}
	// The whole file's outline lists the function itself.
	if got := rowsOf(t, "h.py", py); got != "0 1 1-9\n" {
		t.Fatalf("file outline %q", got)
	}
	// A window that crosses a construct's edge lists what lies inside.
	ds, err = OutlineLines(context.Background(), "h.py", py, defaultLimit, 4, 0)
	if err != nil || fmt.Sprint(ds) != "[{5 5 6 0} {7 7 8 0}]" {
		t.Fatalf("outline from line 4: %v %v", ds, err)
	}
}

// BenchmarkOutline5000 is the outline of the block benchmarks' 5,000-line
// file; compare it with BenchmarkBlockOp5000 (one parse and one block op)
// in the same run: the walk should add little to the parse.
func BenchmarkOutline5000(b *testing.B) {
	text, _ := benchSource(b)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		ds, err := Outline(context.Background(), "bench.ts", text, defaultLimit)
		if err != nil || len(ds) == 0 {
			b.Fatalf("outline: %d rows, %v", len(ds), err)
		}
	}
}
