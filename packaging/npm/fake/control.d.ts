// The types of the fake's test-control API, generated from schemas/openapi-control.json
// by go run ./internal/tsgen: do not edit.

/** GET and PUT /_fake/batch_pace: the pace of the message batches a server or namespace creates (fake only) */
export type BatchPace = {
  /** The virtual seconds each request of a batch takes, one after the other: a batch of n requests ends n × seconds after its creation (0: at once). It applies to the batches created afterwards without a Fake-Batch-Pace header, which overrides it for its own batch; 0.1 until set, and again after POST /_fake/reset. */
  seconds: number;
};

/** GET /_fake/cache: the live prompt-cache entries of the server or namespace, soonest expiry first (fake only) */
export type CacheList = {
  data: Array<{
    /** The start of the request that wrote the entry (virtual clock). */
    created_at: CommonTimestamp;
    /** The start of the request that last wrote or read the entry, plus its TTL: at this instant it is gone. */
    expires_at: CommonTimestamp;
    /** How many requests have read the entry. */
    hits: number;
    /** The first 12 bytes of the prefix hash, in hex: the same prefix has the same key. */
    key: string;
    /** The model the entry is for (aliases resolved). */
    model: string;
    /** The organization of the credential that wrote the entry. */
    organization_id: string;
    /** The input tokens of the prefix, from the start of the request through the breakpoint. */
    prefix_tokens: number;
    ttl: "5m" | "1h";
    /** The workspace of that credential; null for the default workspace. */
    workspace_id: string | null;
  }>;
};

/** DELETE /_fake/journal, /_fake/faults, /_fake/cache, /_fake/namespaces and /_fake/namespaces/{name}: how many entries were removed (fake only) */
export type Cleared = {
  cleared: number;
};

/** The virtual clock: GET /_fake/clock, POST /_fake/clock/advance, POST /_fake/reset (test-control API, fake only) */
export type Clock = {
  now: CommonTimestamp;
};

/** Request body of POST /_fake/clock/advance (fake only) */
export type ClockAdvanceRequest = {
  /** How far to move the virtual clock: 0 to 100 years. */
  seconds: number;
};

/** An injected fault: POST /_fake/faults answers it (test-control API: fault injection, fake only) */
export type Fault = {
  drop_connection: boolean;
  id: string;
  latency_ms: number;
  method: string;
  path: string;
  retry_after: number;
  status: 0 | 400 | 401 | 402 | 403 | 404 | 413 | 429 | 500 | 504 | 529;
  stream_events: number;
  times: number;
};

/** GET /_fake/faults: the faults not yet used up, in the order they apply (fake only) */
export type FaultList = {
  data: Array<Fault>;
};

/** Request body of POST /_fake/faults: the fault to inject (fake only) */
export type FaultRequest = {
  drop_connection?: boolean;
  /** Wait this long (real time) before answering. */
  latency_ms?: number;
  /** Match only this method; empty matches every method. */
  method?: string;
  /** An exact request path, or a prefix followed by "*"; empty matches every path. */
  path?: string;
  /** Seconds, for a 429 or 529, in whole milliseconds; absent: 1. Sent exactly as retry-after-ms, and as retry-after in whole seconds rounded up; 0 sends 0. */
  retry_after?: number;
  /** Answer with this status and the envelope of its error type; 0 serves the request. */
  status?: 0 | 400 | 401 | 402 | 403 | 404 | 413 | 429 | 500 | 504 | 529;
  /** Cut a streamed answer after this many events. */
  stream_events?: number;
  /** How many requests it applies to (0 or absent: 1). */
  times?: number;
};

/** GET /_fake/health (test-control API, fake only) */
export type Health = {
  status: "ok";
};

/** GET /_fake/journal: the API requests answered, oldest first, paged with limit and after_id or before_id (test-control API: the request journal, fake only) */
export type Journal = {
  data: Array<{
    /** The API version whose rules answered the request (anthropic-version or vendor-version); empty when the request named none the fake serves, or its interface takes none. */
    api_version: "" | "2023-06-01" | "2026-10-21";
    at: CommonTimestamp;
    /** For one request of a message batch, journaled as the POST /v1/messages it is (with the create request's headers; its request_id is the create request's, a slash and the custom_id): the batch's ID and the request's custom_id; null for a request a client sent. */
    batch: (null | {
      custom_id: string;
      id: string;
    });
    /** The JSON request body, or null when there was none, it was not JSON or it was over 64 KiB. */
    body: unknown;
    body_bytes: number;
    /** The header that carried the accepted credential (its name only, never its value); empty when none was accepted. */
    credential_header: "" | "x-api-key" | "authorization";
    credential_id: string;
    error_type: string;
    fault: boolean;
    headers: CommonStringMap;
    interface: string;
    method: string;
    path: string;
    query: string;
    /** The limit that refused the request with a 429 while rate limits are enforced (PUT /_fake/rate_limits): organization or workspace, the rate-limit group's ID and the limiter type, e.g. "workspace rlg_0123 input_tokens_per_minute"; "" if none did. */
    rate_limit: string;
    request_id: string;
    /** The session events the request appended, in order, by ID and type (list the session's events for the rest): the user events a POST /v1/sessions/{id}/events sent (a worker's tool results among them) and the status it moved the session to; on a turn's model request, the events its turn emitted from its span.model_request_start on (the answer's agent events, span.model_request_end, the status that follows). null when it appended none. At most 1,000: past that, truncated names "session_events". */
    session_events: (null | Array<{
      id: string;
      type: string;
    }>);
    /** On a Messages request the fake made itself for a turn of a session's agent (POST /v1/messages, journaled after the send that made it run, with a request_id of its own), the session's ID; "" on every request a client sent. */
    session_id: string;
    status: number;
    /** The ID of the stub (POST /_fake/messages/stubs) whose reply answered, or "". */
    stub: string;
    /** When no stub answered a Create a Message request but one nearly matched (every clause of its match held but one), the stub's ID and the clause that did not hold, as the answer's Fake-Stub-Near-Miss header names them, e.g. stub_2: user_text_contains "Hello" not in "hello there" (case-sensitive); "" otherwise. */
    stub_near_miss: string;
    /** The message thread a Messages request named (beta message-threads-2026-08-12): its type, and for a continue the reply it continues; null without one. */
    thread: (null | {
      previous_message_id: string | null;
      type: "create" | "continue";
    });
    /** What the entry shortened or left out to stay bounded: path and query (cut to 4 KiB), headers.NAME (a value cut to 1 KiB), headers (headers beyond 16 KiB left out), body (over 64 KiB, recorded as null), session_events (past 1,000). */
    truncated: Array<string>;
    valid: boolean;
  }>;
  first_id: string | null;
  has_more: boolean;
  last_id: string | null;
};

/** GET /_fake/namespaces: the namespaces, most recently used first, and how many the server keeps (fake only) */
export type NamespaceList = {
  /** Most recently used first: the last is the next to be dropped when a new namespace would exceed max. */
  data: Array<{
    /** On the wall clock. */
    created_at: CommonTimestamp;
    /** On the wall clock. */
    last_used_at: CommonTimestamp;
    name: string;
    /** HTTP requests served in the namespace, control calls included. */
    requests: number;
  }>;
  max: number;
};

/** GET and PUT /_fake/rate_limits: whether rate limits are enforced, and the buckets requests have used (fake only) */
export type RateLimits = {
  /** Every bucket a request has used since enforcement was turned on or the server reset, by scope, owner, group and limiter; a bucket not listed is full. */
  buckets: Array<{
    /** The rate-limit group's ID (group.id of GET /v1/organizations/rate_limits). */
    group: string;
    /** The limit per minute the bucket was last used with: its capacity; it refills limit/60 a second. */
    limit: number;
    limiter: "requests_per_minute" | "input_tokens_per_minute" | "output_tokens_per_minute";
    /** The organization's UUID, or the workspace's ID. */
    owner: string;
    /** Whole tokens (or requests) it holds now, not rounded; below 0 while an answer's output went past what was left. */
    remaining: number;
    /** When it is full again, on the server's clock. */
    reset: CommonTimestamp;
    scope: "organization" | "workspace";
  }>;
  enforce: boolean;
};

/** Request body of PUT /_fake/rate_limits (fake only) */
export type RateLimitsRequest = {
  /** true enforces the organizations' and workspaces' rate limits on Messages, count_tokens and Completions in this server or namespace, every bucket starting full; false stops it and forgets the buckets. Setting the state it already has changes nothing. */
  enforce: boolean;
};

/** GET and PUT /_fake/retry_after: the retry-after scale of a server or namespace (fake only) */
export type RetryAfterScale = {
  /** What 429s and 529s ask a client to wait, as a fraction of the wait on the virtual clock, in whole millionths: retry-after-ms and retry-after say the wait times the scale (at least 1 ms), fake-retry-after-ms the true wait, and an official SDK's retry (x-stainless-retry-count above 0) moves the virtual clock to the end of the true wait. 1 (the default) sends the true waits and moves nothing. */
  scale: number;
};

/** Error envelope (spec 7, gaps §1) */
export type ErrorEnvelope = {
  error: {
    /** The machine-readable cause, where the platform names one (message threads: thread_not_found, thread_already_continued, thread_continue_in_flight, thread_fingerprint_mismatch, thread_unsupported_request). Absent on every other error. */
    details?: {
      error_code: string;
      /** With thread_unsupported_request: the fields or settings that threads do not support. */
      unsupported?: Array<string> | null;
    };
    message: string;
    type: "invalid_request_error" | "authentication_error" | "billing_error" | "permission_error" | "not_found_error" | "request_too_large" | "rate_limit_error" | "timeout_error" | "api_error" | "overloaded_error" | "memory_precondition_failed_error" | "memory_path_conflict_error";
  };
  request_id: string;
  type: "error";
};

/** A registered stub: POST /_fake/messages/stubs answers it (fake only) */
export type Stub = {
  forever: boolean;
  id: string;
  match: MessagesStubRequestMatch;
  replies: Array<{
    content: Array<MessagesMessageWrittenContentBlock>;
    stop_details: MessagesMessageStopDetails;
    stop_reason: "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal" | "model_context_window_exceeded";
    stop_sequence: string | null;
  }>;
  /** Replies served so far; the next is replies[served % len(replies)]. */
  served: number;
  /** 0 with forever */
  times: number;
};

/** GET /_fake/messages/stubs: the stubs not yet used up, in the order they are tried (fake only) */
export type StubList = {
  data: Array<Stub>;
};

/** POST /_fake/messages/stubs: a scripted reply, or a sequence of replies, for the next matching Create a Message requests (fake only) */
export type StubRequest = {
  /** Serve the sequence over and over until the stubs are cleared; excludes times. */
  forever?: boolean;
  match?: MessagesStubRequestMatch;
  /** Served in order, one per matching request. */
  replies: Array<MessagesStubRequestReply>;
  /** Passes through the sequence before the stub is used up (default 1). */
  times?: number;
};

/** An RFC 3339 timestamp (spec: Conventions). */
export type CommonTimestamp = string;

/** A map of string to string (metadata, tags). */
export type CommonStringMap = { [key: string]: string };

/** Every rule given must hold; none matches every request. */
export type MessagesStubRequestMatch = {
  model?: string;
  tool_name?: string;
  user_text_contains?: string;
};

/** A content block as a stub or a scenario writes it: a content_block, except that a tool_use block may leave out caller, which the fake answers as {"type": "direct"} (as it answers a text block written without citations with citations: null). */
export type MessagesMessageWrittenContentBlock = (MessagesMessageWrittenToolUseBlock | MessagesMessageWrittenTextBlock | MessagesMessageContentBlock);

export type MessagesMessageStopDetails = (null | {
  category: "cyber" | "bio" | null;
  explanation: string | null;
  type: "refusal";
});

/** A message without the fields the server fills in when it serves it (id, model, usage); type and role may be given and must be the message's. */
export type MessagesStubRequestReply = {
  content: Array<MessagesMessageWrittenContentBlock>;
  role?: "assistant";
  stop_details?: MessagesMessageStopDetails;
  /** Default: tool_use when content holds a tool_use block, else end_turn. */
  stop_reason?: "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal" | "model_context_window_exceeded";
  stop_sequence?: string | null;
  type?: "message";
};

export type MessagesMessageWrittenToolUseBlock = {
  caller?: MessagesMessageCaller;
  id: string;
  input: { [key: string]: unknown };
  name: string;
  type: "tool_use";
};

export type MessagesMessageWrittenTextBlock = {
  citations?: (null | Array<MessagesMessageCitation>);
  text: string;
  type: "text";
};

export type MessagesMessageContentBlock = (MessagesMessageTextBlock | MessagesMessageThinkingBlock | MessagesMessageRedactedThinkingBlock | MessagesMessageToolUseBlock | MessagesMessageServerToolUseBlock | MessagesMessageWebSearchToolResultBlock | MessagesMessageWebFetchToolResultBlock | MessagesMessageCodeExecutionToolResultBlock | MessagesMessageBashCodeExecutionToolResultBlock | MessagesMessageTextEditorCodeExecutionToolResultBlock | MessagesMessageToolSearchToolResultBlock | MessagesMessageContainerUploadBlock | MessagesMessageMcpToolUseBlock | MessagesMessageMcpToolResultBlock);

export type MessagesMessageCaller = ({
  type: "direct";
} | {
  tool_id: string;
  type: "code_execution_20250825" | "code_execution_20260120";
});

export type MessagesMessageCitation = (MessagesMessageCharLocation | MessagesMessagePageLocation | MessagesMessageContentBlockLocation | MessagesMessageWebSearchResultLocation | MessagesMessageSearchResultLocation);

/** citations is always answered: null when the block cites nothing (the official SDKs decode it as a required, nullable field). */
export type MessagesMessageTextBlock = {
  citations: (null | Array<MessagesMessageCitation>);
  text: string;
  type: "text";
};

export type MessagesMessageThinkingBlock = {
  signature: string;
  thinking: string;
  type: "thinking";
};

export type MessagesMessageRedactedThinkingBlock = {
  data: string;
  type: "redacted_thinking";
};

export type MessagesMessageToolUseBlock = {
  caller: MessagesMessageCaller;
  id: string;
  input: { [key: string]: unknown };
  name: string;
  type: "tool_use";
};

export type MessagesMessageServerToolUseBlock = {
  caller: MessagesMessageCaller;
  id: string;
  input: { [key: string]: unknown };
  name: MessagesMessageServerToolName;
  type: "server_tool_use";
};

export type MessagesMessageWebSearchToolResultBlock = {
  caller: MessagesMessageCaller;
  content: MessagesMessageWebSearchContent;
  tool_use_id: string;
  type: "web_search_tool_result";
};

export type MessagesMessageWebFetchToolResultBlock = {
  caller: MessagesMessageCaller;
  content: MessagesMessageWebFetchContent;
  tool_use_id: string;
  type: "web_fetch_tool_result";
};

export type MessagesMessageCodeExecutionToolResultBlock = {
  content: MessagesMessageCodeExecutionContent;
  tool_use_id: string;
  type: "code_execution_tool_result";
};

export type MessagesMessageBashCodeExecutionToolResultBlock = {
  content: MessagesMessageBashContent;
  tool_use_id: string;
  type: "bash_code_execution_tool_result";
};

export type MessagesMessageTextEditorCodeExecutionToolResultBlock = {
  content: MessagesMessageTextEditorContent;
  tool_use_id: string;
  type: "text_editor_code_execution_tool_result";
};

export type MessagesMessageToolSearchToolResultBlock = {
  content: MessagesMessageToolSearchContent;
  tool_use_id: string;
  type: "tool_search_tool_result";
};

export type MessagesMessageContainerUploadBlock = {
  file_id: string;
  type: "container_upload";
};

/** (beta mcp-client-2025-11-20) A call of a tool of one of the request's mcp_servers, which the server makes. */
export type MessagesMessageMcpToolUseBlock = {
  id: string;
  input: { [key: string]: unknown };
  name: string;
  server_name: string;
  type: "mcp_tool_use";
};

/** (beta mcp-client-2025-11-20) What the MCP server answered to the mcp_tool_use tool_use_id. */
export type MessagesMessageMcpToolResultBlock = {
  content: (string | Array<{
    text: string;
    type: "text";
  }>);
  is_error: boolean;
  tool_use_id: string;
  type: "mcp_tool_result";
};

export type MessagesMessageCharLocation = {
  cited_text: string;
  document_index: MessagesMessageIndex;
  document_title: MessagesMessageNullableString;
  end_char_index: MessagesMessageIndex;
  file_id: MessagesMessageNullableString;
  start_char_index: MessagesMessageIndex;
  type: "char_location";
};

export type MessagesMessagePageLocation = {
  cited_text: string;
  document_index: MessagesMessageIndex;
  document_title: MessagesMessageNullableString;
  end_page_number: number;
  file_id: MessagesMessageNullableString;
  start_page_number: number;
  type: "page_location";
};

export type MessagesMessageContentBlockLocation = {
  cited_text: string;
  document_index: MessagesMessageIndex;
  document_title: MessagesMessageNullableString;
  end_block_index: number;
  file_id: MessagesMessageNullableString;
  start_block_index: MessagesMessageIndex;
  type: "content_block_location";
};

export type MessagesMessageWebSearchResultLocation = {
  cited_text: string;
  encrypted_index: string;
  title: MessagesMessageNullableString;
  type: "web_search_result_location";
  url: string;
};

export type MessagesMessageSearchResultLocation = {
  cited_text: string;
  end_block_index: number;
  search_result_index: MessagesMessageIndex;
  source: string;
  start_block_index: MessagesMessageIndex;
  title: MessagesMessageNullableString;
  type: "search_result_location";
};

export type MessagesMessageServerToolName = "web_search" | "web_fetch" | "code_execution" | "bash_code_execution" | "text_editor_code_execution" | "tool_search_tool_regex" | "tool_search_tool_bm25";

export type MessagesMessageWebSearchContent = (MessagesMessageWebSearchError | Array<MessagesMessageWebSearchResult>);

export type MessagesMessageWebFetchContent = (MessagesMessageWebFetchError | MessagesMessageWebFetchResult);

export type MessagesMessageCodeExecutionContent = ({
  error_code: MessagesMessageExecutionErrorCode;
  type: "code_execution_tool_result_error";
} | {
  content: MessagesMessageOutputFiles;
  return_code: number;
  stderr: string;
  stdout: string;
  type: "code_execution_result";
} | {
  content: MessagesMessageOutputFiles;
  encrypted_stdout: string;
  return_code: number;
  stderr: string;
  type: "encrypted_code_execution_result";
});

export type MessagesMessageBashContent = ({
  error_code: "invalid_tool_input" | "unavailable" | "too_many_requests" | "execution_time_exceeded" | "output_file_too_large";
  type: "bash_code_execution_tool_result_error";
} | {
  content: MessagesMessageOutputFiles;
  return_code: number;
  stderr: string;
  stdout: string;
  type: "bash_code_execution_result";
});

export type MessagesMessageTextEditorContent = ({
  error_code: "invalid_tool_input" | "unavailable" | "too_many_requests" | "execution_time_exceeded" | "file_not_found";
  error_message: MessagesMessageNullableString;
  type: "text_editor_code_execution_tool_result_error";
} | {
  content: string;
  file_type: "text" | "image" | "pdf";
  num_lines: number | null;
  start_line: number | null;
  total_lines: number | null;
  type: "text_editor_code_execution_view_result";
} | {
  is_file_update: boolean;
  type: "text_editor_code_execution_create_result";
} | {
  lines: Array<string> | null;
  new_lines: number | null;
  new_start: number | null;
  old_lines: number | null;
  old_start: number | null;
  type: "text_editor_code_execution_str_replace_result";
});

export type MessagesMessageToolSearchContent = ({
  error_code: MessagesMessageExecutionErrorCode;
  error_message: MessagesMessageNullableString;
  type: "tool_search_tool_result_error";
} | {
  tool_references: Array<{
    tool_name: string;
    type: "tool_reference";
  }>;
  type: "tool_search_tool_search_result";
});

export type MessagesMessageIndex = number;

export type MessagesMessageNullableString = string | null;

export type MessagesMessageWebSearchError = {
  error_code: "invalid_tool_input" | "unavailable" | "max_uses_exceeded" | "too_many_requests" | "query_too_long" | "request_too_large";
  type: "web_search_tool_result_error";
};

export type MessagesMessageWebSearchResult = {
  encrypted_content: string;
  page_age: MessagesMessageNullableString;
  title: string;
  type: "web_search_result";
  url: string;
};

export type MessagesMessageWebFetchError = {
  error_code: "invalid_tool_input" | "url_too_long" | "url_not_allowed" | "url_not_accessible" | "unsupported_content_type" | "too_many_requests" | "max_uses_exceeded" | "unavailable";
  type: "web_fetch_tool_result_error";
};

export type MessagesMessageWebFetchResult = {
  content: MessagesMessageFetchedDocument;
  retrieved_at: (null | CommonTimestamp);
  type: "web_fetch_result";
  url: string;
};

export type MessagesMessageExecutionErrorCode = "invalid_tool_input" | "unavailable" | "too_many_requests" | "execution_time_exceeded";

export type MessagesMessageOutputFiles = Array<{
  file_id: string;
  type: "code_execution_output" | "bash_code_execution_output";
}>;

export type MessagesMessageFetchedDocument = {
  citations: {
    enabled: boolean;
  };
  source: ({
    data: string;
    media_type: "application/pdf";
    type: "base64";
  } | {
    data: string;
    media_type: "text/plain";
    type: "text";
  });
  title: MessagesMessageNullableString;
  type: "document";
};
