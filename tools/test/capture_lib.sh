# The capture of real nodes shared by capture_test.sh and bench/capture_kill_matrix.sh (sourced
# after lib.sh and nodes_lib.sh, with $rdcc set and a pids array the caller's trap kills):
# `capture NAME [--receiver-option OPT]... SENDER-OPTIONS...` runs dumpcap on lo while `rdcc sender`
# sends three messages to `rdcc receiver`, into $work/NAME.pcapng; $check_args are the options of
# `rdcc pcap check` for it.
rdcc_port=$(free_port)
data_port=$(free_port)
source_port=$(free_port)
budget=4194304
d_max=20
receiver_params=(--address 127.0.0.1 --rdcc-port "$rdcc_port" --data-port "$data_port"
  --budget "$budget" --unscheduled-budget 1048576 --link-capacity 100 --unscheduled-limit 65536
  --start-jitter 10 --backlog-threshold 1048576 --grant-lifetime 50000 --credit-unit 4096
  --d-max "$d_max" --base-rtt 10 --grant-window 262144 --unscheduled-dscp 8)
# A long Lifetime: a capture sees when the receiver sent a grant, not when the sender read it
# (docs/spec-notes.md, "A tester on real sockets does not see when a grant was read"), and a
# loaded host may read it late. Grants of 256 KiB, below the 1 MiB message (a sender beyond its
# grant has room to show it), at the receiver's 100 Mbit/s, far below the sender's 10 Gbit/s line
# rate (a sender ignoring its Pacing Rate sends at its line rate). At 100 Mbit/s the pacing
# window (ten Credit Units) is 3.3 ms, long beside the scheduling delays of a loaded 2-core host,
# which at 1 Gbit/s (0.3 ms) could bunch a burst the pacer released on time with the next.

# capture NAME SENDER-OPTIONS...: a receiver and one sender (three messages: 1 MiB and 256 KiB
# scheduled, 2 KiB unscheduled), captured on lo; the sender's exit line in $work/NAME.sender.
# A capture in which dumpcap itself dropped packets ("Packets received/dropped on interface ...:
# N/D" with D > 0) is no record of what the nodes sent: it is taken again, up to three times.
capture() {
  local attempt
  for attempt in 1 2 3; do
    capture_once "$@" || return 1
    local dropped
    dropped=$(sed -n 's/.*received\/dropped on interface .*: [0-9]*\/\([0-9]*\).*/\1/p' \
      "$work/$1.dumpcap" | head -n 1)
    [ "${dropped:-0}" -eq 0 ] && return 0
    echo "  dumpcap dropped $dropped packets of capture $1 (try $attempt): capturing again" >&2
  done
  return 1
}

capture_once() {
  local name=$1
  shift
  local receiver_extra=()
  while [ "${1:-}" = --receiver-option ]; do
    receiver_extra+=("$2")
    shift 2
  done
  dumpcap -q -B 64 -i lo -f "udp and (port $rdcc_port or port $data_port)" -w "$work/$name.pcapng" \
    2>"$work/$name.dumpcap" &
  local dumpcap=$!
  pids+=("$dumpcap")
  wait_for "$work/$name.dumpcap" "Capturing on" || return 1
  # dumpcap says "Capturing on" before it has opened the interface and set the filter; it
  # creates the file after both. Packets sent in between are lost (seen: the first capture of a
  # run empty, 0 packets, three times in a row).
  local i
  for i in $(seq 1 500); do
    [ -s "$work/$name.pcapng" ] && break
    sleep 0.02
  done
  [ -s "$work/$name.pcapng" ] || { echo "  dumpcap wrote no file in 10 s" >&2; return 1; }
  "$rdcc" receiver "${receiver_params[@]}" "${receiver_extra[@]}" 2>"$work/$name.receiver" &
  local receiver=$!
  pids+=("$receiver")
  wait_for "$work/$name.receiver" '"event":"ready"' || return 1
  timeout 30 "$rdcc" sender --address 127.0.0.2 --rdcc-port "$rdcc_port" --data-port "$data_port" \
    --line-rate 10000 --unscheduled-dscp 8 --to "127.0.0.1:$rdcc_port" \
    --send 1048576 --send 262144 --send 2048 --exit-when-done --timeout 5000 "$@" \
    2>"$work/$name.sender"
  kill -TERM "$receiver"
  wait "$receiver"
  # dumpcap writes what it has and exits on SIGINT; a moment first for the last packets (a whole
  # second: on a loaded host dumpcap may not have read the kernel's buffer yet, and a capture
  # that misses the last packets fails the counts below).
  sleep 1
  kill -INT "$dumpcap"
  wait "$dumpcap"
  test -s "$work/$name.pcapng"
}

# The slack: a burst the sender's pacer released on time may leave its socket a little late on
# a loaded host (docs/spec-notes.md, "Pacing is averaged over ten Credit Units: a late wake-up is
# made up, within that window"); 200 us is less than a Credit Unit at 100 Mbit/s.
check_args=(--port "$rdcc_port" --data-port "$data_port" --budget "$budget" --d-max "$d_max"
  --capture-slack 200)

