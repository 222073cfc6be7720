# The reference node of one role as an exec: IUT (sourced by udp_suite_test.sh and
# exec_kill_matrix_test.sh; needs $role and $rdcc): sets $iut, $strict, $receiver_opts and
# $sender_class_opts.
strict=
# The reference IUT's configuration (docs/scenario-language.md, "The reference IUT"), as options.
receiver_opts="--address 127.0.0.1 --budget 4194304 --unscheduled-budget 1048576 \
--link-capacity 100000 --unscheduled-limit 65536 --start-jitter 10 --backlog-threshold 1048576 \
--grant-lifetime 1000 --credit-unit 4096 --d-max 20 --base-rtt 10 --rtt-target 50 \
--crn 127.0.0.1 --unscheduled-dscp 8 --events /dev/stderr"
# The reference IUT's domain tells its Traffic Classes apart (what its hello says as "class_dscp").
sender_class_opts="--class-dscp 0,10,18,26,34,12,20,40"
case "$role" in
  receiver)
    # --strict: the MAY-level scenarios too (idle associations removed), and a failed SHOULD fails.
    strict=--strict
    iut="exec:$rdcc receiver $receiver_opts --rdcc-port {rdcc_port} --data-port {data_port} \
--rocev2 --rocev2-port {rocev2_port} --upper-tester stdio {config}" ;;
  sender)
    iut="exec:$rdcc sender --address 127.0.0.1 --rdcc-port {rdcc_port} \
--data-port {tester_data_port} --line-rate 100000 --crn 127.0.0.1 --unscheduled-dscp 8 \
$sender_class_opts --upper-tester stdio --events /dev/stderr" ;;
  crn)
    # The tester is the flow's sender and receiver: data comes in on {data_port}, leaves for
    # {tester_data_port} at 100 Mbit/s, and reports go to the tester's RDCC port (the domain's
    # RDCC port here); the CRN's own address is 127.0.0.2. No --strict: a CRN's scenarios run by
    # default (docs/spec-notes.md, "A CRN's scenarios run by default").
    iut="exec:$rdcc crn --address 127.0.0.2 --rdcc-port {tester_port} --listen 127.0.0.1:{data_port} \
--forward-to 127.0.0.1:{tester_data_port} --reporter-id 9 --service-rate 100 \
--queue-threshold 65536 --queue-capacity 1048576 --unscheduled-dscp 8 --upper-tester stdio \
--events /dev/stderr {config}" ;;
  *) echo "unknown role $role" >&2; exit 2 ;;
esac

