// Types of @platformkit/fake. The control API's request and response types (FaultRequest, Fault,
// StubRequest, Stub, Journal, Clock, ...) are generated from the fake's OpenAPI document of it.
import type { CacheList, Clock, Fault, FaultRequest, Journal, NamespaceList, RateLimits, Stub, StubRequest } from './control';

export * from './control';

/** The fake's default API key (messages, models, memory stores, environments, work queue). */
export declare const API_KEY: 'test-api-key';
/** The fake's default administration key. */
export declare const ADMIN_API_KEY: 'test-admin-key';
/** The version header every API request needs. */
export declare const VERSION_HEADER: Readonly<{ 'vendor-version': '2023-06-01' }>;

/** A control call the fake refused. */
export declare class FakeError extends Error {
  /** The HTTP status (400 for a body the fake refuses). */
  readonly status: number;
  /** The error envelope's type, e.g. invalid_request_error. */
  readonly type: string;
  /** The error envelope's message, which names the offending field. */
  readonly detail: string;
}

/** The entries of a journal page. */
export type JournalEntry = Journal['data'][number];

/** Which page of the journal to read: all of it when empty. */
export interface JournalParams {
  /** 1 to 10,000. */
  limit?: number;
  after_id?: string;
  before_id?: string;
}

/** One test's namespace of a server: its own data, virtual clock, ID counters, journal, faults and stubs. */
export declare class Namespace {
  constructor(serverURL: string, name: string);
  readonly name: string;
  readonly serverURL: string;
  /** The base URL to give a client: `${serverURL}/ns/${name}`. */
  readonly baseURL: string;
  readonly apiKey: typeof API_KEY;
  readonly adminApiKey: typeof ADMIN_API_KEY;
  /** The headers to add to every API request (the version header). */
  readonly headers: { 'vendor-version': '2023-06-01' };
  /** Back to the fixtures: data, clock, ID counters, journal, faults and stubs. */
  reset(): Promise<Clock>;
  /** The virtual time, RFC 3339. */
  now(): Promise<string>;
  /** Moves the virtual clock forward: 0 to 100 years, fractions allowed. */
  advanceClock(seconds: number): Promise<Clock>;
  /** Scripts the replies of the next matching POST /v1/messages. */
  addStub(stub: StubRequest): Promise<Stub>;
  /** Makes matching API requests fail (status, latency, a dropped connection, a cut stream). */
  injectFault(fault: FaultRequest): Promise<Fault>;
  /** Whether the namespace enforces rate limits, and its buckets' levels. */
  rateLimits(): Promise<RateLimits>;
  /** Turns rate-limit enforcement on (every bucket full) or off, in this namespace. */
  setRateLimits(enforce: boolean): Promise<RateLimits>;
  /** The namespace's retry-after scale: 1 sends the true waits. */
  retryAfterScale(): Promise<number>;
  /**
   * Makes 429s and 529s ask for `scale` times their wait in retry-after-ms and retry-after (the
   * true wait in fake-retry-after-ms), and moves the virtual clock by the true wait when an
   * official SDK's retry arrives: 0.001 makes an SDK's default retry of a rate limit take
   * milliseconds. More than 0, at most 1, in whole millionths. Returns the scale set.
   */
  setRetryAfterScale(scale: number): Promise<number>;
  /** The virtual seconds each request of the namespace's message batches takes: 0.1 until set. */
  batchPace(): Promise<number>;
  /**
   * Makes each request of the message batches the namespace creates from now on take `seconds`
   * of virtual time (0 to 86400; 0 ends a batch at once), unless the create request sends
   * Fake-Batch-Pace. Returns the pace set.
   */
  setBatchPace(seconds: number): Promise<number>;
  /** The API requests the namespace answered, oldest first. */
  journal(params?: JournalParams): Promise<JournalEntry[]>;
  clearJournal(): Promise<number>;
  clearFaults(): Promise<number>;
  clearStubs(): Promise<number>;
  /** The live prompt-cache entries (prefix length, TTL, expiry, hits), soonest expiry first. */
  cache(): Promise<CacheList['data']>;
  /** Drops every prompt-cache entry; answers how many were live. */
  clearCache(): Promise<number>;
  /** Drops the namespace from its server (a test's teardown). Answers 1, or 0 if it was not there. */
  delete(): Promise<number>;
}

/** A platformfake server: started by startFake, or already running (connect). */
export declare class FakeServer {
  constructor(baseURL: string);
  /** e.g. http://127.0.0.1:40123 */
  readonly baseURL: string;
  /** A namespace of this server: name, or a fresh unique one. */
  namespace(name?: string): Namespace;
  /** The namespaces the server keeps, most recently used first. */
  namespaces(): Promise<NamespaceList>;
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Stops a server startFake started (its stdin ends; SIGKILL after timeoutMs); does nothing for connect's or PLATFORMFAKE_URL's. */
  stop(timeoutMs?: number): Promise<void>;
}

export interface StartOptions {
  /** More flags: ['-wall-clock'], ['-fixtures', dir], ['-max-namespaces', '5000'], ... */
  args?: string[];
  /** Let the request log through to this process's stderr (default: -quiet). */
  log?: boolean;
  /** The binary to run instead of this platform's package's (or $PLATFORMFAKE_BINARY). */
  binary?: string;
  /** How long to wait for it to serve and be healthy (default 10,000). */
  startTimeoutMs?: number;
}

/**
 * Starts platformfake on a free loopback port and waits until it is healthy. It never outlives
 * this process, however it ends. With $PLATFORMFAKE_URL set, nothing is started: the server
 * running there is answered, and its stop() leaves it running.
 */
export declare function startFake(options?: StartOptions): Promise<FakeServer>;
/** A server already running at baseURL, else at $PLATFORMFAKE_URL. */
export declare function connect(baseURL?: string): FakeServer;
/** The platformfake binary startFake runs. */
export declare function binaryPath(): string;
/** A unique namespace name made from any label, such as a test's name. */
export declare function namespaceName(label?: string): string;
