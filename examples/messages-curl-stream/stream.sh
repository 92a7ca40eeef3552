#!/bin/sh
# Streams a message from the Messages API with curl and prints the server-sent events as they
# arrive. Against the fake: go run ./fake/cmd/platformfake & sh examples/messages-curl-stream/stream.sh
set -eu
BASE_URL="${BASE_URL:-http://127.0.0.1:4010}"
API_KEY="${API_KEY:-test-api-key}"

curl --silent --show-error --fail-with-body --no-buffer "$BASE_URL/v1/messages" \
  --header "X-Api-Key: $API_KEY" \
  --header "vendor-version: 2023-06-01" \
  --header "Content-Type: application/json" \
  --data '{
    "model": "assistant-sonnet-4-5",
    "max_tokens": 64,
    "stream": true,
    "messages": [{"role": "user", "content": "Say hello in a few words."}]
  }'
