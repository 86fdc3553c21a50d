# Every target installs what it needs into .venv first, so a fresh clone needs only
# Python 3.11, make and a C compiler.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PROTOS := $(wildcard protos/maumau/v1/*.proto)
GEN    := $(patsubst protos/%.proto,services/%_pb2.py,$(PROTOS))
# The packages compiled with mypyc (build_support.py: the rules core, the rating service's
# computation); the install compiles them, and this compiles one again after an edit of it.
# Without a C compiler the pure modules run (docs/contributing.md, "The compiled core").
NATIVE := $(foreach package,rules rating,services/maumau/$(package)/_native/SOURCES)

.PHONY: run play pyodide test bench league load lint buf-lint buf-breaking docs proto native clean wheel image mutate

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

services/maumau/v1/%_pb2.py: protos/maumau/v1/%.proto $(STAMP)
	$(PY) -m grpc_tools.protoc -Iprotos --python_out=services --pyi_out=services \
		--grpc_python_out=services --plugin=protoc-gen-mypy_grpc=$(VENV)/bin/protoc-gen-mypy_grpc \
		--mypy_grpc_out=services $<

proto: $(GEN)

.SECONDEXPANSION:
$(NATIVE): services/maumau/%/_native/SOURCES: $$(wildcard services/maumau/%/*.py) build_support.py $(STAMP)
	-$(PY) build_support.py maumau.$* && touch $@

native: $(NATIVE)

run: $(STAMP) proto native pyodide
	$(PY) -m maumau.run

# Pyodide for solo matches in the page (clients/pyodide's npm package); without npm or a
# registry `make run` goes on and solo matches are played on the server.
PYODIDE := clients/pyodide/node_modules/.installed
$(PYODIDE): clients/pyodide/package-lock.json
	-cd clients/pyodide && npm ci --no-audit --no-fund && touch node_modules/.installed

pyodide: $(PYODIDE)

play: $(STAMP) proto native
	$(VENV)/bin/maumau play $(ARGS)

# The rules and rating tests run a second time against the pure modules (test_pure_python.py);
# the 20 slowest tests are named at the end, so a CI run shows where its time goes. WORKERS=N
# runs the files on N workers (pytest-xdist; tests/conftest.py keeps a file on one and gives each
# worker its own share of free ports), then the Redis Cluster tests alone, whose failovers are
# timed. Not the default: on two cores the tests' own servers and browsers already use both
# (a clean-clone CI run took as long on two workers as serially, 27.6 against 26 min).
test: $(STAMP) proto native
ifeq ($(WORKERS),)
	$(PY) -m pytest -q --durations=20
else
	$(PY) -m pytest -q --durations=20 -n $(WORKERS) --dist loadgroup --ignore=tests/cluster
	$(PY) -m pytest -q --durations=5 tests/cluster
endif

bench: $(STAMP) proto native
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	$(PY) -m bench $(if $(filter 1,$(SAVE)),--save)

# The bots' goals table (bench.goals: every matchup, ratings, the held-out tables), not part
# of `make test`: ROUNDS=N per matchup (default 2000; hours at the default budget), ITERATIONS=N
# search iterations at most per decision (default 2000, so the 0.2 s budget ends a search).
league: $(STAMP) proto native
	nice -n 10 $(PY) -m bench.goals --rounds $(or $(ROUNDS),2000) \
		--iterations $(or $(ITERATIONS),2000)

# Simulated players against the whole platform (bench/load.py): SECONDS=N (default 120; 3600 for
# a soak), PLAYERS=N (default 1000), CLUSTER=1 on the local Redis Cluster, SAVE=1 into
# bench/results.json too.
load: $(STAMP) proto native
	$(PY) -m bench.load $(if $(SECONDS),--seconds $(SECONDS)) $(if $(PLAYERS),--players $(PLAYERS)) \
		$(if $(filter 1,$(CLUSTER)),--cluster) $(if $(filter 1,$(SAVE)),--save)

# Mutation testing of the rules core against the rules tests only (not part of `make test`).
# mutmut imports mutants only from ./, src/ or source/, so the core and its tests are copied
# (mtimes kept, so unchanged files keep their cached results) into .mutate/src.
# MUTANTS="name ..." (fnmatch patterns of mutmut's names) runs only those mutants again.
MUTATE := .mutate
mutate: $(STAMP)
	$(PY) -m pip install --quiet -e '.[dev,mutate]'
	mkdir -p $(MUTATE)/src/maumau $(MUTATE)/tests
	cp -p pyproject.toml $(MUTATE)/
	test -f $(MUTATE)/src/maumau/__init__.py || touch $(MUTATE)/src/maumau/__init__.py
	rm -rf $(MUTATE)/src/maumau/rules $(MUTATE)/tests/rules
	cp -rp services/maumau/rules $(MUTATE)/src/maumau/
	rm -rf $(MUTATE)/src/maumau/rules/_native  # mutants run on the pure modules
	cp -rp tests/__init__.py tests/rules $(MUTATE)/tests/
	cd $(MUTATE) && MAUMAU_HYPOTHESIS_PROFILE=mutate nice -n 10 $(CURDIR)/$(VENV)/bin/mutmut run \
		--max-children 2 $(MUTANTS)
	cd $(MUTATE) && $(CURDIR)/$(PY) $(CURDIR)/tests/rules/mutation_score.py

lint: $(STAMP) proto buf-lint
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy -p maumau -p maumau_sdk -p maumau_cli

# The protos against buf's STANDARD lint rules (protos/buf.yaml), with the buf binary of the
# TypeScript client's @bufbuild/buf package: every finding (file(line,column) : error RULE :
# message), then their number by rule; fails while there are any. Part of `make lint`.
TS       := clients/typescript
BUF      := $(TS)/node_modules/.bin/buf
BUF_LINT := $(TS)/node_modules/.buf-lint
$(TS)/node_modules/.installed: $(TS)/package-lock.json
	cd $(TS) && npm ci --no-audit --no-fund --ignore-scripts
	touch $@

buf-lint: $(TS)/node_modules/.installed
	@status=0; $(BUF) lint protos --error-format=msvs > $(BUF_LINT) || status=$$?; \
	if [ $$status -ne 0 ] && [ $$status -ne 100 ]; then exit $$status; fi; \
	cat $(BUF_LINT); \
	echo "buf lint: $$(wc -l < $(BUF_LINT)) findings"; \
	sed -E 's/^.* : error ([A-Z0-9_]+) : .*$$/\1/' $(BUF_LINT) | sort | uniq -c | sort -rn; \
	test $$status -eq 0

# The protos against those of the latest release (buf breaking, FILE rules: protos/buf.yaml):
# fails on a change that breaks a client of that release (.ci/buf-breaking finds the release: its
# tag v<version>, or on a clone without tags the commit "Release <version>").
buf-breaking: $(TS)/node_modules/.installed
	BUF=$(BUF) .ci/buf-breaking

# The documentation site (mkdocs.yml, docs/) into site/; --strict fails on any warning, a broken
# link or anchor among them. Only the packages of pyproject's docs extra are installed (read from
# it), not the project again: building the pages needs nothing of it.
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): pyproject.toml $(STAMP)
	$(PY) -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["docs"]))' > $(VENV)/docs-requirements.txt
	$(PY) -m pip install --quiet -r $(VENV)/docs-requirements.txt
	touch $@

docs: $(DOCS_STAMP)
	$(VENV)/bin/mkdocs build --strict --site-dir site

# Pictures of the web client (clients/web/screenshots.py): the whole platform on free ports,
# Debian's Chromium, PNGs in clients/web/screenshots/ that docs/playing.md shows. Look at them
# before committing them; a test holds the folder to the script's list.
.PHONY: screenshots
screenshots: $(STAMP) proto native
	$(PY) clients/web/screenshots.py

# The platform, SDK and rules-core wheels in dist/, each with its generated code built in.
wheel: $(STAMP)
	rm -rf dist build/lib build/bdist.* clients/python/build distributions/rules/build
	$(PY) -m pip wheel --quiet --no-deps --wheel-dir dist . clients/python distributions/rules
	@ls dist

# The one container image of every service (deploy/docker; its first stage builds the wheel).
image:
	deploy/docker/build.sh

clean:
	rm -rf $(VENV) dist build site services/maumau/v1 services/maumau/*/_native .pytest_cache .mypy_cache .hypothesis .mutate
	rm -rf $(TS)/node_modules $(TS)/src/gen $(TS)/dist
