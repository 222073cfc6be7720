# Helpers of the tests that run rdcc nodes on loopback (sourced after lib.sh): free ports, waiting
# for a log line, checking a node's last JSON line.
taken=" "
free_port() {  # a dynamic UDP port no socket uses now (ss), not handed out before by this script
  local p
  while :; do
    p=$((49152 + RANDOM % 16384))
    case "$taken" in *" $p "*) continue ;; esac
    if [ -z "$(ss -Huan "sport = :$p")" ]; then
      taken="$taken$p "
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
