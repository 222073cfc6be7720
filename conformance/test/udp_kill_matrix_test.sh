#!/usr/bin/env bash
# The kill matrix through udp:, as a vendor reaches a device that is already running: per
# mutant of ROLE, one reference node started with it (`rdcc receiver|sender --mutant NAME`; a
# sender with its upper tester on TCP), and the scenarios that kill the mutant in process
# played against it through udp: (one at a time, until one fails; a fresh node per play, started
# with the scenario's configuration, which the udp: IUT spec declares: udp:...,KEY=VALUE). Every
# mutant must die but the allowed survivors below, each with its reason. A mutant killed only by
# silence past the tester's patience counts as killed, as in the kill matrix.
# Usage: udp_kill_matrix_test.sh ROLE RDCC_CONFORM SOURCE_DIR RDCC
set -uo pipefail
role=$1
conform=$2
src=$3
rdcc=$4
. "$src/tools/test/lib.sh"
. "$src/tools/test/nodes_lib.sh"
scenarios="$src/conformance/scenarios"
catalog="$src/conformance/catalog/requirements.json"
# No retries: a running IUT keeps what each play left (associations, with the scenario's fixed
# Association IDs), so a replay is not a fresh start; a kill is the first play's verdict.
tolerance=(--tolerance-abs 20ms --tolerance-rel 10%)
. "$src/conformance/test/exec_iut.sh"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$work"' EXIT

declare -A may_survive
case "$role" in
  sender)
    may_survive[sender-report-from-unconfigured-crn]="as through exec: the report must be read \
before the random start delay ends, which a loaded host may miss" ;;
  receiver)
    may_survive[receiver-report-from-unconfigured-crn]="as through exec: the lowered rate must \
still be in force at the next grant, which a loaded host may miss" ;;
  *) echo "udp_kill_matrix_test.sh: ROLE is receiver or sender" >&2; exit 2 ;;
esac

# Which scenarios kill each mutant: the kill matrix in process (virtual time, seconds).
check "the kill matrix in process" run 0 "$conform" --role "$role" --kill-matrix --iut "reference:$role" \
  --scenarios "$scenarios/$role" --catalog "$catalog" --report "$work/inproc"
matrix="$work/inproc/kill-matrix.json"

# start_node MUTANT [NODE-OPTION...]: a fresh node of this role with the mutant and the options
# (a scenario's configuration); sets $iut_udp. A port that another test bound between free_port
# and the node's bind is drawn again (three tries), not read as a surviving mutant.
start_node() {
  local try
  for try in 1 2 3; do
    if start_node_once "$@"; then return 0; fi
    grep -q 'Address already in use' "$work/node.err" || return 1
    echo "  try $try: a port was taken before the node bound it; new ports" >&2
  done
  return 1
}
start_node_once() {
  local m=$1 port data rocev2
  shift
  port=$(free_port)
  data=$(free_port)
  : >"$work/node.err"
  if [ "$role" = receiver ]; then
    rocev2=$(free_port)
    "$rdcc" receiver ${receiver_opts/--events \/dev\/stderr/} --rdcc-port "$port" --data-port "$data" \
      --rocev2 --rocev2-port "$rocev2" --mutant "$m" "$@" 2>"$work/node.err" &
    pids+=($!)
    wait_for "$work/node.err" '"ready"' || return 1
    iut_udp="udp:127.0.0.1:$port,data=$data,rocev2=$rocev2,budget=4194304,d_max=20"
  else
    # shellcheck disable=SC2086
    "$rdcc" sender --address 127.0.0.1 --rdcc-port "$port" --data-port "$data" --line-rate 100000 \
      --crn 127.0.0.1 --unscheduled-dscp 8 $sender_class_opts --upper-tester tcp:127.0.0.1:0 \
      --mutant "$m" "$@" \
      2>"$work/node.err" &
    pids+=($!)
    wait_for "$work/node.err" '"upper_tester"' || return 1
    iut_udp="udp:127.0.0.1:$port,upper=tcp:$(grep -o '"upper_tester":"[^"]*"' "$work/node.err" | cut -d'"' -f4),tester_data=$data"
  fi
}

# play MUTANT SCENARIO: the scenario through udp: against a fresh node with the mutant, started
# with the scenario's configuration (as `rdcc-conform --list` names its options) and declared
# so (udp:...,KEY=VALUE; fresh: it serves this scenario alone); exit 1 or 3 (failed; inconclusive: silence past the patience) kills.
play() {
  local listing config options status try
  listing=$("$conform" --list --role "$role" --scenarios "$scenarios/$role" --filter "$2")
  config=$(sed -n 's/^    config \([^(]*\)  (.*/\1/p' <<<"$listing")
  options=$(sed -n 's/.*(rdcc [a-z]* options: \(.*\))$/\1/p' <<<"$listing")
  # A play the scenario declared UNSUPPORTED for what the run met (a transfer that waited for
  # credit on a loaded host: `require stall<200`) tested nothing: played again on a fresh node,
  # up to three times. Only a FAIL or an INCONCLUSIVE kills.
  for try in 1 2 3; do
    # shellcheck disable=SC2086
    start_node "$1" $options || return 1
    local node=${pids[-1]}
    local declared=",fresh"
    for kv in $config; do declared="$declared,$kv"; done
    "$conform" --role "$role" --strict "${tolerance[@]}" --scenarios "$scenarios/$role" \
      --catalog "$catalog" --iut "$iut_udp$declared" --filter "$2" >"$work/run.out" 2>&1
    status=$?
    kill "$node" 2>/dev/null
    wait "$node" 2>/dev/null
    grep -q ' 0 failed, 0 inconclusive, 1 unsupported' "$work/run.out" || break
  done
  [ "$status" -eq 1 ] || [ "$status" -eq 3 ]
}

killed=0
total=0
unexpected=0
for m in $(jq -r --arg r "$role" '.mutants[] | select(.role == $r) | .mutant' "$matrix"); do
  total=$((total + 1))
  killers=$(jq -r --arg m "$m" '.mutants[] | select(.mutant == $m) | (.killed_by + .silent_in)[]' "$matrix")
  dead=
  for s in $killers; do
    if play "$m" "$s"; then dead=$s; break; fi
  done
  if [ -n "$dead" ]; then
    killed=$((killed + 1))
  elif [ -n "${may_survive[$m]:-}" ]; then
    echo "  survived through udp: $m: ${may_survive[$m]}" >&2
  else
    echo "  SURVIVED through udp: $m (played: $(echo $killers)); the last play said:" >&2
    tail -n 5 "$work/run.out" >&2
    unexpected=$((unexpected + 1))
  fi
done
echo "  through udp: $killed of $total $role mutants killed" >&2
check "every $role mutant but the listed was killed through udp:" test "$unexpected" -eq 0
finish "udp_kill_matrix_$role"
