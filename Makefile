# proflab build, test and lint entry points.
GO       ?= go
BIN      ?= bin
PLUGINS  := $(wildcard halplugins/*/cmd/proflab-hal-*)
# VERSION is what `proflab --version` and result.json report.
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

.PHONY: build test check quickstart bench clean proto race scale portable

## build: proflab and every shipped HAL plugin into ./bin
build:
	@mkdir -p $(BIN)
	$(GO) build -ldflags "-X github.com/proflab/proflab/core/version.Stamp=$(VERSION)" -o $(BIN)/proflab ./cmd/proflab
	@for p in $(PLUGINS); do echo "$(GO) build -o $(BIN)/$$(basename $$p) ./$$p"; $(GO) build -o $(BIN)/$$(basename $$p) ./$$p || exit 1; done

## test: the whole suite (builds first; plugin tests use ./bin)
test: build
	PROFLAB_PLUGIN_PATH=$(CURDIR)/$(BIN) $(GO) test -count=1 ./...
	$(BIN)/proflab test scenarios/ examples/first-scenario.lua examples/workload-file.lua examples/readme.lua

## race: the race detector over the packages that run work concurrently
## (workers sharing a plugin host, sweep workers, concurrent HAL calls, the plugin
## protocol, a simulator programmed while HALs open, the Lua interpreter's watchdog
## and shared compiled chunks (core/luavm) and the plugin watchers of the Lua
## runtime (core/luart), the commands' signal handling). It needs cgo, hence
## a C compiler (.ci/run installs one if missing).
RACE_PKGS := ./core/scenario/ ./core/halhost/ ./core/lab/ ./core/sim/ ./core/output/ ./core/luart/ ./core/luavm/ ./cmd/proflab/ \
	./halplugins/hal/ ./halplugins/halrpc/ ./scenarios/ ./core/sweep/... ./core/workload/...
race: build
	PROFLAB_PLUGIN_PATH=$(CURDIR)/$(BIN) CGO_ENABLED=1 $(GO) test -race -count=1 $(RACE_PKGS)

## check: gofmt, go vet and staticcheck
check:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	@command -v staticcheck >/dev/null 2>&1 || $(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" staticcheck ./...

## portable: results independent of the architecture: no fused multiply-add
## where results are computed, and the truth golden as an arm64 binary under
## qemu-aarch64-static when installed (.ci/portable)
portable:
	.ci/portable

## quickstart: build and run the first scenario
quickstart: build
	$(BIN)/proflab run examples/first-scenario.lua

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./kernel/...

clean:
	rm -rf $(BIN)

## scale: wall time, peak memory and trace size of 1, 10 and 60 simulated
## seconds with and without the kernel logger and --out (issue 9)
scale: build
	BIN=$(BIN) .ci/scale

## proto: regenerate the HAL plugin protocol's Go code (checked in) from
## halplugins/halrpc/proto/hal.proto. Needs protoc from Debian's
## protobuf-compiler package (apt-get install -y protobuf-compiler); the
## Go generators are pinned and installed into $(BIN)/.tools.
PROTOC_GEN_GO      := google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
PROTOC_GEN_GO_GRPC := google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.5.1
proto:
	@command -v protoc >/dev/null 2>&1 || { echo "protoc not found: apt-get install -y protobuf-compiler"; exit 1; }
	GOBIN=$(CURDIR)/$(BIN)/.tools $(GO) install $(PROTOC_GEN_GO)
	GOBIN=$(CURDIR)/$(BIN)/.tools $(GO) install $(PROTOC_GEN_GO_GRPC)
	PATH="$(CURDIR)/$(BIN)/.tools:$$PATH" protoc --go_out=. --go_opt=paths=source_relative \
		--go-grpc_out=. --go-grpc_opt=paths=source_relative halplugins/halrpc/proto/hal.proto
