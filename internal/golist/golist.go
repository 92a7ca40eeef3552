// Package golist lists the packages of the module as go list sees them, for the tests that hold
// packages to their layers (conformance/layering_test.go, fake/layering_test.go).
package golist

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
)

// Module is the import path every package of the repository starts with.
const Module = "github.com/platformkit/platformkit"

// Package is what the layering tests read of go list -json's description of a package.
type Package struct {
	ImportPath, Dir         string
	Imports, TestImports    []string
	XTestImports            []string
	Standard, DepOnly, Test bool
}

// List is `go list -e -json` of the packages pattern matches.
func List(pattern string) ([]Package, error) {
	cmd := exec.Command("go", "list", "-e", "-json", pattern)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []Package
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p Package
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return pkgs, nil
		} else if err != nil {
			return nil, fmt.Errorf("reading go list's output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}
