// @platformkit/fake: the platformfake binary of this platform, and a helper that starts it and
// gives each test a namespace of its own. No runtime dependencies; Node 18 or later (fetch).
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');

/** The fake's default credentials, and the version header every API request needs. */
const API_KEY = 'test-api-key';
const ADMIN_API_KEY = 'test-admin-key';
const VERSION_HEADER = Object.freeze({ 'vendor-version': '2023-06-01' });

// The package that carries each platform's binary, by process.platform and process.arch.
const PLATFORM_PACKAGES = {
  'linux x64': '@platformkit/fake-linux-x64',
  'linux arm64': '@platformkit/fake-linux-arm64',
  'darwin x64': '@platformkit/fake-darwin-x64',
  'darwin arm64': '@platformkit/fake-darwin-arm64',
  'win32 x64': '@platformkit/fake-win32-x64',
  'win32 arm64': '@platformkit/fake-win32-arm64',
};

/** A control call the fake refused: its status, and the error envelope's type and message. */
class FakeError extends Error {
  constructor(method, path, status, type, message) {
    super(`${method} ${path}: ${status} ${type}: ${message}`);
    this.name = 'FakeError';
    this.status = status;
    this.type = type;
    this.detail = message;
  }
}

/**
 * The platformfake binary to run: $PLATFORMFAKE_BINARY, else the one of this platform's package,
 * which npm installed as an optional dependency.
 */
function binaryPath() {
  if (process.env.PLATFORMFAKE_BINARY) return process.env.PLATFORMFAKE_BINARY;
  const key = `${process.platform} ${process.arch}`;
  const pkg = PLATFORM_PACKAGES[key];
  if (!pkg) {
    throw new Error(`@platformkit/fake: no platformfake binary is published for ${key} ` +
      `(there are: ${Object.keys(PLATFORM_PACKAGES).join(', ')}); set PLATFORMFAKE_BINARY to one you built ` +
      '(go build ./fake/cmd/platformfake)');
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(`@platformkit/fake: ${pkg}, which carries the binary for ${key}, is not installed. ` +
      'npm installs it as an optional dependency: reinstall without --omit=optional (or --no-optional), ' +
      'or set PLATFORMFAKE_BINARY to a platformfake binary');
  }
  return path.join(dir, 'bin', process.platform === 'win32' ? 'platformfake.exe' : 'platformfake');
}

const NAME_UNSAFE = /[^A-Za-z0-9._-]+/g;
let counter = 0;

/**
 * A namespace name from any label (a test's name): the fake's alphabet, at most 64 characters,
 * made unique in this process so that two tests with the same name never share a namespace.
 */
function namespaceName(label) {
  const suffix = `-${process.pid}-${++counter}`;
  const base = String(label ?? '').replace(NAME_UNSAFE, '-').replace(/^[-.]+|[-.]+$/g, '') || 'test';
  return base.slice(0, 64 - suffix.length) + suffix;
}

// call sends a JSON request and answers the decoded body, or throws a FakeError.
async function call(base, method, path, body) {
  const resp = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await resp.text();
  if (!resp.ok) {
    let type = 'unknown';
    let message = text;
    try {
      ({ type, message } = JSON.parse(text).error);
    } catch {
      // not the error envelope: keep the raw text
    }
    throw new FakeError(method, path, resp.status, type, message);
  }
  return JSON.parse(text);
}

/** One test's namespace of a server: its API at baseURL, and the control calls that reach only it. */
class Namespace {
  constructor(serverURL, name) {
    if (typeof name !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(name) || name === '.' || name === '..') {
      throw new TypeError(`namespace name ${JSON.stringify(name)}: want 1 to 64 of A-Z a-z 0-9 . _ -, neither . nor ..`);
    }
    this.name = name;
    this.serverURL = serverURL;
    this.baseURL = `${serverURL}/ns/${name}`;
    this.apiKey = API_KEY;
    this.adminApiKey = ADMIN_API_KEY;
    this.headers = { ...VERSION_HEADER };
  }

  reset() { return call(this.baseURL, 'POST', '/_fake/reset'); }
  now() { return call(this.baseURL, 'GET', '/_fake/clock').then((c) => c.now); }
  advanceClock(seconds) { return call(this.baseURL, 'POST', '/_fake/clock/advance', { seconds }); }
  addStub(stub) { return call(this.baseURL, 'POST', '/_fake/messages/stubs', stub); }
  injectFault(fault) { return call(this.baseURL, 'POST', '/_fake/faults', fault); }
  rateLimits() { return call(this.baseURL, 'GET', '/_fake/rate_limits'); }
  setRateLimits(enforce) { return call(this.baseURL, 'PUT', '/_fake/rate_limits', { enforce }); }
  retryAfterScale() { return call(this.baseURL, 'GET', '/_fake/retry_after').then((r) => r.scale); }
  setRetryAfterScale(scale) { return call(this.baseURL, 'PUT', '/_fake/retry_after', { scale }).then((r) => r.scale); }
  batchPace() { return call(this.baseURL, 'GET', '/_fake/batch_pace').then((r) => r.seconds); }
  setBatchPace(seconds) { return call(this.baseURL, 'PUT', '/_fake/batch_pace', { seconds }).then((r) => r.seconds); }

  async journal(params = {}) {
    const query = new URLSearchParams();
    for (const key of ['limit', 'after_id', 'before_id']) {
      if (params[key] !== undefined) query.set(key, String(params[key]));
    }
    const qs = query.toString();
    return (await call(this.baseURL, 'GET', '/_fake/journal' + (qs ? '?' + qs : ''))).data;
  }

  clearJournal() { return call(this.baseURL, 'DELETE', '/_fake/journal').then((c) => c.cleared); }
  clearFaults() { return call(this.baseURL, 'DELETE', '/_fake/faults').then((c) => c.cleared); }
  clearStubs() { return call(this.baseURL, 'DELETE', '/_fake/messages/stubs').then((c) => c.cleared); }
  cache() { return call(this.baseURL, 'GET', '/_fake/cache').then((c) => c.data); }
  clearCache() { return call(this.baseURL, 'DELETE', '/_fake/cache').then((c) => c.cleared); }

  /** Drops the namespace from its server (a test's teardown); a later request starts it afresh. */
  delete() {
    return call(this.serverURL, 'DELETE', `/_fake/namespaces/${encodeURIComponent(this.name)}`).then((c) => c.cleared);
  }
}

/** A platformfake server: one started by startFake, or one already running (connect). */
class FakeServer {
  constructor(baseURL, child) {
    this.baseURL = baseURL.replace(/\/+$/, '');
    this._child = child;
    this._onExit = undefined;
  }

  /** A namespace of this server: name, or a fresh unique one (namespaceName(label) names one after a test). */
  namespace(name) {
    return new Namespace(this.baseURL, name ?? namespaceName('ns'));
  }

  /** The namespaces the server keeps, most recently used first. */
  namespaces() { return call(this.baseURL, 'GET', '/_fake/namespaces'); }

  /** Waits until GET /_fake/health answers ok. */
  async waitHealthy(timeoutMs = 10000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        if ((await call(this.baseURL, 'GET', '/_fake/health')).status === 'ok') return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
      }
      if (Date.now() > deadline) throw new Error(`${this.baseURL}/_fake/health did not answer ok within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Stops a server startFake started, gracefully (its stdin ends, which it stops on, on every
   * platform; SIGKILL after timeoutMs); a no-op otherwise.
   */
  async stop(timeoutMs = 10000) {
    const child = this._child;
    this._child = undefined;
    if (!child) return;
    process.removeListener('exit', this._onExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.end();
    let timer;
    const late = new Promise((resolve) => { timer = setTimeout(() => resolve('late'), timeoutMs); });
    if ((await Promise.race([exited, late])) === 'late') {
      child.kill('SIGKILL');
      await exited;
    }
    clearTimeout(timer);
  }
}

/**
 * Starts platformfake on a free loopback port, waits until it is healthy, and answers the server.
 * The process does not keep Node alive, and never outlives it, however Node ends (kill -9
 * included): its stdin is a pipe only this process holds, and it stops when the pipe closes
 * (-exit-on-stdin-eof). With $PLATFORMFAKE_URL set nothing is started: the server running there
 * is answered (args, binary and log do not apply to it), and its stop() leaves it running.
 */
async function startFake(options = {}) {
  const { args = [], log = false, startTimeoutMs = 10000 } = options;
  if (process.env.PLATFORMFAKE_URL) {
    const server = connect(process.env.PLATFORMFAKE_URL);
    await server.waitHealthy(startTimeoutMs);
    return server;
  }
  const bin = options.binary ?? binaryPath();
  const argv = ['-addr', '127.0.0.1:0', '-exit-on-stdin-eof', ...(log ? [] : ['-quiet']), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, argv, { stdio: ['pipe', 'pipe', log ? 'inherit' : 'pipe'] });
    child.stdin.on('error', () => {}); // a pipe the child closed first: nothing to tell
    let out = '';
    let errText = '';
    let settled = false;
    const fail = (why) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${bin} ${argv.join(' ')}: ${why}${errText.trim() ? ': ' + errText.trim() : ''}`));
    };
    const timer = setTimeout(() => fail(`did not start within ${startTimeoutMs} ms`), startTimeoutMs);
    child.on('error', (err) => fail(err.message));
    child.on('exit', (code, signal) => fail(`exited (${signal ?? 'status ' + code}) before it served`));
    child.stderr?.on('data', (b) => { if (errText.length < 65536) errText += b; });
    child.stdout.on('data', (b) => {
      out += b;
      const nl = out.indexOf('\n');
      if (nl < 0 || settled) return;
      const line = out.slice(0, nl).trim();
      if (!line.startsWith('listening on ')) {
        fail(`first line ${JSON.stringify(line)}, want "listening on http://ADDR"`);
        return;
      }
      settled = true;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      // From here on nothing of the child's keeps Node alive: a test runner exits when its tests do.
      child.unref();
      child.stdin.unref?.();
      child.stdout.unref?.();
      child.stderr?.unref?.();
      const server = new FakeServer(line.slice('listening on '.length), child);
      server._onExit = () => child.kill('SIGKILL');
      process.once('exit', server._onExit);
      server.waitHealthy(startTimeoutMs).then(() => resolve(server), async (err) => {
        await server.stop();
        reject(err);
      });
    });
  });
}

/**
 * A server already running: baseURL, else $PLATFORMFAKE_URL (which a test runner's global setup
 * sets for its workers).
 */
function connect(baseURL = process.env.PLATFORMFAKE_URL) {
  if (!baseURL) throw new Error('@platformkit/fake: connect() needs a base URL, or PLATFORMFAKE_URL set by a global setup that started the fake');
  return new FakeServer(baseURL);
}

module.exports = {
  API_KEY, ADMIN_API_KEY, VERSION_HEADER, FakeError, FakeServer, Namespace,
  binaryPath, namespaceName, startFake, connect,
};
