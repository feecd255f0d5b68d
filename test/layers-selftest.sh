#!/usr/bin/env bash
# Shows that the layer rules of .golangci.yml bite: a scratch copy of the module's layout with
# one deliberate break per rule must fail golangci-lint, naming every rule, and the same layout
# without the breaks must pass. Run by `make lint` after the real lint, so a rule that stops
# matching (a renamed package, a glob gone wrong) fails `make check` instead of passing silently.
set -euo pipefail
cd "$(dirname "$0")/.."
lint=${GOLANGCI_LINT:-bin/golangci-lint}
lint=$(cd "$(dirname "$lint")" && pwd)/$(basename "$lint")

scratch=$(mktemp -d "${TMPDIR:-/tmp}/layers-selftest.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cp go.mod go.sum .golangci.yml "$scratch/"
mod=$(awk '/^module /{print $2}' go.mod)

put() { mkdir -p "$scratch/$(dirname "$1")"; cat >"$scratch/$1"; }
put internal/store/store.go <<EOF
package store

type Store struct{}
EOF
put internal/apperr/apperr.go <<EOF
package apperr

type Error struct{}
EOF
put internal/testkit/testkit.go <<EOF
package testkit

type Env struct{}
EOF
# Each file holds what its package may import and, with breaks, what each rule refuses
# (the findings name the rule's list; the lines carry no rule name of their own).
write_layout() {
  local breaks=$1
  put internal/events/events.go <<EOF
package events

import (
	_ "$mod/internal/store"
$( [ "$breaks" = yes ] && printf '\t_ "github.com/jackc/pgx/v5"\n\t_ "github.com/labstack/echo/v4"\n\t_ "%s/internal/testkit"\n' "$mod" )
)
EOF
  put internal/httpapi/server.go <<EOF
package httpapi

import (
	_ "github.com/labstack/echo/v4"
$( [ "$breaks" = yes ] && printf '\t_ "%s/internal/store"\n' "$mod" )
)
EOF
  put internal/store/http.go <<EOF
package store

import (
	_ "github.com/jackc/pgx/v5"
$( [ "$breaks" = yes ] && printf '\t_ "net/http"\n\t_ "%s/internal/apperr"\n' "$mod" )
)
EOF
}

write_layout no
if ! (cd "$scratch" && "$lint" run --enable-only depguard ./... >"$scratch/clean.out" 2>&1); then
  cat "$scratch/clean.out"
  echo "layers-selftest: the layout without breaks failed the layer rules (above)" >&2
  exit 1
fi
write_layout yes
if (cd "$scratch" && "$lint" run --enable-only depguard ./... >"$scratch/broken.out" 2>&1); then
  echo "layers-selftest: deliberate layer breaks passed golangci-lint: the rules in .golangci.yml do not bite" >&2
  exit 1
fi
for rule in data-layer edge handlers store test-helpers; do
  if ! grep -q "list '$rule'" "$scratch/broken.out"; then
    cat "$scratch/broken.out"
    echo "layers-selftest: no finding of the rule $rule for its deliberate break" >&2
    exit 1
  fi
done
echo "layers-selftest: every layer rule refuses its deliberate break"
