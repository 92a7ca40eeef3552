# platformkit: the fake Platform API and its conformance suite. Needs only Go.
GO      ?= go
ADDR    ?= 127.0.0.1:4010
REPORTS ?= reports

.PHONY: run test lint fmt-check vet unit conformance examples bench load help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

run: ## serve the fake on $(ADDR) (virtual clock, embedded fixtures); Ctrl-C stops it gracefully
	$(GO) build -o bin/platformfake ./fake/cmd/platformfake
	exec ./bin/platformfake -addr $(ADDR) $(RUN_FLAGS)

test: lint unit examples ## everything CI runs: gofmt, vet, unit tests with -race (incl. conformance against the fake and fixture validation), examples

lint: fmt-check vet ## gofmt and go vet

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit: ## unit tests with -race; includes the conformance suite against an in-process fake
	$(GO) test -race -count=1 -timeout 8m ./...

examples: ## run the examples as their users would
	$(GO) test -count=1 ./examples/...

conformance: ## the conformance suite against $$CONFORMANCE_BASE_URL (in-process fake when unset); JUnit, JSON and Markdown reports in $(REPORTS)/
	CONFORMANCE_REPORTS=$(abspath $(REPORTS)) $(GO) test -count=1 -timeout 30m -v -run '^TestConformance$$' ./conformance -args $(GINKGO_FLAGS)

bench: ## Go benchmarks (time and allocations); compare runs with benchstat
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 ./fake/...

load: ## load test against the binary on loopback; figures are ratios to a baseline of the same run
	$(GO) run ./fake/internal/loadtest $(LOAD_FLAGS)
