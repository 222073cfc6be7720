#!/usr/bin/env bash
# The HTML report and the interop matrix in a real browser: headless Chromium, the network
# disabled (every host name unresolvable, every proxy connection refused), loads the pages that
# conformance_html_report wrote into OUT; the DOM it built is checked (html_dom_check.py: every
# scenario present; a failing scenario's ladder highlights its cited frames and the expected
# message, and its requirement's sentence is quoted; the matrix has a linked cell per verdict),
# and screenshots are saved next to them (OUT/index.png: the report of the failing scenario
# alone; OUT/matrix.png).
# Without chromium the test is skipped (exit 77), saying why; scripts/setup.sh installs it.
# Usage: html_browser_test.sh SOURCE_DIR OUT
set -uo pipefail
src=$1
out=$2
. "$src/tools/test/lib.sh"

browser=""
for b in "${RDCC_CHROMIUM:-}" chromium chromium-browser google-chrome; do
  if [ -n "$b" ] && command -v "$b" >/dev/null 2>&1; then
    browser=$b
    break
  fi
done
if [ -z "$browser" ]; then
  echo "SKIP: no chromium on the PATH (Debian package chromium; scripts/setup.sh installs it)"
  exit 77
fi
if [ ! -s "$out/mutant/index.html" ] || [ ! -s "$out/matrix/matrix.html" ]; then
  echo "FAIL: no report in $out (conformance_html_report writes it; run it first)"
  exit 1
fi

# One browser process at a time, each with its own profile; generous timeouts for a loaded
# host. The flags keep it off the network: a page that loaded anything would fail to.
browse() {  # browse OUTPUT-FLAG URL
  local profile
  profile=$(mktemp -d "$work/profile.XXXXXX")
  timeout 180 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --no-first-run --no-default-browser-check --disable-extensions --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$profile" \
    --proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND" \
    "$@" 2>>"$work/browser.err"
}

failing=receiver-grant-final-within-length
check "index.html in the browser" browse --dump-dom "file://$out/mutant/index.html" >"$work/index.dom"
check "index DOM" python3 "$src/conformance/test/html_dom_check.py" report "$work/index.dom" \
  "$out/mutant/results.json" "$src/conformance/catalog/requirements.json" "$failing"
check "matrix in the browser" browse --dump-dom "file://$out/matrix/matrix.html" >"$work/matrix.dom"
check "matrix DOM" python3 "$src/conformance/test/html_dom_check.py" matrix "$work/matrix.dom" \
  "$out/matrix" 5
rm -f "$out/index.png" "$out/matrix.png"
(cd "$work" && browse --window-size=1400,1500 --screenshot="$out/index.png" "file://$out/one/index.html" >/dev/null)
check "index screenshot saved" test -s "$out/index.png"
(cd "$work" && browse --window-size=1600,800 --screenshot="$out/matrix.png" "file://$out/matrix/matrix.html" >/dev/null)
check "matrix screenshot saved" test -s "$out/matrix.png"
if [ "$failures" -ne 0 ]; then
  echo "browser's standard error:" >&2
  grep -v -e dbus -e 'unexpected operator' "$work/browser.err" | tail -20 >&2
fi
echo "screenshots: $out/index.png $out/matrix.png"
finish html_browser
