#!/bin/sh
# make litellm: installs the LiteLLM proxy (requirements.txt, pinned) into a virtual environment
# under the user's cache directory (platformkit/venvs/, as the packaging tests keep theirs; one
# per requirements file and Python, made again when either changes, under flock), and runs the
# conformance suite against it as an operator would (URL, key, label filter), twice: with its
# built-in mock (mock.yaml), and in front of the fake (upstream.yaml). Reports go to
# $REPORTS/litellm-mock and $REPORTS/litellm-upstream. It ends with the two summary lines; it
# fails only when a run could not be made, not on what LiteLLM does not conform to.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reports=${REPORTS:-$root/reports}
case $reports in /*) ;; *) reports=$root/$reports ;; esac
python=${PYTHON:-python3}
command -v "$python" >/dev/null || { echo "litellm: python3 is not installed"; exit 1; }
tmp=$(mktemp -d)
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

. "$here/../venv.sh"
venv litellm "$here/requirements.txt" "$python" litellm

go build -o "$tmp/platformfake" "$root/fake/cmd/platformfake"
go test -c -o "$tmp/conformance.test" "$root/conformance"

FAKE_ADDR=127.0.0.1:$(free_port); export FAKE_ADDR
"$tmp/platformfake" -addr "$FAKE_ADDR" -quiet >"$tmp/fake.log" 2>&1 & pids="$pids $!"
wait_for "http://$FAKE_ADDR/_fake/health"

summaries=
for config in mock upstream; do
	port=$(free_port)
	sed "s|\${FAKE_ADDR}|$FAKE_ADDR|g" "$here/$config.yaml" >"$tmp/$config.yaml"
	"$venv/bin/litellm" --config "$tmp/$config.yaml" --host 127.0.0.1 --port "$port" >"$tmp/litellm-$config.log" 2>&1 & pid=$!
	pids="$pids $pid"
	wait_for "http://127.0.0.1:$port/health/liveliness" || { tail -20 "$tmp/litellm-$config.log"; exit 1; }
	echo "== make litellm: LiteLLM ($config.yaml) on 127.0.0.1:$port"
	mkdir -p "$reports/litellm-$config"
	# As docs/operators.md says: the URL, the key, the label filter; nothing else.
	CONFORMANCE_BASE_URL=http://127.0.0.1:$port CONFORMANCE_API_KEY=sk-conformance-master CONFORMANCE_REPORTS=$reports/litellm-$config \
		"$tmp/conformance.test" -test.count=1 -test.timeout=30m -test.run='^TestConformance$' -ginkgo.label-filter='messages || models' \
		| tee "$tmp/$config.out" | grep -v '^•' || true
	summaries="$summaries
$config: $(grep '^conformance: [0-9]' "$tmp/$config.out" | tail -1)"
	kill "$pid" 2>/dev/null || true
	curl -s -X POST "http://$FAKE_ADDR/_fake/reset" >/dev/null
done
echo "== make litellm: the two runs (reports in $reports/litellm-mock and $reports/litellm-upstream)$summaries"
