#!/usr/bin/env bash
# inspect-compare.sh: run two seam binaries' `inspect --json` over every
# capture and raw recording under a fixtures directory and diff the outputs,
# byte for byte. A refactoring that claims "behaviour unchanged" passes when
# the outputs are identical.
#
# Usage: scripts/inspect-compare.sh BEFORE AFTER [DIR] [OUT]
#
#   BEFORE, AFTER  two seam binaries, for example the base branch's and
#                  the working tree's:
#                    mkdir /tmp/base && git archive main | tar -x -C /tmp/base
#                    (cd /tmp/base && go build -o /tmp/seam-before ./cmd/seam)
#                    go build -o /tmp/seam-after ./cmd/seam
#   DIR            the directory searched recursively (default: fixtures)
#   OUT            where the outputs go (default: a new temporary directory)
#
# Each file seam may read (not .go, .md, go.mod/go.sum, .py) is inspected
# as it is and once with every --protocol forced, so the assemblers meet
# streams of the other protocols too (invalid JSON, foreign terminators,
# events out of order); the directory as a whole is inspected once. For each
# run the standard output, standard error and exit status are kept; the runs
# are spread over $JOBS processes (default: one per CPU). Exit
# status: 0 when every output is identical, 1 when some differ (the diffs are
# printed), 2 on a usage error.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 4 ]; then
	sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
fi
before=$1 after=$2 dir=${3:-fixtures} out=${4:-}
for b in "$before" "$after"; do
	if [ ! -x "$b" ]; then
		echo "inspect-compare: $b is not an executable" >&2
		exit 2
	fi
done
if [ ! -d "$dir" ]; then
	echo "inspect-compare: $dir is not a directory" >&2
	exit 2
fi
if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/inspect-compare.XXXXXX")
fi
mkdir -p "$out/before" "$out/after"

protocols="auto chat responses anthropic gemini converse invoke cohere ollama"

# run BIN SIDE NAME ARGS...: one inspect run, its outputs kept under
# $out/SIDE/NAME.{out,err,rc}.
run() {
	local bin=$1 side=$2 name=$3
	shift 3
	local rc=0
	"$bin" inspect --json --color never "$@" >"$out/$side/$name.out" 2>"$out/$side/$name.err" </dev/null || rc=$?
	echo "$rc" >"$out/$side/$name.rc"
}
export -f run
export out

# The runs, five NUL-terminated fields each (binary, side, output name,
# --protocol, file), spread over $JOBS processes.
jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)}
n=0
list=$out/runs
: >"$list"
while IFS= read -r -d '' f; do
	case $f in
	*.go | *.md | */go.mod | */go.sum | *.py) continue ;;
	esac
	key=$(printf '%s' "${f#./}" | tr '/' '@')
	for p in $protocols; do
		printf '%s\0%s\0%s\0%s\0%s\0' "$before" before "$key.$p" "$p" "$f" >>"$list"
		printf '%s\0%s\0%s\0%s\0%s\0' "$after" after "$key.$p" "$p" "$f" >>"$list"
	done
	n=$((n + 1))
done < <(find "$dir" -type f -print0 | LC_ALL=C sort -z)
xargs -0 -n 5 -P "$jobs" bash -c 'run "$1" "$2" "$3" --protocol "$4" "$5"' _ <"$list"
rm "$list"
run "$before" before dir "$dir"
run "$after" after dir "$dir"

if diff -r "$out/before" "$out/after" >"$out/diff" 2>&1; then
	echo "inspect-compare: $n files x $(echo $protocols | wc -w) protocol settings + the directory: identical (outputs in $out)"
	exit 0
fi
cat "$out/diff"
echo "inspect-compare: outputs differ (outputs in $out)" >&2
exit 1
