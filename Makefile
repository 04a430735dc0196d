# Policygen. `make run` serves the API locally; `make test` runs every test.
# SAM calls the build-<LogicalId> targets (BuildMethod: makefile) with
# ARTIFACTS_DIR set; tests call them the same way.

SHELL := /bin/bash
GO ?= go
# The functions' architecture (template.yaml: arm64). Set on the command
# line only (make build-X GOARCH=amd64): a GOARCH exported in the shell must
# not change what `sam build` builds. Not exported either: LAMBDA_BUILD
# passes it to go build itself, and go test/run must build for this machine.
GOARCH = arm64
unexport GOARCH
ARTIFACTS_DIR ?= .build/$(GOARCH)
ADDR ?= 127.0.0.1:8080
DATA_DIR ?= .data
TOOLS := $(CURDIR)/.tools

DYNAMODB_LOCAL_DIR := $(TOOLS)/dynamodb-local

# LogicalId -> functions/<dir>. Keep in step with template.yaml (a test checks).
FUNCTIONS := GeneratePolicyFunction:generate-policy \
             BulkGeneratePoliciesFunction:bulk-generate-policies \
             ListPoliciesFunction:list-policies \
             GetPolicyFunction:get-policy \
             DeletePolicyFunction:delete-policy \
             GetProfileFunction:get-profile \
             GetCatalogFunction:get-catalog \
             DashboardFunction:dashboard \
             FallbackFunction:fallback

# PGO is the CPU profile every shipped binary is built with (profile-guided
# optimization: `make pgo` records it again; DECISIONS.md 37).
PGO := $(CURDIR)/pgo/generate.pgo

# LAMBDA_BUILD is how every bootstrap is built. -R 0x200000 starts each of
# the binary's segments (code, read-only data, data) on a 2 MB boundary, so
# that a kernel whose page cache holds the file in 2 MB folios can map each
# whole 2 MB of it with one page-table entry instead of faulting it in 4 KB
# pages; the padding is zeros (about 4 MB on disk, 7 KB zipped; DECISIONS.md
# 45).
LAMBDA_BUILD = CGO_ENABLED=0 GOOS=linux GOARCH=$(GOARCH) $(GO) build -trimpath -pgo=$(PGO) -tags lambda.norpc -ldflags='-s -w -R $(SEGMENT_ALIGN)' -o $(ARTIFACTS_DIR)/bootstrap
SEGMENT_ALIGN := 0x200000

.PHONY: run test bench build lint fuzz fuzz-smoke mutate pgo dynamodb-local chromium sam-local-env generate clean

run:
	$(GO) run -pgo=$(PGO) ./cmd/policyd --addr $(ADDR) --store bolt:$(DATA_DIR)/policygen.db

# test: every test, with a timeout per package of 30 minutes rather than
# go test's 10: pkg/policy's matrix tests take 2-3 minutes on an idle
# 2 vCPU machine but have taken 12 on a loaded one (docs/TESTING.md).
test: dynamodb-local chromium
	$(GO) test -count=1 -timeout 30m ./...
	$(MAKE) --no-print-directory fuzz-smoke FUZZTIME=2000x
	$(MAKE) lint

# Native Go fuzz targets (package:target). Their seed corpora under
# testdata/fuzz run with every `go test`; `make test` also fuzzes each for
# 2,000 inputs (a second or three), `make fuzz` for FUZZTIME each (default
# 1m). go test -fuzz takes one target per run. The smoke run counts inputs
# rather than seconds: with a duration, Go before 1.27 can fail a target
# with a bare "context deadline exceeded" as the time runs out
# (golang/go#75804), which a count cannot hit.
FUZZ_TARGETS := ./pkg/policy:FuzzParseRequest \
                ./pkg/api:FuzzListQuery \
                ./pkg/api:FuzzGenerate \
                ./pkg/api:FuzzAppendJSONString \
                ./pkg/auth:FuzzParseAuthorization \
                ./pkg/auth:FuzzCheckFormat
FUZZTIME ?= 1m

fuzz fuzz-smoke:
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...
	$(GO) mod tidy -diff
	$(GO) tool actionlint .github/workflows/*.yml

# bench: every benchmark and a load run, then the performance targets of
# issues 8 and 9 beside the figures measured in this run (cmd/benchtargets
# prints the table docs/BENCHMARKS.md keeps).
bench: dynamodb-local
	$(GO) test -pgo=$(PGO) -run '^$$' -bench . -benchmem ./pkg/... ./functions/...
	$(GO) run -pgo=$(PGO) ./cmd/loadrun --duration 10s --requests 20000
	$(GO) run ./cmd/benchtargets

# pgo: records again the CPU profile that the functions, policyd and the
# benchmarks are built with: the generation benchmarks (the standard
# document in each format, the largest documents), the work that dominates
# a generate. Run it when generation changes much, and commit the file.
pgo:
	mkdir -p $(TOOLS)
	$(GO) test -pgo=off -run '^$$' -bench 'BenchmarkGenerateFormats|BenchmarkGenerateLargest' -benchtime 2s \
	  -o $(TOOLS)/pgo-policy.test -cpuprofile $(PGO) ./pkg/policy

# mutate: mutation testing with gremlins (a go.mod tool) on the packages whose
# tests guard security and data: every surviving mutant is a change the
# tests would not notice. Not part of `make test` (it runs the package's
# tests once per mutant: tens of minutes). Fails below MUTATE_THRESHOLD
# efficacy; docs/TESTING.md records the figures.
# ./pkg/store covers the tree below it: the contract, the deadline
# decorator, bolt and dynamo.
MUTATE_PKGS ?= ./pkg/auth ./pkg/api ./pkg/api/wire ./pkg/store
MUTATE_THRESHOLD ?= 85
mutate: dynamodb-local
	@for p in $(MUTATE_PKGS); do \
	  echo "== gremlins $$p"; \
	  $(GO) tool gremlins unleash --workers 1 --timeout-coefficient 4 --threshold-efficacy $(MUTATE_THRESHOLD) \
	    --exclude-files 'storetest/' --exclude-files 'dynamotest/' $$p || exit 1; \
	done

# test-lambda: only the deployment tests (template, make builds, binaries
# against the in-test Lambda Runtime API); `make test` runs them too.
.PHONY: test-lambda
test-lambda: dynamodb-local
	$(GO) test -count=1 ./functions/... ./pkg/lambdaenv/...

# build: every function for the target architecture, one folder each.
build:
	@for f in $(FUNCTIONS); do \
	  id=$${f%%:*}; \
	  $(MAKE) --no-print-directory build-$$id ARTIFACTS_DIR=.build/$(GOARCH)/$$id || exit 1; \
	done

build-GeneratePolicyFunction:
	$(LAMBDA_BUILD) ./functions/generate-policy
build-BulkGeneratePoliciesFunction:
	$(LAMBDA_BUILD) ./functions/bulk-generate-policies
build-ListPoliciesFunction:
	$(LAMBDA_BUILD) ./functions/list-policies
build-GetPolicyFunction:
	$(LAMBDA_BUILD) ./functions/get-policy
build-DeletePolicyFunction:
	$(LAMBDA_BUILD) ./functions/delete-policy
build-GetProfileFunction:
	$(LAMBDA_BUILD) ./functions/get-profile
build-GetCatalogFunction:
	$(LAMBDA_BUILD) ./functions/get-catalog
build-DashboardFunction:
	$(LAMBDA_BUILD) ./functions/dashboard
build-FallbackFunction:
	$(LAMBDA_BUILD) ./functions/fallback
# The cold-start baseline, not deployed (template.yaml has no such function):
# a hello-world aws-lambda-go binary built like the functions, against which
# BenchmarkInit (functions/) measures each function's init in the same run.
build-HelloWorldBaseline:
	$(LAMBDA_BUILD) ./functions/internal/helloworld

dynamodb-local:
	./scripts/dynamodb-local.sh install

# Debian's Chromium for the dashboard's browser tests, when none is installed.
chromium:
	./scripts/chromium.sh

# Regenerate pkg/client from openapi.yaml (oapi-codegen, a go.mod tool) and
# pkg/policy/countries_gen.go from CLDR (golang.org/x/text), and pkg/web/escaped
# from the dashboard's templates (html/template's escaper, pkg/web escape.go).
generate:
	$(GO) generate ./pkg/client ./pkg/policy ./pkg/web

# Prepare `sam local start-api --env-vars env.json` (docs/DEPLOY.md): DynamoDB
# Local, the table, a demo Agency key, env.json.
sam-local-env: dynamodb-local
	./scripts/sam-local-env.sh

clean:
	rm -rf .build .aws-sam
