# platformkit: the fake Platform API and its conformance suite. Needs only Go.
GO      ?= go
ADDR    ?= 127.0.0.1:4010
REPORTS ?= reports

.PHONY: run test lint fmt-check vet unit resources fuzz-short fuzz conformance examples packages java-helper host-packages dist bench load soak-hostile help sdk-drift sdk-tests
.PHONY: conformance-rerun conformance-compare litellm thirdparty

help: ## list the targets, with the values of the variables they use
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) \
		| sed -e 's|$$(ADDR)|$(ADDR)|g' -e 's|$$(REPORTS)|$(REPORTS)|g' -e 's|$$(DIST)|$(DIST)|g' -e 's|$$(FUZZTIME)|$(FUZZTIME)|g' -e 's|$$(SOAK_DURATION)|$(SOAK_DURATION)|g' -e 's|$$(PYTHON_SDK)|$(PYTHON_SDK)|g' -e 's|\$$\$$|$$|g' \
		| awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'
	@echo
	@echo 'Variables (set as make VAR=value):'
	@echo '  ADDR=$(ADDR)  REPORTS=$(REPORTS)  GO=$(GO)  VERSION=$(VERSION)  DIST=$(DIST)'
	@echo '  RUN_FLAGS=$(RUN_FLAGS)  GINKGO_FLAGS=$(GINKGO_FLAGS)  LOAD_FLAGS=$(LOAD_FLAGS)  FUZZTIME=$(FUZZTIME)  SOAK_DURATION=$(SOAK_DURATION)'
	@echo
	@echo 'Environment of make conformance (docs/operators.md):'
	@echo '  CONFORMANCE_BASE_URL=$(CONFORMANCE_BASE_URL)  the API root, http(s)://host[:port]; unset: an in-process fake'
	@echo '  CONFORMANCE_API_KEY, _ADMIN_API_KEY, _COMPLIANCE_API_KEY, _BEARER_TOKEN, _ENVIRONMENT_KEY: credentials; unset: the fake'"'"'s against the fake, else that interface'"'"'s checks are unsupported'
	@echo '    now set: $(or $(strip $(foreach v,API_KEY ADMIN_API_KEY COMPLIANCE_API_KEY BEARER_TOKEN ENVIRONMENT_KEY,$(if $(CONFORMANCE_$(v)),$(v)))),none)'
	@echo '  CONFORMANCE_API_KEY_2, _ADMIN_API_KEY_2, _COMPLIANCE_API_KEY_2, _BEARER_TOKEN_2: a second organization (tenancy checks)'
	@echo '  CONFORMANCE_DESTRUCTIVE=$(CONFORMANCE_DESTRUCTIVE)  1 runs the checks that delete pre-existing data'
	@echo '  CONFORMANCE_TIMEOUT=$(CONFORMANCE_TIMEOUT)  per request, e.g. 90s (default 60s)'
	@echo '  CONFORMANCE_API_VERSION=$(CONFORMANCE_API_VERSION)  the API version sent: 2023-06-01 (default) or 2026-10-21'
	@echo '  CONFORMANCE_WORK_ENQUEUE  a command that enqueues one work item and prints its work_ ID'

# run builds quietly, so that the first line it prints is the binary's "listening on http://ADDR".
run: ## serve the fake on $(ADDR) (virtual clock, embedded fixtures; flags in RUN_FLAGS); Ctrl-C stops it gracefully
	@$(GO) build -o bin/platformfake ./fake/cmd/platformfake
	@exec ./bin/platformfake -addr $(ADDR) $(RUN_FLAGS)

# The steps of make test, in order. Each is a target of its own, runnable alone.
TEST_STEPS = lint unit resources examples packages

# make test runs every step, even after one failed, so that one run says everything that fails.
# Each step prints its name when it starts and its duration when it ends; the run ends with the
# steps that did not pass or skipped a part for a missing tool, and then one line, the last,
# "make test: N passed, N failed", which CI reads. A failed step fails make test after that line.
#
# go test vets each package it tests, with a subset of go vet's checks. In make test, lint has
# already run all of go vet on every package of platformkit and of OPENAPICHECK, so the go test
# runs of the later steps skip it (GOTESTVET=-vet=off on their make's command line); each target
# run alone still vets. examples/go-sdk, which lint does not vet, always does.
GOTESTVET =

test: ## everything CI runs, step by step with each step's time and a summary line: gofmt, vet, unit tests with -race (incl. conformance against the fake, fixture validation and every fuzz target's seeds and saved inputs), resource bounds, examples, the npm, Python and Java packages
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; passed=0; failed=0; n=0; total=$(words $(TEST_STEPS)); run_start=$$(date +%s); \
	dur() { s=$$1; if [ $$s -ge 60 ]; then echo "$$((s / 60))m$$((s % 60))s"; else echo "$${s}s"; fi; }; \
	for step in $(TEST_STEPS); do \
		n=$$((n + 1)); echo "== make test: $$step ($$n/$$total) started at $$(date -u +%H:%M:%S) UTC"; start=$$(date +%s); \
		{ $(MAKE) --no-print-directory $$step GOTESTVET=-vet=off; echo $$? > "$$tmp/rc"; } 2>&1 | tee "$$tmp/log"; \
		took=$$(dur $$(($$(date +%s) - start))); \
		grep -E '^[a-z-]+: .* is not installed: ' "$$tmp/log" | sed "s|^|  |" >> "$$tmp/skipped"; \
		if [ "$$(cat "$$tmp/rc")" = 0 ]; then passed=$$((passed + 1)); echo "== make test: $$step passed in $$took"; \
		else failed=$$((failed + 1)); echo "  $$step FAILED after $$took" >> "$$tmp/failed"; echo "== make test: $$step FAILED in $$took"; fi; \
	done; \
	echo "== make test: $$(dur $$(($$(date +%s) - run_start))) in all"; \
	if [ -s "$$tmp/failed" ]; then echo "failed steps:"; cat "$$tmp/failed"; fi; \
	if [ -s "$$tmp/skipped" ]; then echo "parts skipped for a missing tool:"; cat "$$tmp/skipped"; fi; \
	echo "make test: $$passed passed, $$failed failed"; [ $$failed = 0 ]

lint: fmt-check vet ## gofmt and go vet

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# fake/internal/openapicheck is a module of its own, so that the OpenAPI validator it tests with
# is not a dependency of platformkit: ./... does not reach it.
OPENAPICHECK = fake/internal/openapicheck

vet:
	$(GO) vet ./...
	cd $(OPENAPICHECK) && $(GO) vet ./...

# TESTREPORT DIR ARGS... runs `go test -json ARGS...` in DIR through internal/testreport: go test's
# usual output, then every test that was skipped and why. It fails when go test does.
TESTREPORT = tr=$$(mktemp -d); trap 'rm -rf "$$tr"' EXIT; $(GO) build -o "$$tr/testreport" ./internal/testreport && \
	gotest() { dir=$$1; shift; { (cd "$$dir" && $(GO) test -json "$$@"); echo $$? > "$$tr/rc"; } | "$$tr/testreport" && [ "$$(cat "$$tr/rc")" = 0 ]; }; gotest

unit: ## unit tests with -race (incl. the conformance suite against an in-process fake at every API version), every schema verdict checked against the validator; the OpenAPI documents checked by an independent validator; lists every skipped test
	@PLATFORMKIT_SCHEMAS_CROSSCHECK=1 $(TESTREPORT) . -race $(GOTESTVET) -count=1 -timeout 8m $$($(GO) list ./... | grep -v -e '/examples/' -e '/packaging$$')
	@$(TESTREPORT) $(OPENAPICHECK) $(GOTESTVET) -count=1 -timeout 5m ./...

resources: ## the memory and time bounds of the known amplifiers (fake/resource_test.go, fake/cost_test.go), without -race, which distorts them
	$(GO) test $(GOTESTVET) -count=1 -run '^(TestAmplifiersStayBounded|TestWorkAmplifiersRefusedWithinASecond|TestRefusedSnapshotReleasesItsMemory|TestThreadMemoryIsBounded|TestStubMemoryIsBounded|TestGeneratedValuesCharged|TestBetaValuesCharged|TestStubMatchingCharged|TestStubMatchingStopsWhenTheClientGoes|TestThreadContinueMeetsTheMessageBound|TestFilesUploadBodyIsBounded|TestSkillsBytesAreBounded|TestBatchMemory100k|TestSessionsLoadIsCharged|TestSessionPageAllocatesForItsPage)$$' -v ./fake

# Every Go fuzz target (func FuzzX in a _test.go file), as "package-dir target" pairs: go test
# -fuzz takes one target per run. `go test` alone runs their seed corpora as ordinary tests.
FUZZ_TARGETS = $(shell grep -r --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*' . | sed -E 's|^(.*)/[^/]*:func (Fuzz.*)|\1 \2|' | sort)
FUZZTIME ?= 1m
# How long the fuzzer may spend shrinking each new input (Go's default, 60 s, would stall a short run).
FUZZMINIMIZETIME ?= 5s

# Each package's fuzz test binary is built once, by go test -c -fuzz (which builds it with the
# coverage instrumentation fuzzing needs), and run once per target: go test -fuzz would link it
# anew for every target. The binary runs as go test runs it: in the package's directory (seed
# corpus and failing inputs in testdata/fuzz/), with the cache of interesting inputs go test
# keeps under GOCACHE, and go test's default timeout.
#
# Go 1.26's fuzz coordinator can end a run that found nothing with "context deadline exceeded"
# when -fuzztime runs out while a worker is busy (go.dev/issue/75804, fixed in Go 1.27). Such a
# run wrote no failing input, so it is reported and counted as the clean stop it is; any other
# failure, and any run that wrote a failing input, fails.
fuzz: ## run every Go fuzz target for $(FUZZTIME) each; a failing input is saved under the package's testdata/fuzz/
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; out=$$tmp/out; \
	set -- $(FUZZ_TARGETS); while [ $$# -gt 1 ]; do \
		bin=$$tmp/$$(echo "$$1" | tr -c 'A-Za-z0-9\n' _).test; \
		if [ ! -e "$$bin" ]; then \
			$(GO) test -c -fuzz="^$$2$$" -o "$$bin" $$1 || exit 1; \
			$(GO) list -f '{{.ImportPath}}' $$1 > "$$bin.importpath" || exit 1; \
		fi; \
		echo "== $$2 ($$1, $(FUZZTIME))"; \
		{ (cd $$1 && "$$bin" -test.run='^$$' -test.fuzz="^$$2$$" -test.fuzztime=$(FUZZTIME) -test.fuzzminimizetime=$(FUZZMINIMIZETIME) \
			-test.fuzzcachedir="$$($(GO) env GOCACHE)/fuzz/$$(cat "$$bin.importpath")" -test.timeout=10m -test.paniconexit0); \
			echo $$? > "$$out.rc"; } 2>&1 | tee "$$out"; \
		if [ "$$(cat "$$out.rc")" != 0 ]; then \
			if grep -q 'context deadline exceeded' "$$out" && ! grep -q 'Failing input written' "$$out"; then \
				echo "fuzz: $$2 found nothing; its \"context deadline exceeded\" is Go's fuzz coordinator stopping at -fuzztime (go.dev/issue/75804), not a failure"; \
			else exit 1; fi; \
		fi; shift 2; \
	done

# make test does not fuzz: a fuzzer explores at random, so what it finds in a run depends on luck
# and not on the change under test, and a check that can fail by luck is a flaky check. What a
# fuzzing run finds is saved under testdata/fuzz/ and committed with its fix; from then on every
# go test replays it, with the seeds, deterministically.
fuzz-short: ## every fuzz target for 3 s
	@$(MAKE) --no-print-directory fuzz FUZZTIME=3s FUZZMINIMIZETIME=500ms

# examples/go-sdk is a module of its own, so that the official Go SDK is no dependency of
# platformkit; it runs against the pinned v1 release (go.mod) and the newest v1 (go.newest.mod).
# examples/go-sdk/v2 is another module, for Go SDK v2 (a new import path, so a build of its own).
# examples/java-sdk installs the Java helper (packaging/java) into ~/.m2 and runs mvn test, with
# the binary built here (PLATFORMFAKE_BINARY).
examples: ## run the examples as their users would (examples/typescript-sdk needs node and npm, examples/java-sdk java and mvn)
	@command -v node >/dev/null && command -v npm >/dev/null || echo "examples: node or npm is not installed: examples/typescript-sdk is SKIPPED"
	@command -v java >/dev/null && command -v mvn >/dev/null || echo "examples: java or mvn is not installed: examples/java-sdk (the official Java SDK) is SKIPPED"
	@$(GO) build -o bin/platformfake ./fake/cmd/platformfake
	@export PLATFORMFAKE_BINARY=$(abspath bin/platformfake); $(TESTREPORT) . $(GOTESTVET) -count=1 ./examples/...
	@$(TESTREPORT) examples/go-sdk -count=1 ./...
	@$(TESTREPORT) examples/go-sdk -count=1 -modfile=go.newest.mod -tags sdknewest ./...
	@$(TESTREPORT) examples/go-sdk/v2 -count=1 ./...

# Not part of make test: it asks the registries for their newest releases (docs/contributing.md: "For maintainers: SDK drift").
sdk-drift: ## the official SDKs' proofs against their newest releases (Go module proxy, npm, PyPI, Maven Central), not the pinned ones; reports what the fake refused
	$(GO) run ./internal/sdkdrift $(if $(SDK),-sdk $(SDK))

# Not part of make test: a cold run installs Python packages from PyPI and takes minutes (warm,
# about two: docs/operators.md, "The SDKs' own generated tests").
PYTHON_SDK ?= 2.14.0,1.17.0

sdk-tests: ## the official SDKs' own generated tests, unmodified, against the fake's binary (Python $(PYTHON_SDK) from its PyPI sdist, pinned packages; Go SDK v2's module); each failure classified: (a) not served, (b) placeholder, (c) drift, which fails it
	@$(GO) build -o bin/platformfake ./fake/cmd/platformfake
	@$(GO) run ./internal/sdktests -fake bin/platformfake -python '$(PYTHON_SDK)'

# The suite runs as a compiled test binary rather than under go test, whose closing "FAIL <package>"
# line would follow the summary: the summary is the last line the suite prints (when the run
# fails, make adds its own "Error 1" line after it).
conformance: ## the conformance suite against $$CONFORMANCE_BASE_URL (in-process fake when unset); JUnit, JSON, Markdown and HTML reports in $(REPORTS)/
	@$(GO) test -c -o bin/conformance.test ./conformance
	CONFORMANCE_REPORTS=$(abspath $(REPORTS)) ./bin/conformance.test -test.count=1 -test.timeout=30m -test.v -test.run='^TestConformance$$' $(GINKGO_FLAGS)

# The results file conformance-rerun reads, and the files conformance-compare compares.
RERUN   ?= $(REPORTS)/conformance-results.json
COMPARE ?=

conformance-rerun: ## only the checks that did not pass in RERUN (default: the last run's results), against $$CONFORMANCE_BASE_URL; reports in $(REPORTS)/rerun/
	CONFORMANCE_RERUN=$(abspath $(RERUN)) CONFORMANCE_REPORTS=$(abspath $(REPORTS))/rerun $(GO) test -count=1 -timeout 30m -v -run '^TestConformance$$' ./conformance -args $(GINKGO_FLAGS)

# Not part of make test: LiteLLM's install is large (hundreds of MB) and comes from PyPI.
litellm: ## install the LiteLLM proxy (pinned, conformance/litellm/requirements.txt) into the user's cache and run the conformance suite against it twice, as docs/operators.md says: its built-in mock, and in front of the fake; reports in $(REPORTS)/litellm-*/
	@REPORTS=$(REPORTS) sh conformance/litellm/run.sh

thirdparty: ## install two more implementations of the Messages API nobody here wrote (pinned, conformance/thirdparty/: mockllm, and local-openai2anthropic in front of LiteLLM's mock) into the user's cache and run the conformance suite against each, as docs/operators.md says; reports in $(REPORTS)/thirdparty-*/
	@REPORTS=$(REPORTS) sh conformance/thirdparty/run.sh

conformance-compare: ## a Markdown table of every check whose outcome differs between the results files in COMPARE (two or more); fails when some differ, like diff
	@$(GO) build -o bin/conformance-compare ./conformance/cmd/conformance-compare
	@./bin/conformance-compare $(COMPARE)

packages: ## build this machine's npm packages, Python wheel and Java helper, install them into a fresh project, virtual environment and ~/.m2, and run their suites (node --test; pytest, pinned, from PyPI; mvn, pinned, from Maven Central) and the Java quick starts of docs/java.md and the README (needs node and npm, python3 with venv, java 17+ and mvn)
	@command -v node >/dev/null && command -v npm >/dev/null || echo "packages: node or npm is not installed: the npm package is NOT TESTED (SKIPPED)"
	@command -v python3 >/dev/null && python3 -m venv --help >/dev/null 2>&1 || echo "packages: python3 with venv is not installed: the Python wheel is NOT TESTED (SKIPPED)"
	@command -v java >/dev/null && command -v mvn >/dev/null || echo "packages: java or mvn is not installed: the Java helper is NOT TESTED (SKIPPED)"
	$(GO) test $(GOTESTVET) -count=1 -timeout 20m ./packaging

# The Java helper (packaging/java, docs/java.md) carries the binary built here, for this machine
# only; its version is its pom.xml's (packaging_test.go holds it to VERSION in Maven's spelling).
JAVA_BUNDLE = packaging/java/bundle

java-helper: ## build this machine's platformfake into the Java helper and install dev.platformkit:platformkit-fake into your local Maven repository (~/.m2) (needs java 17+ and mvn)
	@command -v java >/dev/null && command -v mvn >/dev/null || { echo "java-helper: java (17 or later) and mvn are needed, and at least one is not installed"; exit 1; }
	@rm -rf $(JAVA_BUNDLE)
	@$(GO) build -o $(JAVA_BUNDLE)/$$($(GO) env GOOS)-$$($(GO) env GOARCH)/platformfake$$($(GO) env GOEXE) ./fake/cmd/platformfake
	@cd packaging/java && out=$$(mvn -q -B install -Dmaven.test.skip=true 2>&1) || { echo "$$out"; exit 1; }
	@v=$$(sed -n 's|^  <version>\(.*\)</version>$$|\1|p' packaging/java/pom.xml); \
	echo "java-helper: installed dev.platformkit:platformkit-fake:$$v (with this machine's platformfake) into your local Maven repository"; \
	echo "java-helper: add to your pom.xml (docs/java.md):"; \
	echo "  <dependency><groupId>dev.platformkit</groupId><artifactId>platformkit-fake</artifactId><version>$$v</version><scope>test</scope></dependency>"

# The packages are not on the registries yet: this builds the ones this machine can install, from
# the checkout (-cached: linked from what earlier builds compiled; not a release build), and prints
# the commands that install them by absolute path (docs/install.md).
host-packages: ## this machine's npm packages and Python wheel only, into dist/host/; prints the commands that install them (npm, pip, go install, Java)
	@$(GO) run ./internal/dist -host -cached -out dist/host -install-commands

VERSION ?= 0.1.0-dev.0
DIST    ?= dist

dist: ## release artifacts in $(DIST)/: platformfake and platformconformance for linux, darwin, windows on amd64 and arm64, npm packages, wheels, SHA256SUMS (VERSION=X.Y.Z)
	$(GO) run ./internal/dist -version $(VERSION) -out $(DIST)

bench: ## Go benchmarks (time and allocations); compare runs with benchstat
	$(GO) test -run='^$$' -bench=. -benchmem -count=1 ./fake/... ./schemas/

load: ## load test against the binary on loopback; figures are ratios to a baseline of the same run
	$(GO) run ./fake/internal/loadtest $(LOAD_FLAGS)

SOAK_DURATION ?= 10m

# Not part of make test: it runs for SOAK_DURATION. go run ./fake/internal/soak -repro prints the
# table of issue 47's reproductions; -probe that of issue 38's.
soak-hostile: ## hostile thread, stub and generation requests over 1,000 namespaces against the binary on loopback for $(SOAK_DURATION); RSS over time, fails on a 5xx
	$(GO) run ./fake/internal/soak -mix threads -duration $(SOAK_DURATION)
