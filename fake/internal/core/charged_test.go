package core

import "testing"

// TestChargedReserveAndGive: a store counts what the shared budget admits and nothing past it,
// gives back what it let go, and once released counts and gives nothing, so that a request still
// holding a replaced state cannot move the budget the live states share.
func TestChargedReserveAndGive(t *testing.T) {
	budget := NewByteBudget(100)
	a, b := &Charged{Budget: budget}, &Charged{Budget: budget}
	if !a.Reserve(60) || !b.Reserve(40) {
		t.Fatal("100 bytes of a budget of 100 refused")
	}
	if b.Reserve(1) || b.Bytes != 40 || budget.Bytes.Load() != 100 {
		t.Fatalf("one byte past the budget: store %d, budget %d; want refused, 40 and 100", b.Bytes, budget.Bytes.Load())
	}
	a.Give(10)
	if a.Bytes != 50 || budget.Bytes.Load() != 90 {
		t.Fatalf("after giving 10: store %d, budget %d; want 50 and 90", a.Bytes, budget.Bytes.Load())
	}
	a.Leave()
	if !a.Reserve(1000) || a.Bytes != 0 || budget.Bytes.Load() != 40 {
		t.Fatalf("a released store: store %d, budget %d; want it to count nothing (0, 40)", a.Bytes, budget.Bytes.Load())
	}
	a.Give(30)
	if budget.Bytes.Load() != 40 {
		t.Fatalf("a released store gave back %d bytes it no longer counted", 40-budget.Bytes.Load())
	}
}
