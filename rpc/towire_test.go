package rpc

import (
	"reflect"
	"testing"

	"github.com/hostd-dev/hostd/config"
	"github.com/hostd-dev/hostd/internal/budget"
	"github.com/hostd-dev/hostd/internal/memgov"
	"github.com/hostd-dev/hostd/review"
	"github.com/hostd-dev/hostd/rpc/wire"
	"github.com/hostd-dev/hostd/session"
)

// TestConvertedShapesKeepTheirJSONNames holds the domain values the
// handlers convert to a wire shape with a Go conversion: the compiler
// holds their fields equal but ignores tags, so this holds each field's
// JSON name equal too. The limits matter most: host.info reports each one
// by the name the config file gives it.
func TestConvertedShapesKeepTheirJSONNames(t *testing.T) {
	for _, pair := range [][2]reflect.Type{
		{reflect.TypeFor[config.Limits](), reflect.TypeFor[wire.Limits]()},
		{reflect.TypeFor[budget.Stats](), reflect.TypeFor[wire.BudgetStats]()},
		{reflect.TypeFor[memgov.Collector](), reflect.TypeFor[wire.Collector]()},
		{reflect.TypeFor[session.Info](), reflect.TypeFor[wire.SessionInfo]()},
		{reflect.TypeFor[session.RegisterInfo](), reflect.TypeFor[wire.RegisterInfo]()},
		{reflect.TypeFor[review.SessionSummary](), reflect.TypeFor[wire.ReviewSession]()},
		{reflect.TypeFor[review.Recovery](), reflect.TypeFor[wire.ReviewRecovery]()},
	} {
		domain, onWire := pair[0], pair[1]
		if !domain.ConvertibleTo(onWire) || domain.NumField() != onWire.NumField() {
			t.Errorf("%v does not convert to %v field for field", domain, onWire)
			continue
		}
		for i := range domain.NumField() {
			d, w := domain.Field(i), onWire.Field(i)
			if d.Tag.Get("json") != w.Tag.Get("json") {
				t.Errorf("%v.%s is %q in JSON, %v.%s is %q: the handler's conversion would rename it", domain, d.Name, d.Tag.Get("json"), onWire, w.Name, w.Tag.Get("json"))
			}
		}
	}
}
