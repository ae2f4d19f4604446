# podsim — every target works on a fresh machine with Go installed.
GO ?= go
PKGS := ./...
STATICCHECK_VERSION := v0.8.2

.PHONY: all test race bench lint deps cover fmt tools sweep deep-sweep gate baseline real real-sweep real-gate real-next go-det real-mutants real-mutation realvk realvk-sweep realvk-gate realvk-mutants realvk-mutation realvk-det realvk-guided-det check-strategy mutation guided-measure calibrate

all: lint test

## test: vet, the import-direction check, and every test.
test: deps
	$(GO) vet $(PKGS)
	$(GO) test $(PKGS)

## race: every test under the race detector (-short: the long seed sweeps run
## in make test; -race looks for data races, which the short sweeps exercise too;
## a test whose work -race cannot see into, one goroutine's or a child process's,
## skips under -short). -vet=off: go test would vet every package again for the
## race build; make lint and make test have vetted the same sources.
race:
	$(GO) test -race -short -vet=off $(PKGS)

## bench: benchmarks (scheduler decision vs raw handoff, fake clock).
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## calibrate: issue 19's seeds-per-CPU-second goals read at the before figures' speed (the
## issue's tree run alternately with this one; scripts/calibrate). Not part of CI.
calibrate:
	scripts/calibrate $(or $(FAMILIES),early-kill swarm)

## tools: install the pinned staticcheck (from the Go module proxy).
tools:
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## lint: gofmt, go vet, and staticcheck when installed (make tools).
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@sc=$$(command -v staticcheck || echo "$$($(GO) env GOPATH)/bin/staticcheck"); \
	if [ -x "$$sc" ]; then $$sc $(PKGS); else echo "staticcheck not installed (make tools); skipped"; fi

## deps: fail on an import edge the package table (docs/design.md) forbids, or an oracle
## reading what a caller cannot observe (docs/design.md, "Observable-only judging").
deps:
	$(GO) test -count=1 -run 'TestModuleImportDirections|TestCheckCatchesForbiddenEdges|TestOraclesReadOnlyWhatIsObservable|TestCheckObservableCatchesPrivateReads' ./internal/depcheck

## sweep: the long correct-code sweeps, not part of CI: 10,000 seeds of every family with every
## check (simrun's full sweep), then run/'s no-false-alarm sweeps at their full budgets (-long;
## make test runs them smaller, run/budget_test.go).
sweep:
	$(GO) run ./cmd/simrun run --seeds 10000
	$(GO) test -count=1 -timeout 0 ./run -args -long

## deep-sweep: the rarest plan shapes live in the swarms (a false alarm at 1 in 10,000 seeds hid
## there until session 9): DEEP_SEEDS (default 100,000) seeds of swarm and swarm-restart with every
## check, about 2 minutes on 2 idle cores; not part of CI.
DEEP_SEEDS ?= 100000
deep-sweep:
	$(GO) run ./cmd/simrun run --scenario swarm --seeds $(DEEP_SEEDS) --no-timing
	$(GO) run ./cmd/simrun run --scenario swarm-restart --seeds $(DEEP_SEEDS) --no-timing

## gate: every catalogued bug (docs/bugs.md) re-introduced and caught, full budget
## (the CI-sized gate is TestGateCatchesEveryMutant, part of make test).
gate:
	$(GO) run ./cmd/simrun gate --seeds 1000 --start-seeds 5 --correct-seeds 1000

## baseline: podsim side by side with the upstream way of testing (real
## goroutines and locks, random sleeps, -race), the same wall budget per
## mutant and side (docs/regression-gate.md). Not part of CI.
BASELINE_BUDGET ?= 10s
BASELINE_FILE ?= /tmp/podsim-baseline-sim.json
baseline:
	PODSIM_BASELINE=$(BASELINE_BUDGET) PODSIM_BASELINE_SIDE=sim PODSIM_BASELINE_FILE=$(BASELINE_FILE) \
		$(GO) test -run TestBaselineSideBySide -count=1 -timeout 0 ./baseline
	PODSIM_BASELINE=$(BASELINE_BUDGET) PODSIM_BASELINE_SIDE=real PODSIM_BASELINE_FILE=$(BASELINE_FILE) \
		$(GO) test -race -run TestBaselineSideBySide -count=1 -v -timeout 0 ./baseline

## guided-measure: the strategies side by side (docs/guided.md): per mutant, failing runs and
## seeds to detection under random, pct and guided; per family, distinct coverage tuples at
## 100 and 1,000 runs. Not part of CI (about 30 min on an idle 2-core machine).
## PODSIM_GUIDED_STRATEGIES=random,guided,rerun adds a corpus grown on the correct code
## and run again first (PODSIM_GUIDED_GROW runs, default 20,000; PODSIM_GUIDED_CORPORA keeps it).
guided-measure:
	PODSIM_GUIDED_MEASURE=1 $(GO) test -count=1 -v -timeout 0 -run 'TestMeasureDetection|TestMeasureCoverage' ./guided

## cover: statement coverage per package.
cover:
	$(GO) test -cover $(PKGS)

fmt:
	gofmt -w $$(git ls-files '*.go')

## real: the scenario families, regression scripts and determinism test on
## the real kubelet pod workers (nested module realkubelet/, pinned to
## k8s.io/kubernetes v1.36.3; the first build compiles the kubelet, see
## docs/real-kubelet.md). make test never builds it.
## KUBE_ROOT=DIR builds against that kubernetes tree instead (a go.work
## generated in realrun's scratch slot, never in DIR; docs/gating-a-kubelet-change.md);
## KUBE_ROOT=v1.37.2 (any release v1.MINOR.PATCH) against that release,
## fetched once from the Go module proxy as a checkout; a tree whose APIs
## take another shape (v1.38's status cache) is built with the -tags
## realrun workfile --tags prints.
tree_arg = $(if $(shell echo '$(1)' | grep -xE 'v[0-9]+\.[0-9]+\.[0-9]+(-(alpha|beta|rc)\.[0-9]+)?'),$(1),$(abspath $(1)))
real:
ifdef KUBE_ROOT
	cd realkubelet && GOWORK=$$($(GO) run ./cmd/realrun workfile --kubernetes $(call tree_arg,$(KUBE_ROOT))) && \
		TAGS=$$($(GO) run ./cmd/realrun workfile --tags --kubernetes $(call tree_arg,$(KUBE_ROOT))) && \
		export GOWORK && $(GO) vet $$TAGS ./... && $(GO) test $$TAGS -count=1 ./...
else
	cd realkubelet && $(GO) vet ./... && $(GO) test -count=1 ./...
endif

## real-gate: the differential gate of the tree KUBE_ROOT against the pinned
## release (GATE_SEEDS per family and side, default 200, both wake-up modes,
## and the deep tiers GATE_DEEP, default hold swarm-restart to seed 10,000:
## about 70 s more a side; GATE_DEEP= for none), and with GATE_GUIDED=N the
## guided tier (N runs per family and mode of the guided loop on the tree,
## from the corpora of GATE_CORPUS if set); artifacts in REPORT. Exit 1 on a
## regression.
REPORT ?= realgate-report
GATE_DEEP ?= swarm-restart/hold:10000
real-gate:
	$(if $(KUBE_ROOT),,$(error real-gate needs KUBE_ROOT=DIR, your kubernetes checkout, or a release v1.MINOR.PATCH))
	SEEDS=$(or $(GATE_SEEDS),200) DEEP='$(GATE_DEEP)' GUIDED=$(or $(GATE_GUIDED),0) CORPUS='$(GATE_CORPUS)' scripts/realgate $(KUBE_ROOT) $(REPORT)

## go-det: does another Go release change a byte of what simrun prints?
## (GO_NEXT, default go1.27.3: random, pct and guided sweeps and a guided
## corpus under both Go releases, compared; scripts/godet). Not in make
## test: it fetches that toolchain.
GO_NEXT ?= go1.27.3
go-det:
	scripts/godet $(GO_NEXT) godet-report

## real-next: does the newest kubernetes the Go module proxy serves (a
## pre-release too; PRE=0 for releases only) still fit the adapter? It is
## gated against the pin for 20 seeds (scripts/realnext; exit 2: it does not
## build, and the report's gate.log says what to change). For podsim's own
## CI, on a schedule.
real-next:
	scripts/realnext realnext-report

## real-mutants: the catalogue's patches of the real pod_workers.go
## (realkubelet/testdata/mutants), each gated against the pinned release.
MUTANT_SEEDS ?= 100
real-mutants:
	cd realkubelet && $(GO) run ./cmd/realrun gate --mutants --seeds $(MUTANT_SEEDS)

## real-mutation: operator mutation of the real pod_workers.go (docs/mutation.md, "The real
## kubelet"): one schema build of the pinned tree in realrun's scratch slot "mutation", then
## every mutant a run of it over MUTATION_SEEDS seeds of every family in both wake-up modes,
## stopped at its first new finding; killed / survived / build-refused, the score, the seed and
## family of every kill. Results in REAL_MUTATION_OUT. Not part of CI. REAL_MUTATION_FILES
## names other files of the tree instead (comma-separated), e.g. the components the runs use:
## REAL_MUTATION_FILES=pkg/kubelet/status/status_manager.go,pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go
MUTATION_SEEDS ?= 20
REAL_MUTATION_OUT ?= out/real-mutation
REAL_MUTATION_FILES ?=
real-mutation:
	cd realkubelet && $(GO) run ./cmd/realrun mutation --seeds $(MUTATION_SEEDS) --out $(abspath $(REAL_MUTATION_OUT)) $(if $(REAL_MUTATION_FILES),--files $(REAL_MUTATION_FILES))

## real-sweep: SEEDS seeds of every family on the real kubelet (default
## 1,000 × 17 families = 17,000 seeds per mode, 2 min 32 s for both on 2 idle cores:
## 800 never reached swarm seed 859, where a harness mistake hid), once as is
## and once with the workers' wake-ups held (HOLD, realkubelet/wakes.go); fails on any unexplained finding.
## REAL selects the real kubelet components (status,shutdown,eviction,restart;
## all or none; realkubelet/components.go). STRATEGY=guided makes SEEDS runs
## per family of the coverage-guided corpus loop instead (loop seed 1;
## docs/guided.md, "The real targets"); CORPUS=DIR keeps its corpora there
## (DIR/plain, DIR/hold) so the next sweep resumes; RERUN=1 runs the kept
## entries again first (as simrun --rerun-corpus: a corpus grown on the
## last commit, run on a change).
SEEDS ?= 1000
REAL ?= all
STRATEGY ?= random
CORPUS ?=
RERUN ?=
SWEEP_STRATEGY = -sweep.strategy $(STRATEGY) $(if $(CORPUS),-sweep.corpus $(abspath $(CORPUS))) $(if $(RERUN),-sweep.rerun)
check-strategy:
	@$(if $(filter random guided,$(STRATEGY)),,$(error STRATEGY=$(STRATEGY): want random or guided))
	@$(if $(and $(CORPUS),$(filter random,$(STRATEGY))),$(error CORPUS needs STRATEGY=guided))
	@$(if $(and $(RERUN),$(if $(CORPUS),,x)),$(error RERUN needs CORPUS=DIR (the corpora to run again)))
real-sweep: check-strategy
	cd realkubelet && $(GO) test -count=1 -timeout 60m -run TestSweep -v . -args -sweep $(SEEDS) -sweep.real $(REAL) $(SWEEP_STRATEGY)
	cd realkubelet && $(GO) test -count=1 -timeout 60m -run TestSweep -v . -args -sweep $(SEEDS) -sweep.hold -sweep.real $(REAL) $(SWEEP_STRATEGY)

## realvk: the smoke, determinism and script tests on the real
## virtual-kubelet PodController (nested module realvk/, pinned to
## virtual-kubelet v1.14.1 with k8s.io/* replaced by v0.36.3, see
## docs/real-vk.md). make test never builds it. VK_ROOT=DIR runs them against that
## virtual-kubelet tree instead (a go.work in realrun's scratch slot, never in DIR);
## VK_ROOT=vMAJOR.MINOR.PATCH against that release (the module cache's copy).
realvk:
ifdef VK_ROOT
	cd realvk && GOWORK=$$(cd ../realkubelet && $(GO) run ./cmd/realrun workfile --virtual-kubelet $(call tree_arg,$(VK_ROOT))) && \
		export GOWORK && $(GO) vet ./... && $(GO) test -count=1 ./...
else
	cd realvk && $(GO) vet ./... && $(GO) test -count=1 ./...
endif

## realvk-sweep: SEEDS seeds of every VK family on the real controller
## (plan.VKFamilies, judged by oracle/vk); prints findings per class and
## seeds/s; fails on any unexplained finding. STRATEGY=guided, CORPUS=DIR
## and RERUN=1 as for real-sweep.
realvk-sweep: check-strategy
	cd realvk && $(GO) test -count=1 -timeout 120m -run TestSweep -v . -args -sweep $(SEEDS) $(SWEEP_STRATEGY)

## realvk-gate: the differential gate of the virtual-kubelet tree VK_ROOT (your checkout or
## branch) against the version realvk/go.mod pins (VK_BASE=DIR for another tree): GATE_SEEDS
## per VK family and side (default 1,000; about 30 s a side), and with GATE_GUIDED=N the
## guided tier (from the corpora of GATE_CORPUS if set, grown by realrun run --vk --strategy
## guided --corpus DIR). scripts/realgate: report (gate.txt, gate.json, gate.log), shrunk
## scripts and replay commands in VK_REPORT. Exit 1 on a regression (docs/real-vk.md, "Gating a
## virtual-kubelet change").
VK_REPORT ?= realvk-gate-report
realvk-gate:
	$(if $(VK_ROOT),,$(error realvk-gate needs VK_ROOT=DIR, your virtual-kubelet checkout))
	SEEDS=$(or $(GATE_SEEDS),1000) BASE='$(if $(VK_BASE),$(abspath $(VK_BASE)),v1.14.1)' GUIDED=$(or $(GATE_GUIDED),0) \
		CORPUS='$(if $(GATE_CORPUS),$(abspath $(GATE_CORPUS)))' scripts/realgate $(abspath $(VK_ROOT)) $(VK_REPORT)

## realvk-mutants: the VK catalogue's patches of the real controller (realvk/testdata/mutants:
## V1-V6 and V8 of docs/vk.md re-introduced into the pinned release), each gated against the pin
## (MUTANT_SEEDS per VK family, default 100). Exit 1 if one is not caught.
realvk-mutants:
	cd realkubelet && $(GO) run ./cmd/realrun gate --vk --mutants --seeds $(MUTANT_SEEDS)

## realvk-mutation: operator mutation of the real virtual-kubelet pod controller (docs/mutation.md,
## "The virtual-kubelet pod controller"): node/pod.go and node/podcontroller.go of the module
## realvk/go.mod pins, one schema build, every mutant a run of it over MUTATION_SEEDS seeds of
## every VK family, stopped at its first new finding. Results in REALVK_MUTATION_OUT. Not part of CI.
## REALVK_MUTATION_FILES names other files of the module instead, e.g. its work queue:
## REALVK_MUTATION_FILES=internal/queue/queue.go
REALVK_MUTATION_OUT ?= out/realvk-mutation
REALVK_MUTATION_FILES ?=
realvk-mutation:
	cd realkubelet && $(GO) run ./cmd/realrun mutation --vk --seeds $(MUTATION_SEEDS) --out $(abspath $(REALVK_MUTATION_OUT)) $(if $(REALVK_MUTATION_FILES),--files $(REALVK_MUTATION_FILES))

## realvk-det: DET_SEEDS seeds (default 1,000) spread over the VK families,
## each run twice and replayed from its script at GOMAXPROCS 1, 2 and 4;
## the per-seed trace hashes of the three must be identical.
DET_SEEDS ?= 1000
realvk-det:
	cd realvk && for p in 1 2 4; do \
		GOMAXPROCS=$$p $(GO) test -count=1 -timeout 120m -run 'TestSameSeedSameTrace$$' -v . -args -det $(DET_SEEDS) \
		| grep -E '^ +determinism_test.go:[0-9]+: vk-' | sed 's/^ *determinism_test.go:[0-9]*: //' > /tmp/realvk-det.$$p || exit 1; \
		echo "GOMAXPROCS=$$p: $$(wc -l < /tmp/realvk-det.$$p) seeds, $$(sha256sum < /tmp/realvk-det.$$p | cut -c1-16)"; \
	done; cmp /tmp/realvk-det.1 /tmp/realvk-det.2 && cmp /tmp/realvk-det.1 /tmp/realvk-det.4 && echo "realvk-det: identical at GOMAXPROCS 1, 2, 4"

## realvk-guided-det: DET_RUNS guided vk-swarm runs (default 3,000) grown
## into a fresh corpus at GOMAXPROCS 1 and at 2; the two corpora must be
## byte-identical. The loop keeps and mutates the runs that reach rare
## states, where a race hides from seed-by-seed checks (docs/real-vk.md,
## the fourth fault, met only this way).
DET_RUNS ?= 3000
realvk-guided-det:
	cd realvk && rm -rf /tmp/realvk-gdet.1 /tmp/realvk-gdet.2 && $(GO) test -c -o /tmp/realvk-gdet.test . && for p in 1 2; do \
		GOMAXPROCS=$$p /tmp/realvk-gdet.test -test.run '^TestSweep$$' -test.timeout 0 -sweep $(DET_RUNS) -sweep.strategy guided \
			-sweep.start 7000000 -sweep.family vk-swarm -sweep.corpus /tmp/realvk-gdet.$$p > /dev/null || exit 1; \
		echo "GOMAXPROCS=$$p: corpus $$(sha256sum < /tmp/realvk-gdet.$$p/vk-swarm.corpus | cut -c1-16)"; \
	done; cmp /tmp/realvk-gdet.1/vk-swarm.corpus /tmp/realvk-gdet.2/vk-swarm.corpus && echo "realvk-guided-det: identical at GOMAXPROCS 1, 2"

## mutation: the mutation score of workers/ and of the simulated kubelet's
## actors (world/), internal invariants off (docs/mutation.md). Prints the
## score by package and operator and the survivors; writes
## $(MUTATION_OUT)/mutation.{json,txt} and hard-mutants.txt. Not part of CI.
## MUTATION_FLAGS e.g. "-sample 100 -seed 1" (a seeded sample per package),
## "-deep 600" (seeds-to-detection of the survivors), "-only workers/loop.go".
MUTATION_OUT ?= out
MUTATION_FLAGS ?=
mutation:
	$(GO) run ./internal/mutation/mutate -out $(MUTATION_OUT) $(MUTATION_FLAGS)
