# Developer tasks; .ci/run calls `make ci`. The README's test command is `make test`.
PY := .venv/bin/python
# the coverage floor on the analysis core, the commands and the rendering (make ci): their own
# in-process tests (tests/core, commands, render, golden) covered 96.4% of their statements
# (7,565, 274 missed) when the floor was set; only those tests are traced (tests/conftest.py)
COV := --cov=service/core --cov=service/commands --cov=service/render \
	--cov-report=term:skip-covered --cov-fail-under=95
# the locks pin every package with its hashes, for any platform (CI and the image install them)
LOCK := .venv/bin/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes
.PHONY: install sample fmt lint typecheck test test-all ci wheel-check pipx-check lock

install:
	python3 -m venv .venv
	.venv/bin/pip install -q --upgrade 'pip>=24.2'
	.venv/bin/pip install -q --require-hashes -r requirements/dev.lock
	.venv/bin/pip install -q --no-deps -e .

# after changing a dependency in pyproject.toml (tests/test_lock.py fails until the locks follow)
lock:
	$(LOCK) --extra postgres --extra fast --extra shellcheck -o requirements/runtime.lock
	$(LOCK) --extra dev --extra postgres -o requirements/dev.lock

sample:
	.venv/bin/verl-week digest --sample

fmt:
	$(PY) -m ruff format service tests benchmarks && $(PY) -m ruff check --fix service tests benchmarks

lint:
	$(PY) -m ruff check service tests benchmarks
	$(PY) -m ruff format --check service tests benchmarks
	.venv/bin/lint-imports

typecheck:
	$(PY) -m mypy --strict service/core service/commands service/render
	$(PY) -m mypy service
	$(PY) -m mypy tests

# the in-process tier: every test but those that start the service as a process (`process`)
test:
	$(PY) -m pytest -m "not process"

# every test, both tiers, with the coverage floor
test-all:
	$(PY) -m pytest $(COV)

# The wheel carries templates/ as service/templates: check that a wheel install renders.
# It carries the schema revisions too: the digest migrates a fresh database, `migrate` finds it
# up to date.
wheel-check:
	rm -rf dist build/wheel-check build/data
	$(PY) -m pip wheel -q --no-deps -w dist .
	$(PY) -m pip install -q --no-deps --target build/wheel-check dist/*.whl
	cd build && PYTHONPATH=wheel-check ../$(PY) -m service digest --sample --format html --output wheel-check.html
	grep -q '</html>' build/wheel-check.html
	cd build && PYTHONPATH=wheel-check ../$(PY) -m service migrate | grep -q 'up to date'

# What the README's first step does: `pipx install` of the built wheel into a pipx home of its
# own (its wheel in build/pipx/dist, apart from wheel-check's: CI runs them side by side), its dependencies resolved from the package index as the wheel declares them (a module
# imported but not declared fails here), then the console script from outside the tree.
PIPX := build/pipx
pipx-check:
	rm -rf $(PIPX) && mkdir -p $(PIPX)
	$(PY) -m pip wheel -q --no-deps -w $(PIPX)/dist .
	PIPX_HOME=$(PIPX)/home PIPX_BIN_DIR=$(PIPX)/bin PIPX_MAN_DIR=$(PIPX)/man \
		$(PY) -m pipx install $(PIPX)/dist/verl_week-*.whl
	cd $(PIPX) && env -i PATH=/usr/bin:/bin HOME=$$PWD bin/verl-week --version | grep -qx 'verl-week .*'
	cd $(PIPX) && env -i PATH=/usr/bin:/bin HOME=$$PWD DATABASE_URL=sqlite:///$$PWD/week.db \
		bin/verl-week digest --sample --no-llm --format json --output week.json
	$(PY) -c "import json, sys; d = json.load(open(sys.argv[1])); assert (d['repo'], d['week'], d['stats']['prs']) == ('volcengine/verl', '2026-W04', 22), d['stats']" $(PIPX)/week.json

ci: lint typecheck wheel-check pipx-check test-all
