# unoplay: the two README commands, plus proto generation, lint and bench.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.installed

.PHONY: install test bench play clean proto

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e '.[dev,bench]'
	touch $(STAMP)

install: $(STAMP)  ## create .venv and install the project with its test and bench extras

test: $(STAMP) node-bot  ## run the whole test suite
	$(PY) -m pytest

bench: $(STAMP)  ## engine benchmark (rounds/s, actions/s, ratio to RLCard)
	$(VENV)/bin/uno bench

play: $(STAMP)  ## play in the terminal: an embedded server, you and three bots
	$(VENV)/bin/uno play

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis

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
