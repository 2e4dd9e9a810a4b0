# ragtime: the two commands of the README are `make demo` and `make test`; the rest are helpers.
# Every target runs a script under scripts/ (ports and addresses: scripts/env.sh).
.DEFAULT_GOAL := help
.PHONY: help setup demo test up down status eval-golden eval-retrieval eval-answers bench-retrieval bench

help:
	@echo "make demo    install, start the local services and a worker, ingest samples/knowledge, tour every route"
	@echo "make test    install, start the services, typecheck, lint, run the whole jest suite, stop what it started"
	@echo "make up | down | status    start / stop / show the local services (down also stops the demo's worker)"
	@echo "make setup   install node_modules and the project-local .venv only"
	@echo "make eval-golden      build the open golden sets from CMRC 2018 dev and run ragtime eval on them with a fresh worker (docs/EVALUATION.md)"
	@echo "make eval-retrieval   start the services, index CMRC 2018 dev, score hit@1/@5 and MRR@10 per leg (docs/EVALUATION.md)"
	@echo "make eval-answers     start the services, index CMRC 2018 dev, answer every question offline: gold span, citations, verification (docs/EVALUATION.md)"
	@echo "make bench-retrieval  start the services, retrieve p50/p95 at 1k, 10k and 50k leaf chunks (docs/PERFORMANCE.md)"
	@echo "make bench   orchestration benchmark against the running dev server (TEMPORAL_ADDRESS; see docs/PERFORMANCE.md)"

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

bench:
	@npx tsx bench/orchestration.ts

# Benchmarks and the retrieval evaluation (bench/, DESIGN §5C and §7): not part of `make test`; they leave the
# services running, as `make up` does. Extra flags: make eval-retrieval ARGS="--questions 500".
# The worker is restarted so the sets run on this checkout's code (with the demo's default knowledge base).
eval-golden: up
	@bash -c 'source scripts/env.sh && npx tsx bench/build-golden-sets.ts && MILVUS_COLLECTION=$${MILVUS_COLLECTION:-ragtime_demo_kb} bash scripts/services.sh restart worker && for set in cmrc-answerability cmrc-agreement; do node bin/ragtime.js eval .data/golden/$$set $(ARGS) || exit 1; done && node bin/ragtime.js eval samples/golden/products $(ARGS)'

eval-retrieval: up
	@bash -c 'source scripts/env.sh && npx tsx bench/eval-cmrc.ts $(ARGS)'

eval-answers: up
	@bash -c 'source scripts/env.sh && npx tsx bench/eval-answers.ts $(ARGS)'

bench-retrieval: up
	@bash -c 'source scripts/env.sh && npx tsx bench/retrieve.ts $(ARGS)'
