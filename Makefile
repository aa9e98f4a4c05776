# unoplay: the two README commands, plus proto generation, lint and bench.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.installed

.PHONY: install test bench play clean proto lint compiled test-compiled load-run

$(STAMP): pyproject.toml
	@echo "Installing unoplay and its extras into $(VENV) (once; a minute or two)..."
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e '.[dev,bench,rl,plot,openspiel]'
	$(PIP) install --quiet -e '.[cluster]' \
		|| echo "NOTICE: the cluster extra (Ray) did not install: uno match --ray and its test are skipped"
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install the project with its test, bench, rl, plot, openspiel and cluster (Ray) extras

# Both halves run whatever the first gives; `make test` fails at the end if either failed.
test: $(STAMP) node-bot go-bot cpp-bot java-bot  ## run the whole test suite, then the game's tests on the compiled build
	@suite=0; compiled=0; \
	$(PY) -m pytest || suite=$$?; \
	if $(PY) -c "$$C_TOOLCHAIN"; then \
		$(MAKE) test-compiled || compiled=$$?; \
	else \
		echo "NOTICE: no C compiler or no Python.h for $$($(PY) -c 'import sys; print(sys.executable)'):" \
			"the compiled engine is not built nor tested (apt-get install gcc python3-dev)"; \
	fi; \
	if [ $$suite -ne 0 ] || [ $$compiled -ne 0 ]; then \
		echo "make test: FAILED (pytest: exit $$suite; the compiled engine's tests: exit $$compiled)"; \
		exit 1; \
	fi

RUNS ?= 3
load-run: $(STAMP)  ## the suite RUNS times beside two CPU hogs; lists every test that failed once
	$(PY) tests/load_run.py --runs $(RUNS)

# The compiled build (server/_build/backend.py: Cython, from the same .py files
# and their .pxd) in a venv of its own, installed from a wheel (never in place).
# Without a C compiler it installs pure Python, and test-compiled then fails
# on purpose (UNOPLAY_EXPECT_COMPILED); `make test` checks for the toolchain
# first (C_TOOLCHAIN: a C compiler on PATH and the interpreter's Python.h) and
# prints a NOTICE instead when it is missing. .ci/run installs gcc and python3-dev.
define C_TOOLCHAIN
import os, shutil, sys, sysconfig
cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
header = os.path.join(sysconfig.get_paths()["include"], "Python.h")
sys.exit(0 if shutil.which(cc) and os.path.exists(header) else 1)
endef
export C_TOOLCHAIN
VENV_C   ?= .venv-compiled
STAMP_C  := $(VENV_C)/.installed
# (a copy, not an editable install: every source of the package, or its
# `uno bench` runs the code of the last build)
COMPILED_SOURCES := pyproject.toml server/_build/backend.py \
	$(shell find proto server client -name '*.py' -o -name '*.pxd' -o -name '*.proto')

$(STAMP_C): $(COMPILED_SOURCES)
	[ -x $(VENV_C)/bin/python ] || $(PYTHON) -m venv $(VENV_C)
	$(VENV_C)/bin/pip install --quiet --upgrade pip
	$(VENV_C)/bin/pip install --quiet '.[dev,bench,rl]'
	touch $(STAMP_C)

compiled: $(STAMP_C)  ## install the compiled engine into .venv-compiled (then: .venv-compiled/bin/uno bench)

test-compiled: $(STAMP_C)  ## run the game's tests (tests/game) on the compiled build
	UNOPLAY_EXPECT_COMPILED=1 $(VENV_C)/bin/python -m pytest tests/game -p no:cacheprovider

bench: $(STAMP)  ## engine benchmark (rounds/s, actions/s, ratio to RLCard)
	$(VENV)/bin/uno bench

play: $(STAMP)  ## play in the terminal: an embedded server, you and three bots
	@echo "Starting the game..."
	$(VENV)/bin/uno play

clean:
	rm -rf $(VENV) $(VENV_C) .pytest_cache .hypothesis build client/go_bot/build client/cpp_bot/build client/java_bot/build

# mypy cannot follow setuptools' package-dir mapping (unoplay.game is server/game,
# unoplay.server is server, ...): it checks a tree of links laid out as installed.
TYPECHECK := build/typecheck
lint: $(STAMP)  ## ruff (lint, format), the import graph (no circle) and mypy: strict for unoplay.game and unoplay.server
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) tests/import_graph.py
	rm -rf $(TYPECHECK) && mkdir -p $(TYPECHECK)/unoplay
	for f in proto/unoplay/*.py proto/unoplay/v1; do ln -s ../../../$$f $(TYPECHECK)/unoplay/$$(basename $$f); done
	ln -s ../../../server/game $(TYPECHECK)/unoplay/game
	ln -s ../../../server $(TYPECHECK)/unoplay/server
	ln -s ../../../client $(TYPECHECK)/unoplay/client
	MYPYPATH=$(TYPECHECK) $(VENV)/bin/mypy $(TYPECHECK)/unoplay

proto: $(STAMP)  ## regenerate the committed Python code from proto/ (a test fails when it is stale)
	cd proto && ../$(PY) -m grpc_tools.protoc -I. --python_out=. --pyi_out=. --grpc_python_out=. unoplay/v1/*.proto

# The Node.js bot (client/node_bot): its npm packages, from the committed lock
# file, when node is on the machine; its tests are skipped (with a notice) without.
NODE_BOT   := client/node_bot
NODE_STAMP := $(NODE_BOT)/node_modules/.unoplay-installed
.PHONY: node-bot
node-bot:  ## install the Node.js bot's packages (npm ci) when node and npm are available
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then \
		echo "NOTICE: node/npm not found: the Node.js bot ($(NODE_BOT)) is not installed and its tests will be skipped"; \
	elif [ -f $(NODE_STAMP) ] && [ $(NODE_STAMP) -nt $(NODE_BOT)/package-lock.json ] \
			&& [ $(NODE_STAMP) -nt $(NODE_BOT)/package.json ]; then \
		echo "$(NODE_BOT): node packages up to date"; \
	else \
		npm ci --prefix $(NODE_BOT) --ignore-scripts --no-audit --no-fund && touch $(NODE_STAMP); \
	fi

# The Go bot (client/go_bot), built offline from Debian's Go packages: protoc
# writes the Go code of proto/ into a GOPATH under its build/ (git-ignored),
# and go builds in GOPATH mode against /usr/share/gocode (no module
# downloads). Without the tools it prints a NOTICE and its tests are skipped.
GO_BOT      := client/go_bot
GO_BUILD    := $(GO_BOT)/build
GO_BIN      := $(GO_BUILD)/uno-go-bot
GO_PB       := unoplay/unoplaypb
GO_GOCODE   ?= /usr/share/gocode
GO_PROTOS   := game lobby_service game_service arena_service
GO_MAPPINGS := $(foreach p,$(GO_PROTOS),M$(p:%=unoplay/v1/%.proto)=$(GO_PB))
GO_ENV      := GO111MODULE=off GOFLAGS= GOPROXY=off GOPATH=$(CURDIR)/$(GO_BUILD)/gopath:$(GO_GOCODE) \
               $(if $(HOME),,GOCACHE=$(CURDIR)/$(GO_BUILD)/gocache)
.PHONY: go-bot
go-bot:  ## build the Go bot (client/go_bot/build/uno-go-bot) when go, protoc and Debian's Go gRPC packages are there
	@missing=""; \
	for tool in go protoc protoc-gen-go protoc-gen-go-grpc; do \
		command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; \
	done; \
	[ -d $(GO_GOCODE)/src/google.golang.org/grpc ] || missing="$$missing golang-google-grpc-dev"; \
	[ -f $(GO_GOCODE)/src/github.com/golang/protobuf/proto/registry.go ] \
		|| missing="$$missing golang-github-golang-protobuf-1-5-dev"; \
	if [ -n "$$missing" ]; then \
		echo "NOTICE: missing:$$missing: the Go bot ($(GO_BOT)) is not built and its tests will be skipped" \
			"(apt-get install golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc" \
			"golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev)"; \
	else \
		set -e; \
		rm -rf $(GO_BUILD)/gopath/src/$(GO_PB); \
		mkdir -p $(GO_BUILD)/gopath/src; \
		protoc -I proto --go_out=$(GO_BUILD)/gopath/src --go-grpc_out=$(GO_BUILD)/gopath/src \
			$(foreach m,$(GO_MAPPINGS),--go_opt=$(m) --go-grpc_opt=$(m)) \
			$(GO_PROTOS:%=proto/unoplay/v1/%.proto); \
		cd $(GO_BOT) && $(GO_ENV) go build -o build/uno-go-bot . ; \
		echo "$(GO_BIN): built"; \
	fi

# The C++ bot (client/cpp_bot), built offline from Debian's packages: CMake
# runs protoc with grpc_cpp_plugin on proto/ into its build/ (git-ignored) and
# links gRPC++ and OpenSSL's libcrypto. Without the tools it prints a NOTICE
# and its tests are skipped (tests/client/test_cpp_bot.py builds it too).
CPP_BOT      := client/cpp_bot
CPP_BUILD    := $(CPP_BOT)/build
CPP_PACKAGES := cmake g++ libgrpc++-dev protobuf-compiler-grpc libssl-dev
.PHONY: cpp-bot
cpp-bot:  ## build the C++ bot (client/cpp_bot/build/uno-cpp-bot) when cmake, g++, gRPC++ and OpenSSL are there
	@missing=""; \
	for tool in cmake c++ protoc grpc_cpp_plugin; do \
		command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; \
	done; \
	[ -f /usr/include/grpcpp/grpcpp.h ] || missing="$$missing libgrpc++-dev"; \
	[ -f /usr/include/openssl/evp.h ] || missing="$$missing libssl-dev"; \
	if [ -n "$$missing" ]; then \
		echo "NOTICE: missing:$$missing: the C++ bot ($(CPP_BOT)) is not built and its tests will be skipped" \
			"(apt-get install $(CPP_PACKAGES))"; \
	else \
		set -e; \
		cmake -S $(CPP_BOT) -B $(CPP_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null; \
		cmake --build $(CPP_BUILD) -j 2; \
		echo "$(CPP_BUILD)/uno-cpp-bot: built"; \
	fi

# The Java bot (client/java_bot), built offline with javac against Debian's
# jars in /usr/share/java (no Maven, no downloads): protoc with Debian's
# grpc_java_plugin writes the Java code of proto/ into its build/ (git-ignored),
# javac compiles it with the bot's own sources into a jar, and two launchers
# run it: build/uno-java-bot (the bot) and build/uno-java-tools (selftest,
# shake, deals: for tests). Without the tools or jars it prints a NOTICE and
# its tests are skipped.
JAVA_BOT      := client/java_bot
JAVA_BUILD    := $(JAVA_BOT)/build
JAVA_SHARE    ?= /usr/share/java
JAVA_PACKAGES := openjdk-17-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin libgrpc-java \
                 libprotobuf-java libguava-java libnetty-java libperfmark-java libgeronimo-annotation-1.3-spec-java
# Run time: gRPC (its Netty transport, with Netty and PerfMark, which
# libgrpc-java does not pull in), protobuf and Guava.
JAVA_JARS     := grpc-api grpc-context grpc-core grpc-netty grpc-protobuf grpc-protobuf-lite grpc-stub \
                 protobuf guava perfmark-api netty-buffer netty-codec netty-codec-http netty-codec-http2 \
                 netty-codec-socks netty-common netty-handler netty-handler-proxy netty-resolver netty-transport
JAVA_CP       := $(subst $(eval) ,:,$(JAVA_JARS:%=$(JAVA_SHARE)/%.jar))
# Compile time too: the generated stubs' @javax.annotation.Generated (gone from the JDK since Java 9).
JAVA_CP_BUILD := $(JAVA_CP):$(JAVA_SHARE)/geronimo-annotation-1.3-spec.jar
JAVA_OPTS     := -XX:+UseSerialGC -XX:TieredStopAtLevel=1
.PHONY: java-bot
java-bot:  ## build the Java bot (client/java_bot/build/uno-java-bot) when javac, protoc, grpc_java_plugin and Debian's gRPC jars are there
	@missing=""; \
	for tool in java javac jar protoc grpc_java_plugin; do \
		command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; \
	done; \
	for jar in $(JAVA_JARS) geronimo-annotation-1.3-spec; do \
		[ -f $(JAVA_SHARE)/$$jar.jar ] || missing="$$missing $$jar.jar"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "NOTICE: missing:$$missing: the Java bot ($(JAVA_BOT)) is not built and its tests will be skipped" \
			"(apt-get install $(JAVA_PACKAGES))"; \
	else \
		set -e; \
		rm -rf $(JAVA_BUILD)/generated $(JAVA_BUILD)/classes; \
		mkdir -p $(JAVA_BUILD)/generated $(JAVA_BUILD)/classes; \
		protoc -I proto --java_out=$(JAVA_BUILD)/generated \
			--plugin=protoc-gen-grpc-java=$$(command -v grpc_java_plugin) --grpc-java_out=$(JAVA_BUILD)/generated \
			proto/unoplay/v1/*.proto; \
		javac -nowarn -encoding UTF-8 --release 17 -cp $(JAVA_CP_BUILD) -d $(JAVA_BUILD)/classes \
			$$(find $(JAVA_BUILD)/generated -name '*.java'); \
		javac -Xlint:all,-serial,-classfile -Werror -encoding UTF-8 --release 17 -cp $(JAVA_CP):$(JAVA_BUILD)/classes \
			-d $(JAVA_BUILD)/classes $$(find $(JAVA_BOT)/src -name '*.java'); \
		jar --create --file $(JAVA_BUILD)/uno-java-bot.jar -C $(JAVA_BUILD)/classes .; \
		for launcher in uno-java-bot:unobot.Main uno-java-tools:unobot.Tools; do \
			file=$(JAVA_BUILD)/$${launcher%%:*}; \
			printf '%s\n' '#!/bin/sh' "# Written by make java-bot: runs $${launcher#*:} with Debian's jars." \
				"exec java $(JAVA_OPTS) -cp \"\$$(dirname \"\$$0\")/uno-java-bot.jar:$(JAVA_CP)\" $${launcher#*:} \"\$$@\"" \
				> $$file; \
			chmod +x $$file; \
		done; \
		echo "$(JAVA_BUILD)/uno-java-bot: built"; \
	fi
