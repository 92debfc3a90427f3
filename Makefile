# PassServer: `make run` serves locally, `make test` runs the whole suite, `make bench` measures.
# Every target installs the Debian packages it needs first, so a fresh Debian 12 machine with
# Swift installed needs nothing else.

SWIFT        ?= swift
SWIFT_FLAGS  ?= -Xswiftc -warnings-as-errors
BUILD_PACKAGES := pkg-config openssl libmicrohttpd-dev libpq-dev libsqlite3-dev libzip-dev zlib1g-dev libssl-dev libnghttp2-dev libcurl4-openssl-dev libqrencode-dev libvips-dev libzbar-dev
TEST_PACKAGES  := postgresql unzip docker-compose python3 python3-yaml python3-venv python3-aiosmtpd prometheus \
                  chromium chromium-driver python3-selenium zbar-tools librsvg2-bin libvips-tools
BENCH_PACKAGES := wrk nghttp2-client postgresql

.PHONY: all deps test-deps bench-deps build run test fuzz bench soak clean

all: build

deps:
	@scripts/install-packages.sh $(BUILD_PACKAGES)

test-deps: deps
	@scripts/install-packages.sh $(TEST_PACKAGES)

bench-deps: test-deps
	@scripts/install-packages.sh $(BENCH_PACKAGES)

build: deps
	$(SWIFT) build $(SWIFT_FLAGS)

# Serves on 127.0.0.1:8080 with the embedded SQLite store under ./.data/.
run: build
	$(SWIFT) run $(SWIFT_FLAGS) pass-server serve --development

# Builds with warnings as errors, starts a throwaway PostgreSQL cluster and runs every test; the
# issues a run recorded are repeated just before the runner's closing summary.
test: test-deps
	$(SWIFT) build --build-tests $(SWIFT_FLAGS)
	SWIFT=$(SWIFT) scripts/with-postgres.sh scripts/run-tests.sh --skip-build $(SWIFT_FLAGS)

# Checks the running server against openapi.yaml with schemathesis (pinned, from PyPI, in a
# virtualenv under .build/): every check, positive and negative cases, stateful link sequences, in
# rounds of successive seeds until FUZZ_CASES (30000) cases ran; then the dashboard's forms and pages,
# signed in (FUZZ_DASHBOARD_CASES, 5000). SQLite by default; FUZZ_DATABASE_URL=postgres://... for
# PostgreSQL; PASS_SERVER_BINARY=.build/release/pass-server for a release build. `make test` runs a
# bounded version (APIConformanceTests).
fuzz: test-deps
	$(SWIFT) build $(SWIFT_FLAGS)
	/usr/bin/python3 scripts/fuzz.py

# bench/*.sh drive the release pass-server, fake-apns and pass-server-bench (the benchmark drivers,
# kept out of the server's executable and libraries).
bench: bench-deps
	$(SWIFT) build -c release
	scripts/with-postgres.sh bench/run.sh

# Ten minutes of mixed traffic against two instances while PostgreSQL restarts, APNs goes away and an
# instance is killed (bench/soak.sh; docs/reliability.md). Not part of `make test`.
# SOAK_DURATION=60 make soak is a one-minute smoke run.
soak: test-deps
	@scripts/install-packages.sh curl
	$(SWIFT) build -c release
	scripts/with-postgres.sh bench/soak.sh

clean:
	rm -rf .build
