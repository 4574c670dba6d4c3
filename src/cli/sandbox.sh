#!/bin/sh
# `npm run sandbox -- [--json] [--webhook-url URL] [--env-file FILE [--rotate]]` (src/cli/sandbox.ts).
# Node 20 takes --env-file anywhere on its command line as its own option (and fails when FILE does
# not exist yet), so it is handed to sandbox.ts as --write-env before node starts.
set -e
for a in "$@"; do
  shift
  case "$a" in
    --env-file) set -- "$@" --write-env ;;
    --env-file=*) set -- "$@" "--write-env=${a#--env-file=}" ;;
    *) set -- "$@" "$a" ;;
  esac
done
exec ts-node -r tsconfig-paths/register --transpile-only "$(dirname "$0")/sandbox.ts" "$@"
