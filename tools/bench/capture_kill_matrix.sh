#!/usr/bin/env bash
# The kill matrix by capture: per mutant of the sender and the receiver, the real nodes on
# loopback (`rdcc sender` -> `rdcc receiver`, one of them with `--mutant NAME`) captured with
# dumpcap, and `rdcc pcap check` on the capture; prints, per mutant, the requirement IDs of the
# findings, or "no finding", and the count caught. A measurement, not a test: a mutant whose
# fault the three messages of the capture never exercise (a reply to a malformed message, an
# unknown association, a report) shows nothing here and is the suite's to catch.
# Usage: capture_kill_matrix.sh RDCC RDCC_CONFORM [sender|receiver ...]
set -u
rdcc=$1
conform=$2
shift 2
roles=("${@:-sender receiver}")
here=$(dirname "$0")/../test
. "$here/lib.sh"
. "$here/nodes_lib.sh"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT
. "$here/capture_lib.sh"

# The clean capture first: a finding there would make every row meaningless.
# Four messages: capture()'s three and a second unscheduled one (4 KiB), so that a sender that
# has two unscheduled messages outstanding can show it.
capture clean --data-source-port "$source_port" --send 4096 || { echo "the clean capture failed" >&2; exit 1; }
if ! "$rdcc" pcap check "$work/clean.pcapng" "${check_args[@]}" >"$work/out" 2>"$work/err"; then
  echo "the clean capture has findings:" >&2
  cat "$work/out" >&2
  exit 1
fi
for role in ${roles[*]}; do
  caught=0
  total=0
  mutants=$("$conform" --list-mutants 2>/dev/null | awk -v r="[$role]" '$2 == r {print $1}')
  if [ -z "$mutants" ]; then
    echo "cannot list the $role mutants (rdcc-conform --list-mutants)" >&2
    exit 1
  fi
  for m in $mutants; do
    total=$((total + 1))
    if [ "$role" = sender ]; then
      capture "$m" --data-source-port "$source_port" --send 4096 --mutant "$m" >/dev/null 2>&1
    else
      capture "$m" --receiver-option --mutant --receiver-option "$m" --data-source-port "$source_port" \
        --send 4096 >/dev/null 2>&1
    fi
    "$rdcc" pcap check "$work/$m.pcapng" "${check_args[@]}" >"$work/out" 2>"$work/err"
    ids=$(grep -oE '^RDCC-[A-Z]+-[0-9]+' "$work/out" | sort | uniq -c | awk '{printf "%s%s(%s)", sep, $2, $1; sep=" "}')
    if [ -n "$ids" ]; then
      caught=$((caught + 1))
      printf '%-8s %-40s %s\n' "$role" "$m" "$ids"
    else
      printf '%-8s %-40s %s\n' "$role" "$m" "no finding"
    fi
    rm -f "$work/$m.pcapng"
  done
  echo "by capture: $caught of $total $role mutants give a finding"
done
