// Command conformance-compare compares the results of two or more conformance runs (two
// deployments, or one deployment before and after a change) and prints a Markdown page: each run's
// totals, and every check whose outcome differs (an extension check's failure reads "differs").
//
//	conformance-compare a/conformance-results.json b/conformance-results.json [...]
//	conformance-compare -rerun original/conformance-results.json rerun/conformance-results.json
//
// With -rerun only the checks every run selected are compared: a rerun (CONFORMANCE_RERUN) with
// its original, by the checks it reran. `platformconformance compare` is the same command.
//
// Like diff, it exits 0 when every check ended alike, 1 when some differ, and 2 on an error.
package main

import (
	"os"

	"github.com/platformkit/platformkit/conformance"
)

func main() {
	os.Exit(conformance.CompareMain("conformance-compare", os.Args[1:], os.Stdout, os.Stderr))
}
