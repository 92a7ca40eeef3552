// Command conformance-compare compares the results of two or more conformance runs (two
// deployments, or one deployment before and after a change) and prints a Markdown page: each run's
// totals, and every check whose outcome differs.
//
//	conformance-compare a/conformance-results.json b/conformance-results.json [...]
//
// Like diff, it exits 0 when every check ended alike, 1 when some differ, and 2 on an error.
package main

import (
	"fmt"
	"os"

	"github.com/platformkit/platformkit/conformance"
)

func main() {
	page, differ, err := conformance.Compare(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance-compare:", err)
		os.Exit(2)
	}
	fmt.Print(page)
	if differ {
		os.Exit(1)
	}
}
