#!/usr/bin/env bash
# seam-check.sh: seam check in one step, for CI (the logic of action.yml at
# the repository's root; GitLab CI and any other runner call it as it is).
#
# It installs seam with go install, runs seam check --junit on the
# fixtures, and leaves in the output directory:
#   junit.xml   one test case per fixture (seam check --junit)
#   report.txt  seam check's report: an ok or FAIL line per fixture, what
#               differs under each FAIL, then "N passed, N failed"
#   html/       for each failing fixture, seam report's HTML page of it
# The report is printed too. It exits with seam check's status: 0 when
# every fixture passed, 1 when one failed, 2 on a usage error.
#
# Environment (all optional):
#   SEAM_VERSION   the version to install: a module version (v0.3.0, a
#                  commit, latest) with go install
#                  github.com/seam-dev/seam/cmd/seam@VERSION; empty installs
#                  the seam of the checkout this script is in
#   SEAM_BIN       a seam binary to run instead of installing one
#   SEAM_FIXTURES  captures and directories to check, separated by blanks
#                  (default: fixtures)
#   SEAM_ARGS      more seam check flags, separated by blanks (e.g.
#                  --fault split-rune)
#   SEAM_OUT       the output directory (default: seam-check)
# On GitHub Actions it also sets the step outputs junit, report and html,
# and writes the summary line to the job summary.
set -euo pipefail
set -f # fixtures and flags are words, never globs

out=${SEAM_OUT:-seam-check}
read -r -a fixtures <<<"${SEAM_FIXTURES:-fixtures}"
read -r -a args <<<"${SEAM_ARGS:-}"
if [ "${#fixtures[@]}" -eq 0 ]; then
  echo "seam-check: SEAM_FIXTURES names no capture or directory" >&2
  exit 2
fi

seam=${SEAM_BIN:-}
if [ -z "$seam" ]; then
  command -v go >/dev/null || { echo "seam-check: go is not on PATH (seam is installed with go install)" >&2; exit 2; }
  bin=$(go env GOBIN)
  [ -n "$bin" ] || bin="$(go env GOPATH)/bin"
  if [ -z "${SEAM_VERSION:-}" ]; then
    src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    echo "seam-check: installing seam from $src"
    (cd "$src" && go install ./cmd/seam)
  else
    case $SEAM_VERSION in
    *[!A-Za-z0-9._+/-]* | -*)
      echo "seam-check: SEAM_VERSION $SEAM_VERSION is not a module version (v0.3.0, a commit, latest)" >&2
      exit 2
      ;;
    esac
    echo "seam-check: installing github.com/seam-dev/seam/cmd/seam@$SEAM_VERSION"
    go install "github.com/seam-dev/seam/cmd/seam@$SEAM_VERSION"
  fi
  seam="$bin/seam"
fi
"$seam" version

mkdir -p "$out"
status=0
"$seam" check --junit "$out/junit.xml" "${args[@]}" -- "${fixtures[@]}" >"$out/report.txt" || status=$?
cat "$out/report.txt"

# An HTML page per failing fixture, to look at where it broke.
failing=0
while IFS= read -r line; do
  case $line in
  "FAIL  "*)
    fixture=${line#FAIL  }
    if [ -f "$fixture" ]; then
      mkdir -p "$out/html"
      "$seam" report -o "$out/html/" -- "$fixture" >/dev/null 2>&1 || echo "seam-check: no HTML page for $fixture" >&2
      failing=$((failing + 1))
    fi
    ;;
  esac
done <"$out/report.txt"
[ "$failing" -eq 0 ] || echo "seam-check: HTML pages of the $failing failing fixtures in $out/html/"

if [ -n "${GITHUB_OUTPUT:-}" ]; then
  {
    echo "junit=$out/junit.xml"
    echo "report=$out/report.txt"
    echo "html=$out/html"
  } >>"$GITHUB_OUTPUT"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    echo "### seam check"
    echo
    echo '```'
    grep -E '^(FAIL  |[0-9]+ passed, [0-9]+ failed)' "$out/report.txt" || true
    echo '```'
  } >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
