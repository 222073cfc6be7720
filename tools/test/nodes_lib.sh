# Helpers of the tests that run rdcc nodes on loopback (sourced after lib.sh): free ports, waiting
# for a log line, checking a node's last JSON line.
# The ports handed out so far, a line each, in a file: `port=$(free_port)` runs in a subshell,
# whose variables are lost, and two calls gave the same port (a node refused `--data-port` equal
# to its `--rdcc-port`, and the udp: kill matrix counted its mutant as a survivor).
taken_ports="$work/taken-ports"
: >>"$taken_ports"
free_port() {  # a dynamic UDP port no socket uses now (ss), not handed out before by this script
  local p
  while :; do
    p=$((49152 + RANDOM % 16384))
    grep -qx "$p" "$taken_ports" && continue
    if [ -z "$(ss -Huan "sport = :$p")" ]; then
      echo "$p" >>"$taken_ports"
      echo "$p"
      return
    fi
  done
}
wait_for() {  # wait_for FILE TEXT: at most 10 s for TEXT to appear in FILE
  local i
  for i in $(seq 1 500); do
    grep -qF -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.02
  done
  echo "  timed out waiting for '$2' in $1:" >&2
  sed 's/^/    /' "$1" >&2
  return 1
}
json_check() {  # json_check FILE JQ-EXPR: the expression holds for the last JSON line of FILE
  tail -n 1 "$1" | jq -e "$2" >/dev/null || {
    echo "  $2 is false for: $(tail -c 600 "$1")" >&2
    return 1
  }
}
