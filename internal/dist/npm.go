package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// npmScope is the npm organization of the packages: @platformkit/fake, and one
// @platformkit/fake-<os>-<cpu> per platform.
const npmScope = "@platformkit"

// npmPlatformName is the name of p's npm package.
func npmPlatformName(p Platform) string { return npmScope + "/fake-" + p.NodeOS + "-" + p.NodeCPU }

// npmPackages writes the main package (packaging/npm/fake with its version and optional
// dependencies filled in) and one package per platform carrying that platform's binary, under
// out/npm/, and packs each into a tarball there with npm pack. The main package depends on
// every platform's package as optional, each with os and cpu fields: npm installs only the one
// that matches the machine, from the registry, and nothing is downloaded at install time.
func npmPackages(root, out, ver string, lic license, platforms []Platform, log io.Writer) error {
	dir := filepath.Join(out, "npm")
	var dirs []string
	optional := map[string]string{}
	for _, p := range Platforms { // all six, whatever was built: the main package is the same everywhere
		optional[npmPlatformName(p)] = ver
	}
	for _, p := range platforms {
		pkgDir := filepath.Join(dir, "fake-"+p.NodeOS+"-"+p.NodeCPU)
		manifest := map[string]any{
			"name":            npmPlatformName(p),
			"version":         ver,
			"description":     fmt.Sprintf("The platformfake binary for %s %s; installed by @platformkit/fake, not on its own.", p.NodeOS, p.NodeCPU),
			"license":         lic.spdx,
			"os":              []string{p.NodeOS},
			"cpu":             []string{p.NodeCPU},
			"files":           []string{"bin/"},
			"preferUnplugged": true,
		}
		if err := writeJSON(filepath.Join(pkgDir, "package.json"), manifest); err != nil {
			return err
		}
		if err := copyFile(binary(out, p), filepath.Join(pkgDir, "bin", p.exe("platformfake")), 0o755); err != nil {
			return err
		}
		readme := fmt.Sprintf("# %s\n\nThe `platformfake` binary for %s %s. Install [`@platformkit/fake`](https://www.npmjs.com/package/@platformkit/fake), which depends on it.\n", npmPlatformName(p), p.NodeOS, p.NodeCPU)
		if err := os.WriteFile(filepath.Join(pkgDir, "README.md"), []byte(readme), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(pkgDir, "LICENSE"), lic.text, 0o644); err != nil {
			return err
		}
		dirs = append(dirs, pkgDir)
	}

	src := filepath.Join(root, "packaging", "npm", "fake")
	mainDir := filepath.Join(dir, "fake")
	if err := os.CopyFS(mainDir, os.DirFS(src)); err != nil {
		return err
	}
	manifestPath := filepath.Join(mainDir, "package.json")
	b, err := os.ReadFile(manifestPath)
	if err != nil {
		return err
	}
	var manifest map[string]any
	if err := json.Unmarshal(b, &manifest); err != nil {
		return fmt.Errorf("%s: %v", src, err)
	}
	manifest["version"] = ver
	manifest["license"] = lic.spdx
	manifest["optionalDependencies"] = optional
	if err := writeJSON(manifestPath, manifest); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(mainDir, "LICENSE"), lic.text, 0o644); err != nil {
		return err
	}
	dirs = append(dirs, mainDir)

	npm, err := exec.LookPath("npm")
	if err != nil {
		fmt.Fprintf(log, "dist: npm is not installed: the npm packages are left unpacked in %s (npm pack packs each)\n", dir)
		return nil
	}
	for _, d := range dirs {
		abs, _ := filepath.Abs(dir)
		cmd := exec.Command(npm, "pack", "--silent", "--pack-destination", abs)
		cmd.Dir = d
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("npm pack in %s: %v\n%s", d, err, b)
		}
	}
	return nil
}

// writeJSON writes v as indented JSON, the way npm writes package.json.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
