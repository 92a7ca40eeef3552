#!/bin/sh
# make thirdparty: runs the conformance suite against two implementations of the Messages API
# that nobody here wrote, installed pinned from PyPI into the user's cache (../venv.sh), as an
# operator would (URL, key, label filter; docs/operators.md, "More implementations"):
#   - mockllm (mockllm.txt), a mock server: it lists no models, so once with the URL and the key
#     alone, and once with CONFORMANCE_MODEL naming a model it answers;
#   - local-openai2anthropic (oa2a.txt, Python 3.12 or later), a proxy that serves the Messages
#     API over an OpenAI-format upstream, here LiteLLM's built-in mock (../litellm/).
# Reports go to $REPORTS/thirdparty-*. It ends with the summary lines; it fails only when a run
# could not be made, not on what the implementations do not conform to.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reports=${REPORTS:-$root/reports}
case $reports in /*) ;; *) reports=$root/$reports ;; esac
python=${PYTHON:-python3}
command -v "$python" >/dev/null || { echo "thirdparty: python3 is not installed"; exit 1; }
# local-openai2anthropic needs Python 3.12 or later: PYTHON312, else the first found.
is312() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; }
python312=${PYTHON312:-}
if [ -z "$python312" ]; then
	for p in python3.14 python3.13 python3.12 "$python" $(ls -d "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.1[2-9]*/bin/python 2>/dev/null); do
		if is312 "$p"; then python312=$p; break; fi
	done
fi
[ -n "$python312" ] || { echo "thirdparty: local-openai2anthropic needs Python 3.12 or later (PYTHON312 names one)"; exit 1; }
tmp=$(mktemp -d)
pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT INT TERM

. "$here/../venv.sh"
venv mockllm "$here/mockllm.txt" "$python" uvicorn; mockllm=$venv
venv oa2a "$here/oa2a.txt" "$python312" oa2a; oa2a=$venv
venv litellm "$here/../litellm/requirements.txt" "$python" litellm; litellm=$venv

go test -c -o "$tmp/conformance.test" "$root/conformance"

summaries=
# run NAME URL KEY [VAR=value...]: the suite as docs/operators.md says, the URL, the key, the
# label filter, and only the variables given.
run() {
	name=$1 url=$2 key=$3; shift 3
	echo "== make thirdparty: $name ($url)"
	mkdir -p "$reports/thirdparty-$name"
	env "$@" CONFORMANCE_BASE_URL="$url" CONFORMANCE_API_KEY="$key" CONFORMANCE_REPORTS="$reports/thirdparty-$name" \
		"$tmp/conformance.test" -test.count=1 -test.timeout=30m -test.run='^TestConformance$' -ginkgo.label-filter='messages || models' \
		| tee "$tmp/$name.out" | grep -v '^•' || true
	summaries="$summaries
$name: $(grep '^conformance: [0-9]' "$tmp/$name.out" | tail -1)"
}

port=$(free_port)
(cd "$tmp" && MOCKLLM_RESPONSES_FILE="$here/mockllm.yml" exec "$mockllm/bin/python" -m uvicorn mockllm.server:app --host 127.0.0.1 --port "$port") >"$tmp/mockllm.log" 2>&1 & pids="$pids $!"
wait_for "http://127.0.0.1:$port/providers" || { tail -20 "$tmp/mockllm.log"; exit 1; }
run mockllm "http://127.0.0.1:$port" sk-any
run mockllm-model "http://127.0.0.1:$port" sk-any CONFORMANCE_MODEL=claude-3-haiku-20240307

lport=$(free_port)
"$litellm/bin/litellm" --config "$here/../litellm/mock.yaml" --host 127.0.0.1 --port "$lport" >"$tmp/litellm.log" 2>&1 & pids="$pids $!"
wait_for "http://127.0.0.1:$lport/health/liveliness" || { tail -20 "$tmp/litellm.log"; exit 1; }
port=$(free_port)
mkdir -p "$tmp/home/.oa2a"
sed -e "s|\${LITELLM_PORT}|$lport|" -e "s|\${PORT}|$port|" "$here/oa2a.toml" >"$tmp/home/.oa2a/config.toml"
# Its count_tokens loads tiktoken's cl100k_base, which tiktoken downloads at first use; LiteLLM
# ships that file, so a machine without the internet counts too.
tokenizers=$(find "$litellm" -type d -path '*/litellm_core_utils/tokenizers' | head -1)
HOME=$tmp/home TIKTOKEN_CACHE_DIR=$tokenizers "$oa2a/bin/oa2a" >"$tmp/oa2a.log" 2>&1 & pids="$pids $!"
wait_for "http://127.0.0.1:$port/health" || { tail -20 "$tmp/oa2a.log"; exit 1; }
run oa2a "http://127.0.0.1:$port" sk-oa2a-conformance

echo "== make thirdparty: the runs (reports in $reports/thirdparty-*)$summaries"
