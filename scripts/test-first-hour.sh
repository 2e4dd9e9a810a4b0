#!/usr/bin/env bash
# `make test-first-hour` (issue 33): the first hour of a new user, from a fresh clone with every service port moved
# (test/first-hour). The clone starts its own services on those ports and stops them at the end; the services of
# this checkout (`make up`, on the default ports) stay as they are: the test checks that nothing reaches them.
# Not part of `make test` (it takes minutes and a second set of services); .ci/run runs it after that.
# Extra arguments go to jest.
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$RAGTIME_ROOT"
npx jest -c test/first-hour/jest.config.js "$@"
