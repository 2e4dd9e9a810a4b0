# ragtime: the two commands of the README are `make demo` and `make test`; the rest are helpers.
# Every target runs a script under scripts/ (ports and addresses: scripts/env.sh).
.DEFAULT_GOAL := help
.PHONY: help setup demo test up down status

help:
	@echo "make demo    install, start the local services and a worker, ingest samples/knowledge, tour every route"
	@echo "make test    install, start the services, typecheck, lint, run the whole jest suite, stop what it started"
	@echo "make up | down | status    start / stop / show the local services (down also stops the demo's worker)"
	@echo "make setup   install node_modules and the project-local .venv only"

setup:
	@bash scripts/setup.sh

demo:
	@bash scripts/demo.sh

test:
	@bash scripts/test.sh

up: setup
	@bash scripts/services.sh up

down:
	@bash scripts/services.sh down

status:
	@bash scripts/services.sh status || true
