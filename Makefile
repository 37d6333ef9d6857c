# epp-build: `make test` is the one command that runs every test (CI runs it
# through .ci/run); its Go tests come in three tiers (docs/testing.md):
# `make test-unit` needs Go and git only, `make test-integration` the
# daemons, toolchains and fetched GAIE trees, `make test-e2e` the
# whole-product runs. `make bench` prints speed and memory against the git
# CLI, and BuildKit cache times (cold, warm, registry-warm).
GO ?= go
GOFMT ?= gofmt
NESTED := ffi $(wildcard plugins/*)
# Fuzz budgets are execution counts, not durations: with a -fuzztime
# duration, Go before 1.27 can fail a target with "context deadline
# exceeded" at the deadline although it found nothing (golang/go#75804).
# Each count is about 15-20 s on 2 cores.
FUZZ_PATCHSET ?= 100000x
FUZZ_RECIPE ?= 20000x
FUZZ_REBASE ?= 100000x
FUZZ_PACK ?= 20000x
FUZZ_MINIMIZE ?= 2000x
VERSIONS := $(notdir $(wildcard patches/*))
# Go tests run through gotestsum (installed by `make deps`): a line per
# package as they finish, and a JSON record per stage in $(RESULTS) that
# scripts/test.sh sums up at the end.
GOTESTSUM ?= $(shell $(GO) env GOPATH)/bin/gotestsum
GOTESTSUM_VERSION := v1.13.0
# actionlint checks the GitHub Actions example (docs/ci/) and the release
# workflow, with the local setup-epp-build action it uses; `make deps`
# installs it like gotestsum.
ACTIONLINT ?= $(shell $(GO) env GOPATH)/bin/actionlint
ACTIONLINT_VERSION := v1.7.12
RESULTS ?= $(CURDIR)/.test-results
GOTEST = $(GOTESTSUM) --format pkgname-and-test-fails --hide-summary=output,skipped --jsonfile
# Modules with Go files behind a C API variant's build tag: tested with the
# defaults and with the default double's reservation form (four calls).
# ffi/test-routers-variants.sh (target routers-variants) tests the routers
# binding against the double built as every other variant.
FEATURE_TAGS := routers_reservation_4
FEATURE_MODULES := ffi plugins/dynamo-v1.4

# Every vet and test of our modules compiles with the same flags, so vet,
# unit and nested share one build cache entry per package (the plugin
# modules depend on the same Kubernetes and GAIE packages as each other's
# tests and vet), and the race detector runs on all of our code. The
# patched GAIE trees in internal/intree and internal/deployed compile with
# the image build's flags instead (compile.GoFlags), shared with the image
# builds.
BUILDFLAGS := -race -trimpath

# The Go whose standard library make lint's vulnerability scan checks. The
# installed Go may be behind (go1.26.8 calls vulnerabilities fixed in
# go1.26.9 and go1.26.10): GOTOOLCHAIN fetches this one through the module
# proxy; when it cannot, the installed Go's own findings are listed, not
# failed on. A called vulnerability of a dependency always fails.
VULNCHECK_GO ?= go1.26.10
# A release is built with that same Go, so the binaries users download
# link a standard library the scan found nothing called in.
RELEASE_GO ?= $(VULNCHECK_GO)

.PHONY: build release image test deps double lint unit test-unit test-integration test-e2e test-slow nested routers-variants fuzz check-patches bench clean

build:
	$(GO) build -buildvcs=auto -o bin/epp-build ./cmd/epp-build

# A release of epp-build itself (tools/release): static binaries for
# linux and darwin on amd64 and arm64, an SPDX SBOM each, SHA256SUMS and,
# with RELEASE_KEY (a cosign or PEM private key, or env://VAR; password
# in COSIGN_PASSWORD), SHA256SUMS.sig for cosign verify-blob. Dated by
# SOURCE_DATE_EPOCH, else the commit's time: the same source gives the
# same bytes.
DIST ?= dist
release:
	@[ -n "$(VERSION)" ] || { echo "make release: set VERSION, such as VERSION=v1.2.3" >&2; exit 2; }
	$(GO) run ./tools/release --version "$(VERSION)" --dist "$(DIST)" --toolchain "$(RELEASE_GO)" $(if $(RELEASE_KEY),--key "$(RELEASE_KEY)")

# The image of the tool (internal/toolimage): the release folder's linux
# binaries, checked against its SHA256SUMS, on Debian with git and CA
# certificates, as user 65532, for linux/amd64 and linux/arm64, pushed to
# IMAGE (BuildKit at $BUILDKIT_HOST; BASE overrides the Debian base).
image:
	@[ -n "$(VERSION)" ] && [ -n "$(IMAGE)" ] || { echo "make image: set VERSION and IMAGE, such as VERSION=v1.2.3 IMAGE=ghcr.io/epp-build/epp-build:v1.2.3" >&2; exit 2; }
	$(GO) run ./tools/release --version "$(VERSION)" --image "$(IMAGE)" --image-from "$(DIST)" --push $(if $(BASE),--base "$(BASE)")

# Every stage in order, timed, with one summary of passed / failed /
# skipped tests (and why each skip happened) at the end.
test:
	@scripts/test.sh

# Debian packages and buildkitd for the image tests (needs root; idempotent),
# and gotestsum, which every user can install.
deps:
	@if [ "$$(id -u)" = 0 ]; then scripts/install-test-deps.sh; \
	else echo "not root: skipping scripts/install-test-deps.sh; tests that need its tools will skip"; fi
	@[ -x $(GOTESTSUM) ] || $(GO) install gotest.tools/gotestsum@$(GOTESTSUM_VERSION)
	@[ -x $(ACTIONLINT) ] || $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

# The Rust test double of the Dynamo C API, linked by the cgo packages.
double:
	ffi/build-double.sh

# Every command but the host compile runs on macOS: the module is vetted
# and the binary built for darwin too, so a Linux-only call cannot slip
# back in (without BUILDFLAGS: the race detector needs cgo, which a cross
# build turns off).
lint:
	@out=$$($(GOFMT) -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt wants to rewrite:"; echo "$$out"; exit 1; fi
	$(GO) vet $(BUILDFLAGS) ./...
	$(GO) vet $(BUILDFLAGS) -tags integration ./...
	$(GO) vet $(BUILDFLAGS) -tags e2e ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	GOOS=darwin GOARCH=amd64 $(GO) build -o /dev/null ./cmd/epp-build
	$(GO) run ./tools/vulncheck -go $(VULNCHECK_GO)
	@for m in $(NESTED); do (cd $$m && $(GO) vet $(BUILDFLAGS) ./...) || exit 1; done
	@for m in $(FEATURE_MODULES); do (cd $$m && $(GO) vet $(BUILDFLAGS) -tags $(FEATURE_TAGS) ./...) || exit 1; done
	$(ACTIONLINT) docs/ci/github-actions.yml .github/workflows/release.yml
	bash -n setup-epp-build/install.sh
	@if command -v shellcheck >/dev/null; then shellcheck setup-epp-build/install.sh; else echo "shellcheck not installed: setup-epp-build/install.sh checked with bash -n only" >&2; fi

# The tiers of the main module's tests. A file of tests that need more
# than Go and git carries a build tag: integration (buildkitd, a registry,
# kube-apiserver, Rust and C toolchains, GAIE fetched from the module
# proxy) or e2e (GAIE's own suites in its trees, the EPP started as
# Dynamo's operator starts it). A tagged tier compiles the untagged tests
# too, so tools/testtier names its tests alone in -run: no test runs in
# two tiers. Each tier names its longest packages first: go test starts
# packages in the order they are named, two at a time on two cores, so a
# long one named last would run alone at the end.
SLOW_FIRST_UNIT := ./cmd/epp-build ./internal/patchset ./internal/source ./internal/backport
SLOW_FIRST_INTEGRATION := ./internal/pipeline ./cmd/epp-build
SLOW_FIRST_E2E := ./internal/intree ./internal/deployed

test-unit: | $(RESULTS)
	$(GOTEST) $(RESULTS)/unit.json -- $(BUILDFLAGS) -timeout 30m $(SLOW_FIRST_UNIT) ./...

test-integration: | $(RESULTS)
	@args=$$($(GO) run ./tools/testtier -go $(GO) integration $(SLOW_FIRST_INTEGRATION) ./...) || exit 1; \
	  $(GOTEST) $(RESULTS)/integration.json -- $(BUILDFLAGS) -tags integration -timeout 75m $$args

test-e2e: | $(RESULTS)
	@args=$$($(GO) run ./tools/testtier -go $(GO) e2e $(SLOW_FIRST_E2E) ./...) || exit 1; \
	  $(GOTEST) $(RESULTS)/e2e.json -- $(BUILDFLAGS) -tags e2e -timeout 75m $$args

# The integration and e2e tiers side by side: their longest packages
# (internal/pipeline and internal/intree) each take about as long as the
# other, and one after the other they would add up; make test runs this.
test-slow:
	@$(MAKE) --no-print-directory -j2 test-integration test-e2e

# Every test of the main module, tier after tier.
unit: test-unit test-integration test-e2e

nested: | $(RESULTS)
	@for m in $(NESTED); do echo "== go test $$m"; \
	  (cd $$m && $(GOTEST) $(RESULTS)/nested-$$(echo $$m | tr / -).json -- $(BUILDFLAGS) -timeout 20m ./...) || exit 1; done
	@for m in $(FEATURE_MODULES); do echo "== go test -tags $(FEATURE_TAGS) $$m"; \
	  (cd $$m && $(GOTEST) $(RESULTS)/nested-tags-$$(echo $$m | tr / -).json -- $(BUILDFLAGS) -timeout 20m -tags $(FEATURE_TAGS) ./...) || exit 1; done

routers-variants:
	ffi/test-routers-variants.sh -race -timeout 20m

fuzz: | $(RESULTS)
	$(GOTEST) $(RESULTS)/fuzz-patchset.json -- -run '^$$' -fuzz FuzzParseApply -fuzztime $(FUZZ_PATCHSET) -fuzzminimizetime $(FUZZ_MINIMIZE) ./internal/patchset
	$(GOTEST) $(RESULTS)/fuzz-recipe.json -- -run '^$$' -fuzz FuzzLoad -fuzztime $(FUZZ_RECIPE) -fuzzminimizetime $(FUZZ_MINIMIZE) ./internal/recipe
	$(GOTEST) $(RESULTS)/fuzz-rebase-state.json -- -run '^$$' -fuzz FuzzRebaseState -fuzztime $(FUZZ_REBASE) -fuzzminimizetime $(FUZZ_MINIMIZE) ./internal/backport
	$(GOTEST) $(RESULTS)/fuzz-receive-pack.json -- -run '^$$' -fuzz FuzzReceivePack -fuzztime $(FUZZ_PACK) -fuzzminimizetime $(FUZZ_MINIMIZE) ./internal/source

$(RESULTS):
	mkdir -p $@

# Every committed series must be what apply (+ regen) and export produce.
check-patches:
	@for v in $(VERSIONS); do $(GO) run ./cmd/epp-build check --version $$v || exit 1; done

bench:
	$(GO) test -tags integration,e2e -run '^$$' -bench . -benchtime 3x -timeout 60m ./internal/bench ./internal/patchset ./internal/attest
	$(GO) test -tags integration -run '^$$' -bench BenchmarkCache -benchtime 1x -timeout 60m ./internal/pipeline

clean:
	rm -rf bin
