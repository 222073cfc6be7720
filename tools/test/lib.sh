# The harness of the command-line tests (sourced): real binaries, real files, real exit codes.
# Defines $work (a temporary folder removed on exit) and check / run / contains / lacks / lines;
# call `finish NAME` last.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0

check() {  # check NAME CONDITION-COMMAND...
  local name=$1
  shift
  if "$@"; then
    passes=$((passes + 1))
  else
    echo "FAIL: $name" >&2
    failures=$((failures + 1))
  fi
}
contains() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }
lines() { test "$(wc -l <"$1")" -eq "$2"; }
run() {  # run EXPECTED_STATUS CMD... ; stdout -> $work/out, stderr -> $work/err; 60 s at most
  runfor 60 "$@"
}
runfor() {  # runfor SECONDS EXPECTED_STATUS CMD... ; as run, SECONDS at most; EXPECTED_STATUS
  # may name several, as 1|4
  local limit=$1 expected=$2
  shift 2
  timeout "$limit" "$@" >"$work/out" 2>"$work/err"
  local status=$?
  if [[ "|$expected|" != *"|$status|"* ]]; then
    echo "  '$*' exited $status, expected $expected; stderr:" >&2
    sed 's/^/    /' "$work/err" >&2
    return 1
  fi
}
finish() {  # finish NAME: the summary line and the exit status
  echo "$1: $passes passed, $failures failed"
  [ "$failures" -eq 0 ]
}
