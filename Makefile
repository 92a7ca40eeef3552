# platformkit: the fake Platform API and its conformance suite. Needs only Go.
GO      ?= go
ADDR    ?= 127.0.0.1:4010
REPORTS ?= reports

.PHONY: run test lint fmt-check vet unit resources fuzz-short fuzz conformance examples bench load help

help: ## list the targets, with the values of the variables they use
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) \
		| sed -e 's|$$(ADDR)|$(ADDR)|g' -e 's|$$(REPORTS)|$(REPORTS)|g' -e 's|$$(FUZZTIME)|$(FUZZTIME)|g' -e 's|\$$\$$|$$|g' \
		| awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'
	@echo
	@echo 'Variables (set as make VAR=value):'
	@echo '  ADDR=$(ADDR)  REPORTS=$(REPORTS)  GO=$(GO)'
	@echo '  RUN_FLAGS=$(RUN_FLAGS)  GINKGO_FLAGS=$(GINKGO_FLAGS)  LOAD_FLAGS=$(LOAD_FLAGS)  FUZZTIME=$(FUZZTIME)'

# run builds quietly, so that the first line it prints is the binary's "listening on http://ADDR".
run: ## serve the fake on $(ADDR) (virtual clock, embedded fixtures; flags in RUN_FLAGS); Ctrl-C stops it gracefully
	@$(GO) build -o bin/platformfake ./fake/cmd/platformfake
	@exec ./bin/platformfake -addr $(ADDR) $(RUN_FLAGS)

test: lint unit resources fuzz-short examples ## everything CI runs: gofmt, vet, unit tests with -race (incl. conformance against the fake and fixture validation), resource bounds, short fuzzing, examples

lint: fmt-check vet ## gofmt and go vet

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# fake/internal/openapicheck is a module of its own, so that the OpenAPI validator it tests with
# is not a dependency of platformkit: ./... does not reach it.
OPENAPICHECK = fake/internal/openapicheck

vet:
	$(GO) vet ./...
	cd $(OPENAPICHECK) && $(GO) vet ./...

unit: ## unit tests with -race (incl. the conformance suite against an in-process fake); the OpenAPI documents checked by an independent validator
	$(GO) test -race -count=1 -timeout 8m $$($(GO) list ./... | grep -v '/examples/')
	cd $(OPENAPICHECK) && $(GO) test -count=1 -timeout 5m ./...

resources: ## the memory and time bounds of the known amplifiers (fake/resource_test.go), without -race, which distorts them
	$(GO) test -count=1 -run '^TestAmplifiersStayBounded$$' -v ./fake

# Every Go fuzz target (func FuzzX in a _test.go file), as "package-dir target" pairs: go test
# -fuzz takes one target per run. `go test` alone runs their seed corpora as ordinary tests.
FUZZ_TARGETS = $(shell grep -r --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*' . | sed -E 's|^(.*)/[^/]*:func (Fuzz.*)|\1 \2|' | sort)
FUZZTIME ?= 1m
# How long the fuzzer may spend shrinking each new input (Go's default, 60 s, would stall a short run).
FUZZMINIMIZETIME ?= 5s

# Go 1.26's fuzz coordinator can end a run that found nothing with "context deadline exceeded"
# when -fuzztime runs out while a worker is busy (go.dev/issue/75804, fixed in Go 1.27). Such a
# run wrote no failing input, so it is reported and counted as the clean stop it is; any other
# failure, and any run that wrote a failing input, fails.
fuzz: ## run every Go fuzz target for $(FUZZTIME) each; a failing input is saved under the package's testdata/fuzz/
	@out=$$(mktemp); trap 'rm -f "$$out" "$$out.rc"' EXIT; \
	set -- $(FUZZ_TARGETS); while [ $$# -gt 1 ]; do \
		echo "== $$2 ($$1, $(FUZZTIME))"; \
		{ $(GO) test -run='^$$' -fuzz="^$$2$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=$(FUZZMINIMIZETIME) $$1; echo $$? > "$$out.rc"; } 2>&1 | tee "$$out"; \
		if [ "$$(cat "$$out.rc")" != 0 ]; then \
			if grep -q 'context deadline exceeded' "$$out" && ! grep -q 'Failing input written' "$$out"; then \
				echo "fuzz: $$2 found nothing; its \"context deadline exceeded\" is Go's fuzz coordinator stopping at -fuzztime (go.dev/issue/75804), not a failure"; \
			else exit 1; fi; \
		fi; shift 2; \
	done

fuzz-short: ## every fuzz target for 3 s: part of make test
	@$(MAKE) --no-print-directory fuzz FUZZTIME=3s FUZZMINIMIZETIME=500ms

# examples/go-sdk is a module of its own, so that the official Go SDK is no dependency of
# platformkit; it runs against the pinned SDK release (go.mod) and the newest (go.newest.mod).
examples: ## run the examples as their users would (examples/typescript-sdk needs node and npm)
	@command -v node >/dev/null && command -v npm >/dev/null || echo "examples: node or npm is not installed: examples/typescript-sdk is SKIPPED"
	$(GO) test -count=1 ./examples/...
	cd examples/go-sdk && $(GO) test -count=1 ./... && $(GO) test -count=1 -modfile=go.newest.mod -tags sdknewest ./...

conformance: ## the conformance suite against $$CONFORMANCE_BASE_URL (in-process fake when unset); JUnit, JSON and Markdown reports in $(REPORTS)/
	CONFORMANCE_REPORTS=$(abspath $(REPORTS)) $(GO) test -count=1 -timeout 30m -v -run '^TestConformance$$' ./conformance -args $(GINKGO_FLAGS)

bench: ## Go benchmarks (time and allocations); compare runs with benchstat
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 ./fake/...

load: ## load test against the binary on loopback; figures are ratios to a baseline of the same run
	$(GO) run ./fake/internal/loadtest $(LOAD_FLAGS)
