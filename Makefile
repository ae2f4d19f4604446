# podsim — every target works on a fresh machine with Go installed.
GO ?= go
PKGS := ./...

.PHONY: all test race bench lint deps cover fmt

all: lint test

## test: vet, the import-direction check, and every test.
test: deps
	$(GO) vet $(PKGS)
	$(GO) test $(PKGS)

## race: every test under the race detector.
race:
	$(GO) test -race $(PKGS)

## bench: benchmarks (scheduler decision vs raw handoff, fake clock).
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## lint: gofmt, go vet, and staticcheck when installed.
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@if command -v staticcheck >/dev/null 2>&1; then staticcheck $(PKGS); else echo "staticcheck not installed; skipped"; fi

## deps: fail on an import edge DESIGN.md forbids.
deps:
	$(GO) test -count=1 -run 'TestModuleImportDirections|TestCheckCatchesForbiddenEdges' ./internal/depcheck

## cover: statement coverage per package.
cover:
	$(GO) test -cover $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')
