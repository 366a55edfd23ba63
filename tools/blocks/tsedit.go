package blocks

// The Go binding's Tree.Edit hands tree-sitter the edit's old end point
// as its new one (EditInput's conversion to C). After an edit that moves
// its end point (adds or removes lines, or changes the last line's
// length) every node after it then keeps its old rows and columns, and a
// reparse that reuses them answers a wrong tree: inserting an 11-line
// function into a Go file gave one ERROR node over the whole file where a
// full parse finds none (testdata/incremental). editTree calls
// tree-sitter's ts_tree_edit itself, with the points as they are.

/*
#include <stdint.h>

// TSPoint and TSInputEdit as tree-sitter's api.h declares them, and
// ts_tree_edit, which the binding's C links into the same binary.
typedef struct { uint32_t row; uint32_t column; } hostdPoint;
typedef struct {
	uint32_t start_byte;
	uint32_t old_end_byte;
	uint32_t new_end_byte;
	hostdPoint start_point;
	hostdPoint old_end_point;
	hostdPoint new_end_point;
} hostdInputEdit;

void ts_tree_edit(void *self, const hostdInputEdit *edit);

static void hostd_tree_edit(void *tree, hostdInputEdit e) { ts_tree_edit(tree, &e); }
*/
import "C"

import (
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// baseTree mirrors the binding's BaseTree, whose first field is the
// tree's C pointer; TestBaseTreeLayout holds the two to the same size,
// and TestIncrementalParseOfRealVersions fails if the pointer is not the
// tree's.
type baseTree struct {
	c        unsafe.Pointer
	isClosed bool
}

// editTree is t.Edit(e) with e's new end point handed over as it is.
func editTree(t *sitter.Tree, e sitter.EditInput) {
	c := (*baseTree)(unsafe.Pointer(t.BaseTree)).c
	C.hostd_tree_edit(c, C.hostdInputEdit{
		start_byte:    C.uint32_t(e.StartIndex),
		old_end_byte:  C.uint32_t(e.OldEndIndex),
		new_end_byte:  C.uint32_t(e.NewEndIndex),
		start_point:   point(e.StartPoint),
		old_end_point: point(e.OldEndPoint),
		new_end_point: point(e.NewEndPoint),
	})
}

func point(p sitter.Point) C.hostdPoint {
	return C.hostdPoint{row: C.uint32_t(p.Row), column: C.uint32_t(p.Column)}
}
