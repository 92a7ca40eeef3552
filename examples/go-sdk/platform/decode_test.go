package platform

import (
	"strings"
	"testing"

	"github.com/platformkit/platformkit/internal/sdkfields"
)

// result is an SDK call's answer and error, so that one expression can take both.
type result[T any] struct {
	res T
	err error
}

// answer wraps a call of the SDK: answer(client.X.New(ctx, params)).ok(t, "x.new").
func answer[T any](res T, err error) result[T] { return result[T]{res, err} }

// ok fails the test when the call failed or its answer misses a field the SDK requires, and
// returns the answer.
func (r result[T]) ok(t *testing.T, op string) T {
	t.Helper()
	if r.err != nil {
		t.Fatalf("%s: %v", op, r.err)
	}
	if miss := sdkfields.Missing(r.res, op); len(miss) > 0 {
		t.Errorf("%s: the answer misses fields the SDK requires:\n  %s", op, strings.Join(miss, "\n  "))
	}
	return r.res
}
