package blocks

import (
	"context"
	"fmt"
	"testing"
)

// TestOutlineLanguages: the outline of a realistic file in each grammar
// that needs a table of its own (outlineTables) or whose attached nodes
// sit in a wrapper: the exact rows, as "depth line start-end". Each row
// that spans several lines is also the block a block op anchored at its
// first line resolves, so outline and block ops agree on every span.
func TestOutlineLanguages(t *testing.T) {
	cases := []struct {
		name, path, text, want string
	}{
		{"go: types with fields, interfaces, methods, groups", "store.go", `package store

import "fmt"

// Limit bounds things.
const Limit = 10

var (
	a = 1
	b = 2
)

// Store holds rows.
type Store struct {
	mu   sync.Mutex
	rows []string
}

type Reader interface {
	Read(p []byte) (int, error)
	Close() error
}

// Get returns a row.
func (s *Store) Get(i int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rows[i]
}

func New() *Store {
	return &Store{}
}
`, `0 6 6-6
0 8 8-11
1 9 9-9
1 10 10-10
0 14 14-17
1 15 15-15
1 16 16-16
0 19 19-22
1 20 20-20
1 21 21-21
0 25 25-29
0 31 31-33
`},
		{"go: parenthesized groups list their specs", "group.go", `package x

type (
	ID string
)

type (
	A struct {
		N int
	}
	B = A
	C = int
)

const (
	Red = iota
	Green
)
`, `0 3 3-5
1 4 4-4
0 7 7-13
1 8 8-10
2 9 9-9
1 11 11-11
1 12 12-12
0 15 15-18
1 16 16-16
1 17 17-17
`},
		{"java: annotated members own their declaration line", "Widget.java", `package x;

import java.util.List;

@Service
public class Widget extends Base {
    private int n = 0;

    @Override
    public String toString() {
        return "w";
    }

    @Inject
    @Named("x")
    Widget(int n) {
        this.n = n;
    }

    static class Inner {
        void run() {
        }
    }

    interface Cb {
        void call();
    }
}

enum Color { RED, GREEN }
`, `0 6 5-28
1 7 7-7
1 10 9-12
1 16 14-18
1 20 20-23
2 21 21-22
1 25 25-27
2 26 26-26
0 30 30-30
`},
		{"java: an annotation on the line, stacked annotations", "B.java", `class B {
    @Override public String toString() {
        return "";
    }

    @SuppressWarnings("x")
    @Deprecated
    void old() {
    }
}
`, `0 1 1-10
1 2 2-4
1 8 6-9
`},
		{"c: structs, typedefs, functions", "point.c", `#include <stdio.h>

#define MAX 10

struct point {
	int x;
	int y;
};

typedef struct {
	int a;
} pair;

static int add(int a, int b)
{
	return a + b;
}

int main(void)
{
	printf("%d\n", add(1, 2));
	return 0;
}
`, `0 5 5-8
1 6 6-6
1 7 7-7
0 10 10-12
1 11 11-11
0 14 14-17
0 19 19-23
`},
		{"cpp header: guard, extern C, template class", "shapes.h", `#ifndef SHAPES_H
#define SHAPES_H

typedef struct point {
	int x;
	int y;
} point;

int area(const point *p);

extern "C" {
void legacy(void);
}

template <typename T>
class Box {
public:
	T get() const;
};

#endif
`, `0 4 4-7
1 5 5-5
1 6 6-6
0 9 9-9
0 12 12-12
0 16 15-19
1 18 18-18
`},
		{"cpp: namespace, class members, template function", "geo.cpp", `#include <vector>

namespace geo {

class Shape {
public:
    Shape() = default;
    virtual ~Shape() {}
    virtual double area() const = 0;
    int sides() const {
        return n_;
    }
private:
    int n_;
};

struct Point {
    double x, y;
};

double dist(Point a, Point b) {
    return 0;
}

}  // namespace geo

template <typename T>
T twice(T v) {
    return v + v;
}
`, `0 3 3-25
1 5 5-15
2 7 7-7
2 8 8-8
2 9 9-9
2 10 10-12
2 14 14-14
1 17 17-19
2 18 18-18
1 21 21-23
0 28 27-30
`},
		{"csharp: namespace, attributed class and members", "User.cs", `using System;

namespace App.Models
{
    [Serializable]
    public class User
    {
        public int Id { get; set; }

        [Obsolete("no")]
        public string Name()
        {
            return "x";
        }

        public User(int id)
        {
            Id = id;
        }
    }

    public interface IRepo
    {
        User Find(int id);
    }

    public enum Kind { A, B }
}
`, `0 3 3-28
1 6 5-20
2 8 8-8
2 11 10-14
2 16 16-19
1 22 22-25
2 24 24-24
1 27 27-27
`},
		{"ruby: module, class body, singleton method", "cart.rb", `require "json"

module Shop
  class Cart
    attr_reader :items

    def initialize
      @items = []
    end

    def add(item)
      @items << item
    end

    def self.build
      new
    end
  end
end

def helper(x)
  x * 2
end
`, `0 3 3-19
1 4 4-18
2 7 7-9
2 11 11-13
2 15 15-17
0 21 21-23
`},
		{"ruby: class << self", "config.rb", `class Config
  class << self
    def load(path)
      new(File.read(path))
    end
  end

  private

  def parse
    1
  end
end
`, `0 1 1-13
1 2 2-6
2 3 3-5
1 10 10-12
`},
		{"ruby: module functions and constants", "util.rb", `module Util
  def self.slug(s)
    s.downcase
  end

  VERSION = "1.0"
end
`, `0 1 1-7
1 2 2-4
1 6 6-6
`},
		{"c: a struct with a declarator, an enum, a union", "value.c", `struct point {
	int x;
	int y;
} origin = { 0, 0 };

enum color {
	RED,
	GREEN,
};

union value {
	int i;
	float f;
};
`, `0 1 1-4
1 2 2-2
1 3 3-3
0 6 6-9
0 11 11-14
1 12 12-12
1 13 13-13
`},
		{"php: attributed class and method, interface", "User.php", `<?php

namespace App;

use Foo\Bar;

#[Entity]
class User extends Model
{
    private int $id;

    #[Route("/x")]
    public function show(int $id): string
    {
        return "x";
    }

    public function __construct()
    {
    }
}

interface Repo
{
    public function find(int $id): ?User;
}

function helper($x)
{
    return $x;
}
`, `0 3 3-3
0 8 7-21
1 10 10-10
1 13 12-16
1 18 18-20
0 23 23-26
1 25 25-25
0 28 28-31
`},
		{"kotlin: annotated data class, companion, object", "User.kt", `package app

import kotlin.math.max

@Serializable
data class User(val id: Int, val name: String) {
    val upper: String
        get() = name.uppercase()

    @JvmStatic
    fun greet(): String {
        return "hi"
    }

    companion object {
        fun make() = User(1, "a")
    }
}

interface Repo {
    fun find(id: Int): User?
}

fun main() {
    println("x")
}

object Registry {
    val items = mutableListOf<String>()
}
`, `0 6 5-18
1 7 7-7
1 11 10-13
1 15 15-17
2 16 16-16
0 20 20-22
1 21 21-21
0 24 24-26
0 28 28-30
1 29 29-29
`},
		{"swift: attributed class, struct, protocol, extension", "ViewModel.swift", `import Foundation

@MainActor
class ViewModel: ObservableObject {
    var count = 0

    @discardableResult
    func increment() -> Int {
        count += 1
        return count
    }

    init() {
    }
}

struct Point {
    var x: Double
    var y: Double
}

protocol Shape {
    func area() -> Double
}

extension Point: Shape {
    func area() -> Double {
        return 0
    }
}

enum Dir {
    case up
    case down
}

func helper() {
    print("x")
}
`, `0 4 3-15
1 5 5-5
1 8 7-11
1 13 13-14
0 17 17-20
1 18 18-18
1 19 19-19
0 22 22-24
1 23 23-23
0 26 26-30
1 27 27-29
0 32 32-35
0 37 37-39
`},
		{"scala: annotated class, object, trait", "Widget.scala", `package app

import scala.util.Try

@deprecated("x", "1")
class Widget(n: Int) extends Base {
  val size: Int = n

  @inline
  def run(): Unit = {
    println("x")
  }

  def twice(x: Int): Int =
    x * 2
}

object Widget {
  def apply(): Widget = new Widget(1)
}

trait Shape {
  def area: Double
}

case class Point(x: Int, y: Int)
`, `0 6 5-16
1 7 7-7
1 10 9-12
1 14 14-15
0 18 18-20
1 19 19-19
0 22 22-24
1 23 23-23
0 26 26-26
`},
		{"lua: functions with doc comments, tables", "m.lua", `local M = {}

local LIMIT = 10

--- Adds two numbers.
-- @param a number
function M.add(a, b)
  return a + b
end

local function helper(x)
  if x then
    return 1
  end
  return 2
end

function M:method()
  return self
end

M.handlers = {
  a = 1,
  b = 2,
}

return M
`, `0 1 1-1
0 3 3-3
0 7 5-9
0 11 11-16
0 18 18-20
0 22 22-25
`},
		{"lua: a method table", "stack.lua", `local Stack = {}
Stack.__index = Stack

function Stack.new()
  local self = setmetatable({}, Stack)
  self.items = {}
  return self
end
`, `0 1 1-1
0 2 2-2
0 4 4-8
`},
		{"elixir: defmodule, def, nested module", "cart.ex", `defmodule Shop.Cart do
  @moduledoc "Cart."

  alias Shop.Item

  defstruct items: []

  @doc "Adds."
  def add(cart, item) do
    %{cart | items: [item | cart.items]}
  end

  defp helper(x), do: x

  defmodule Inner do
    def run, do: :ok
  end
end
`, `0 1 1-18
1 6 6-6
1 9 9-11
1 13 13-13
1 15 15-17
2 16 16-16
`},
		{"hcl: blocks with labels, nested blocks", "main.tf", `variable "region" {
  type    = string
  default = "us-east-1"
}

resource "aws_instance" "web" {
  ami           = "ami-123"
  instance_type = "t3.micro"

  tags = {
    Name = "web"
  }

  lifecycle {
    create_before_destroy = true
  }
}

locals {
  name = "x"
}
`, `0 1 1-4
0 6 6-17
1 10 10-12
1 14 14-16
0 19 19-21
`},
		{"hcl: top-level settings", "prod.tfvars", `region = "us-east-1"
tags = {
  a = "b"
}
`, `0 1 1-1
0 2 2-4
`},
		{"dockerfile: stages and multi-line instructions", "Dockerfile", `FROM golang:1.22 AS build
WORKDIR /src
COPY . .
RUN go build \
    -o /out/app \
    ./cmd/app

FROM alpine:3.19
COPY --from=build /out/app /app
ENTRYPOINT ["/app"]
`, `0 1 1-1
0 4 4-6
0 8 8-8
`},
		{"protobuf: messages, enums, services", "shop.proto", `syntax = "proto3";

package shop;

import "google/protobuf/empty.proto";

message Item {
  string id = 1;
  int32 qty = 2;

  message Meta {
    string note = 1;
  }
}

enum Kind {
  KIND_UNSPECIFIED = 0;
  KIND_A = 1;
}

service Cart {
  rpc Add(Item) returns (google.protobuf.Empty);
  rpc List(google.protobuf.Empty) returns (stream Item) {
    option deprecated = true;
  }
}
`, `0 7 7-14
1 8 8-8
1 9 9-9
1 11 11-13
2 12 12-12
0 16 16-19
1 17 17-17
1 18 18-18
0 21 21-26
1 22 22-22
1 23 23-25
`},
		{"protobuf: oneof and map fields", "order.proto", `syntax = "proto3";

message Order {
  oneof payment {
    string card = 1;
    string iban = 2;
  }
  map<string, int32> counts = 3;
}
`, `0 3 3-9
1 4 4-7
2 5 5-5
2 6 6-6
1 8 8-8
`},
		{"sql: statements and a table's columns", "schema.sql", `CREATE TABLE users (
  id INT PRIMARY KEY,
  name TEXT NOT NULL
);

CREATE INDEX users_name ON users (name);

INSERT INTO users (id, name)
VALUES (1, 'a');

SELECT id, name
FROM users
WHERE id = 1;
`, `0 1 1-4
1 2 2-2
1 3 3-3
0 6 6-6
0 8 8-9
0 11 11-13
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := rowsOf(t, c.path, c.text); got != c.want {
				t.Fatalf("outline of %s:\n%s\nwant:\n%s", c.path, got, c.want)
			}
			ds, err := Outline(context.Background(), c.path, c.text, defaultLimit)
			if err != nil {
				t.Fatal(err)
			}
			r := mustResolver(t, c.path, c.text)
			for _, d := range ds {
				if d.End == d.Start {
					continue
				}
				s, e, err := r.Resolve(d.Start)
				if err != nil || s != d.Start || e != d.End {
					t.Errorf("row %+v: block op at %d resolves %d-%d (%v)", d, d.Start, s, e, err)
				}
			}
		})
	}
}

// TestOutlineLinesLanguages: the outline of a declaration's own lines
// lists the multi-line constructs inside it; one-line locals, and an HCL
// block's one-line settings, are read with it.
func TestOutlineLinesLanguages(t *testing.T) {
	cases := []struct {
		path, text string
		from, to   int
		want       string
	}{
		{"a.rb", "class A\n  def run(x)\n    y = 1\n    if x\n      go\n    end\n    items.each do |i|\n      use(i)\n    end\n  end\nend\n",
			2, 10, "[{4 4 6 0} {7 7 9 0}]"},
		{"a.ex", "defmodule A do\n  def run(x) do\n    y = 1\n    case x do\n      1 -> :a\n      _ -> :b\n    end\n  end\nend\n",
			2, 8, "[{4 4 7 0}]"},
		{"a.go", "package a\n\nfunc f() {\n\tx := 1\n\tif x > 0 {\n\t\tg()\n\t}\n\ttype local struct {\n\t\ta int\n\t}\n}\n",
			3, 11, "[{5 5 7 0} {8 8 10 0}]"},
		{"main.tf", "resource \"a\" \"b\" {\n  x = 1\n  y = {\n    z = 2\n  }\n  lifecycle {\n    k = 1\n  }\n}\n",
			1, 9, "[{3 3 5 0} {6 6 8 0}]"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			ds, err := OutlineLines(context.Background(), c.path, c.text, defaultLimit, c.from, c.to)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(ds); got != c.want {
				t.Fatalf("outline of lines %d-%d: %s, want %s", c.from, c.to, got, c.want)
			}
		})
	}
}
