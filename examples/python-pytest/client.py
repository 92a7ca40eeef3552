"""A tiny client of the Messages API with a plain HTTP client (the standard library's urllib):
the code under test in this example. It retries 429 and 529 answers after their retry-after."""

import json
import time
import urllib.error
import urllib.request


class Client:
    def __init__(self, base_url, api_key, headers=None, max_retries=2):
        self.base_url = base_url.rstrip("/")
        self.headers = {"x-api-key": api_key, "content-type": "application/json", **(headers or {})}
        self.max_retries = max_retries

    def ask(self, text, model="assistant-opus-4-7", max_tokens=64):
        """Send one user message; answer the text of the reply."""
        body = json.dumps({"model": model, "max_tokens": max_tokens,
                           "messages": [{"role": "user", "content": text}]}).encode()
        for attempt in range(self.max_retries + 1):
            req = urllib.request.Request(self.base_url + "/v1/messages", data=body, headers=self.headers, method="POST")
            try:
                with urllib.request.urlopen(req, timeout=30) as resp:
                    msg = json.load(resp)
                    return "".join(b["text"] for b in msg["content"] if b["type"] == "text")
            except urllib.error.HTTPError as e:
                if e.code not in (429, 529) or attempt == self.max_retries:
                    raise
                time.sleep(float(e.headers.get("retry-after", "1")))
        raise AssertionError("unreachable")
