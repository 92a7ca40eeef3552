package files

import (
	"errors"
	"testing"
	"time"

	"github.com/platformkit/platformkit/fake/internal/core"
)

// TestBudgetIsSharedAndGivenBack: what a store keeps is reserved in the budget it shares with
// the other namespaces before the file is stored, a file that does not fit is refused with
// storage_quota_exceeded and takes no ID, and deleting, expiring and releasing give every byte back.
func TestBudgetIsSharedAndGivenBack(t *testing.T) {
	org := &core.Org{ID: "org_1"}
	budget := core.NewByteBudget(2 * (fileOverhead + 1000 + 100))
	a, b := newStore(budget), newStore(budget)
	var ids core.IDs
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	file := func(exp *time.Time) *File {
		return &File{CreatedAt: now, Filename: "f.bin", MimeType: "application/zip", SizeBytes: 1000, Org: org, content: make([]byte, 1000), ExpiresAt: exp}
	}
	soon := now.Add(time.Hour)
	f1, f2 := file(&soon), file(nil)
	if err := a.add(f1, &ids, now); err != nil {
		t.Fatal(err)
	}
	if err := b.add(f2, &ids, now); err != nil {
		t.Fatal(err)
	}
	err := a.add(file(nil), &ids, now)
	var ae *core.APIError
	if !errors.As(err, &ae) || ae.Typ != core.ErrInvalidRequest || ids.N.Load() != 2 {
		t.Fatalf("a third file past the shared budget: %v (IDs taken: %d), want storage_quota_exceeded and no ID", err, ids.N.Load())
	}
	if got, want := budget.Bytes.Load(), int64(a.Bytes+b.Bytes); got != want || got != int64(2*f1.held()) {
		t.Errorf("budget holds %d, the stores %d, want %d", got, want, 2*f1.held())
	}
	a.sweep(soon) // f1's content expires: its bytes leave, its record stays
	if got, want := budget.Bytes.Load(), int64(f1.held()+fileOverhead+len("f.bin")+len("application/zip")); got != want {
		t.Errorf("after expiry the budget holds %d, want %d", got, want)
	}
	a.remove(a.byID[f1.ID])
	b.release()
	if budget.Bytes.Load() != 0 || a.Bytes != 0 || b.Bytes != 0 {
		t.Errorf("after delete and release the budget holds %d (stores %d, %d), want 0", budget.Bytes.Load(), a.Bytes, b.Bytes)
	}
}
