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
	$(PY) -m mypy --strict service
	$(PY) -m mypy tests

# the in-process tier: every test but those that start the service as a process (`process`)
test:
	$(PY) -m pytest -m "not process"

# every test, both tiers, with the coverage floor
test-all:
	$(PY) -m pytest $(COV)

# What the image does (deploy/Dockerfile; CI has no Docker daemon, tests/test_dockerfile.py checks
# that its steps are these): the wheel, then a fresh venv of the image's Python (3.11) with the
# locked dependencies (hashes checked) and the wheel alone, run from outside the tree. The wheel
# carries templates/ as service/templates and the schema revisions: a sample digest renders, the
# digest migrates a fresh database and `migrate` finds it up to date.
IMAGE_PY := python3.11
WHEEL := build/wheel-check
wheel-check:
	rm -rf $(WHEEL) && mkdir -p $(WHEEL)
	$(PY) -m pip wheel -q --no-deps --wheel-dir $(WHEEL)/wheels .
	$(IMAGE_PY) -m venv $(WHEEL)/venv
	$(WHEEL)/venv/bin/pip install -q --require-hashes -r requirements/runtime.lock
	$(WHEEL)/venv/bin/pip install -q --no-deps $(WHEEL)/wheels/*.whl
	cd $(WHEEL) && env -i PATH=/usr/bin:/bin HOME=$$PWD \
		venv/bin/verl-week digest --sample --format html --output wheel-check.html
	grep -q '</html>' $(WHEEL)/wheel-check.html
	cd $(WHEEL) && env -i PATH=/usr/bin:/bin HOME=$$PWD venv/bin/verl-week migrate | grep -q 'up to date'
	$(WHEEL)/venv/bin/python .ci/native_helpers.py

# The README's install lines as written (the blocks marked `<!-- ci: install-clone -->` and
# `<!-- ci: install-wheel -->`): run by bash -e in a copy of this tree, with a home folder of
# their own (pipx puts its venvs and the `verl-week` command there), pipx from the dev venv,
# dependencies resolved from the package index as the wheel declares them (a module imported but
# not declared fails here).
README_RUN := $(abspath build/readme)
pipx-check:
	rm -rf $(README_RUN) && mkdir -p $(README_RUN)/clone $(README_RUN)/home $(README_RUN)/tools
	git ls-files -z --cached --others --exclude-standard \
		| tar --null --ignore-failed-read -T - -cf - | tar -xf - -C $(README_RUN)/clone
	ln -s $(abspath .venv/bin/pipx) $(README_RUN)/tools/pipx
	for block in install-clone install-wheel; do \
		lines="$$($(PY) .ci/readme_lines.py $$block)" || exit 1; \
		(cd $(README_RUN)/clone && HOME=$(README_RUN)/home \
			PATH=$(README_RUN)/home/.local/bin:$(README_RUN)/tools:$$PATH \
			bash -euo pipefail -c "$$lines" > $(README_RUN)/$$block.out) || exit 1; \
		grep -q 'volcengine/verl' $(README_RUN)/$$block.out || exit 1; \
	done

ci: lint typecheck wheel-check pipx-check test-all
