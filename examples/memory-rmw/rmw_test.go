package memoryrmw_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	memoryrmw "github.com/platformkit/platformkit/examples/memory-rmw"
	"github.com/platformkit/platformkit/fake"
)

// TestUpdateRetriesOnConflict runs four writers that each append a line to one memory; every
// line lands exactly once although the writers overwrite each other's reads.
func TestUpdateRetriesOnConflict(t *testing.T) {
	ts := fake.NewTestServer(t)
	c := &memoryrmw.Client{BaseURL: ts.URL, APIKey: "test-api-key", StoreID: "memstore_01AcmeSupportAgent0000001", HTTP: ts.Client()}
	ctx := context.Background()
	m, err := c.Create(ctx, "/examples/counter.md", "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 5 {
				line := fmt.Sprintf("writer %d line %d\n", w, i)
				if _, _, err := c.Update(ctx, m.ID, func(old string) string { return old + line }, 100); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	final, _, err := c.Update(ctx, m.ID, func(old string) string { return old }, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Count(final.Content, "\n"), 20; got != want {
		t.Fatalf("lines = %d, want %d:\n%s", got, want, final.Content)
	}
}

// Example appends a line to a memory that another writer changes between the read and the write:
// the first attempt gets 409 and the loop applies the change to the other writer's version.
func Example() {
	ts := httptest.NewServer(fake.New())
	defer ts.Close()
	c := &memoryrmw.Client{BaseURL: ts.URL, APIKey: "test-api-key", StoreID: "memstore_01AcmeSupportAgent0000001", HTTP: ts.Client()}
	ctx := context.Background()
	m, _ := c.Create(ctx, "/examples/shopping.md", "milk\n")
	fmt.Printf("created %s with %q\n", m.Path, m.Content)

	interfered := false
	m, attempts, err := c.Update(ctx, m.ID, func(old string) string {
		if !interfered {
			interfered = true
			// Another writer adds bread after our read; our first write must not erase it.
			_, _, _ = c.Update(ctx, m.ID, func(old string) string { return old + "bread\n" }, 1)
		}
		return old + "eggs\n"
	}, 5)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Printf("stored after %d attempts: %q\n", attempts, m.Content)
	// Output:
	// created /examples/shopping.md with "milk\n"
	// stored after 2 attempts: "milk\nbread\neggs\n"
}
