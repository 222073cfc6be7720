#!/usr/bin/env bash
# The plots of `rdcc sim --svg` and `rdcc pcap stats --svg` (one module, tools/src/plot.cpp),
# read back as XML by xmllint and checked as a person would look at them: a receiver named
# `rx<1>&co` escaped, axes in human units (no tick of raw octets), every label inside the
# picture, the queue in a panel of its own, markers for a restart, CRN reports and drops (sim)
# and for a new epoch and ERRORs (capture). And their pages (--html): well-formed XHTML that
# loads nothing (no script, link, src, url()), with the tables, credit against G, the queue,
# goodput per sender and the markers; where chromium is installed, loaded by it offline.
#
# Usage: plot_test.sh RDCC_BINARY SOURCE_DIR
set -u
rdcc=$1
src=$2
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || { echo "FAIL: xmllint not found (scripts/setup.sh installs libxml2-utils)"; exit 1; }

# texts FILE: every <text> as "x<TAB>anchor<TAB>font-size<TAB>content", via xmllint.
texts() {
  xmllint --xpath '//*[local-name()="text"]' "$1" 2>/dev/null |
    sed 's#</text>#</text>\n#g' |
    sed -n 's#.*<text x="\([0-9.-]*\)" y="[0-9.-]*" text-anchor="\([a-z]*\)"\([^>]*\)>\(.*\)</text>#\1\t\2\t\3\t\4#p' |
    awk -F'\t' '{ size = 12; if (match($3, /font-size="[0-9]+"/)) size = substr($3, RSTART + 11, RLENGTH - 12)
                  print $1 "\t" $2 "\t" size "\t" $4 }'
}
# inside FILE: no text reaches beyond the picture's width (each character at most 0.6 em wide).
inside() {
  local width
  width=$(xmllint --xpath 'string(/*[local-name()="svg"]/@width)' "$1")
  texts "$1" | awk -F'\t' -v W="$width" '
    { n = length($4); gsub(/&[a-z]+;/, "x", $4); n = length($4); w = n * $3 * 0.6
      if ($2 == "start") { a = $1; b = $1 + w } else if ($2 == "end") { a = $1 - w; b = $1 }
      else { a = $1 - w / 2; b = $1 + w / 2 }
      if (a < 0 || b > W) { print "clipped: " $0; bad = 1 } }
    END { exit bad }'
}
# human FILE: every axis label is 0 or a number with a unit (B, KiB, MiB, ns, µs, ms, s).
human() {
  texts "$1" | awk -F'\t' '$2 != "start" && $4 !~ /=/ && $4 !~ /^(0|[0-9.]+ (B|KiB|MiB|GiB|ns|µs|ms|s)(\/s)?)$/ { print "raw: " $0; bad = 1 } END { exit bad }'
}

jq '.receivers[0].name = "rx<1>&co" | .crn.queue_threshold = 8192 | .queue.capacity = 20000' \
  "$src/docs/examples/sim/crn-restart.json" >"$work/rx.json"
check "sim --svg" run 0 "$rdcc" sim "$work/rx.json" --svg "$work/sim.svg"
check "sim: well-formed XML (xmllint)" xmllint --noout "$work/sim.svg"
check "sim: the name escaped" contains "$work/sim.svg" "rx&lt;1&gt;&amp;co (10.0.0.2:50000): credit outstanding against G"
check "sim: no raw name" lacks "$work/sim.svg" "rx<1>"
check "sim: the queue in its own panel" contains "$work/sim.svg" "rx&lt;1&gt;&amp;co (10.0.0.2:50000): switch queue</text>"
check "sim: G in human units" contains "$work/sim.svg" ">G = 4 MiB</text>"
check "sim: axes in human units" human "$work/sim.svg"
check "sim: time axis in ms" contains "$work/sim.svg" ">1 ms</text>"
check "sim: no label clipped" inside "$work/sim.svg"
check "sim: restart marked" contains "$work/sim.svg" "restart rx&lt;1&gt;&amp;co (epoch 2)"
check "sim: CRN reports marked" grep -q ">CRN report ([0-9]*)</text>" "$work/sim.svg"
check "sim: drops marked" grep -q ">drop ([0-9]*)</text>" "$work/sim.svg"

check "pcap stats --svg" run 0 "$rdcc" pcap stats --port 50000 --data-port 50001 \
  "$src/pcaps/sim_restart.pcap" --svg "$work/stats.svg"
check "stats: well-formed XML (xmllint)" xmllint --noout "$work/stats.svg"
check "stats: axes in human units" human "$work/stats.svg"
check "stats: time axis in µs" contains "$work/stats.svg" ">50 µs</text>"
check "stats: no label clipped" inside "$work/stats.svg"
check "stats: the new epoch marked" contains "$work/stats.svg" ">epoch 2 at 10.0.0.2:50000</text>"
check "stats: ERRORs marked" contains "$work/stats.svg" ">ERROR (2)</text>"
check "stats: outstanding in its own panel" contains "$work/stats.svg" "receiver 10.0.0.2:50000: credit outstanding</text>"
check "stats --svg to an unwritable path: exit 2, named" run 2 "$rdcc" pcap stats --port 50000 \
  "$src/pcaps/sim_restart.pcap" --svg /nonexistent/x.svg
check "stats: the path named" contains "$work/err" "/nonexistent/x.svg: cannot be written"

# The pages (--html).
# offline FILE: nothing in the page refers to anything outside it.
offline() {
  ! grep -qiE '<script|<link|<img|<iframe|src=|href=|@import|url\(' "$1" &&
    test "$(grep -o 'https\?://[^"]*' "$1" | sort -u | tr '\n' ' ')" = \
      "http://www.w3.org/1999/xhtml http://www.w3.org/2000/svg "
}
check "sim --html" run 0 "$rdcc" sim "$work/rx.json" --html "$work/sim.html"
check "sim page: well-formed XHTML (xmllint)" xmllint --noout "$work/sim.html"
check "sim page: self-contained" offline "$work/sim.html"
check "sim page: the outcome table" contains "$work/sim.html" "<caption>Messages</caption>"
check "sim page: the abort and its cause" contains "$work/sim.html" "<td>cancelled by the description&apos;s actions</td>"
check "sim page: credit against G" contains "$work/sim.html" ">G = 4 MiB</text>"
check "sim page: the queue" contains "$work/sim.html" "(10.0.0.2:50000): switch queue</text>"
check "sim page: goodput per sender" contains "$work/sim.html" ">goodput per sender (message data delivered)</text>"
check "sim page: eight senders' lines" test "$(grep -c '>sender-[0-7]</text>' "$work/sim.html")" -eq 8
check "sim page: goodput in human units" grep -q '>[0-9.]* [KMG]iB/s</text>' "$work/sim.html"
check "sim page: markers" contains "$work/sim.html" "restart rx&lt;1&gt;&amp;co (epoch 2)"
check "stats --html" run 0 "$rdcc" pcap stats --port 50000 --data-port 50001 -G 1MiB \
  "$src/pcaps/sim_incast_crn.pcap" --html "$work/stats.html"
check "stats page: well-formed XHTML (xmllint)" xmllint --noout "$work/stats.html"
check "stats page: self-contained" offline "$work/stats.html"
check "stats page: credit outstanding against G" contains "$work/stats.html" "credit outstanding against G</text>"
check "stats page: G" contains "$work/stats.html" ">G = 1 MiB</text>"
check "stats page: goodput of the 8 senders" test "$(grep -c '>sender 10.0.0.[0-9]*:50000</text>' "$work/stats.html")" -eq 8
reports=$("$rdcc" pcap stats --port 50000 --data-port 50001 "$src/pcaps/sim_incast_crn.pcap" --json 2>/dev/null |
  jq '.receivers[0].packets.CONGESTION_REPORT')
check "stats page: CRN reports marked ($reports in the capture)" contains "$work/stats.html" ">CRN report ($reports)</text>"
if command -v chromium >/dev/null; then
  # A real browser, offline: the page renders its tables and the plot's panels.
  timeout 60 chromium --headless --no-sandbox --disable-gpu --proxy-server=127.0.0.1:9 \
    --dump-dom "file://$work/stats.html" >"$work/dom.html" 2>/dev/null
  check "chromium: the page's DOM" contains "$work/dom.html" "<caption>Receivers</caption>"
  check "chromium: the plot in it" test "$(grep -o '<polyline' "$work/dom.html" | wc -l)" -ge 11
else
  echo "chromium not installed: the page is not loaded in a browser (xmllint only)"
fi

finish plot_test
