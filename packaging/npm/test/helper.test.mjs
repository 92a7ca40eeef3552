// The installed @platformkit/fake, as a user's test run meets it: run with node --test in a
// project that installed the packed tarballs. ESM importing the CommonJS package, as a Vitest or
// modern Jest suite does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { API_KEY, FakeError, binaryPath, connect, namespaceName, startFake } from '@platformkit/fake';

const MESSAGE = { model: 'assistant-opus-4-7', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };

// postMessage sends POST /v1/messages in ns with fetch: [status, body].
async function postMessage(ns) {
  const resp = await fetch(`${ns.baseURL}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': ns.apiKey, 'content-type': 'application/json', ...ns.headers },
    body: JSON.stringify(MESSAGE),
  });
  return [resp.status, await resp.json()];
}

let server;
before(async () => { server = await startFake(); });
after(async () => { await server.stop(); });

test('the binary is the platform package\'s, found through node_modules', () => {
  const require = createRequire(import.meta.url);
  const pkgDir = realpathSync(require.resolve(`@platformkit/fake-${process.platform}-${process.arch}/package.json`).replace(/package\.json$/, ''));
  assert.ok(realpathSync(binaryPath()).startsWith(pkgDir), `${binaryPath()} is not in ${pkgDir}`);
});

test('the licence the packages declare is the one they carry', () => {
  const require = createRequire(import.meta.url);
  for (const pkg of ['@platformkit/fake', `@platformkit/fake-${process.platform}-${process.arch}`]) {
    const manifest = require.resolve(`${pkg}/package.json`);
    assert.equal(require(manifest).license, 'MIT', pkg);
    assert.match(readFileSync(manifest.replace(/package\.json$/, 'LICENSE'), 'utf8'), /^MIT License\n/, pkg);
  }
});

test('npx platformfake runs the binary', () => {
  const out = execFileSync('npx', ['--offline', '--no-install', 'platformfake', '-version'], { encoding: 'utf8' });
  assert.match(out, /^platformfake \d+\.\d+\.\d+/);
});

test('two namespaces at once: a stub in one, a fault in the other', async () => {
  const a = server.namespace(namespaceName('helper test'));
  const b = server.namespace(namespaceName('helper test'));
  assert.notEqual(a.name, b.name);
  const stub = await a.addStub({ replies: [{ content: [{ type: 'text', text: 'scripted for a' }] }] });
  assert.match(stub.id, /^stub_/);
  const fault = await b.injectFault({ path: '/v1/messages', status: 529, retry_after: 3 });
  assert.match(fault.id, /^fault_/);

  const [[statusA, bodyA], [statusB, bodyB]] = await Promise.all([postMessage(a), postMessage(b)]);
  assert.equal(statusA, 200);
  assert.equal(bodyA.content[0].text, 'scripted for a');
  assert.equal(statusB, 529);
  assert.equal(bodyB.error.type, 'overloaded_error');

  const [status, msg] = await postMessage(b);
  assert.equal(status, 200);
  assert.equal(msg.id, 'msg_010000000000000000000001');
  assert.deepEqual((await b.journal()).map((e) => e.status), [529, 200]);
  assert.equal((await a.journal()).length, 1);
  assert.equal((await b.journal({ limit: 1 }))[0].status, 529);

  assert.equal(await a.now(), '2026-01-01T00:00:00Z');
  assert.equal((await a.advanceClock(3600)).now, '2026-01-01T01:00:00Z');
  assert.equal(await b.now(), '2026-01-01T00:00:00Z');
  assert.equal((await a.reset()).now, '2026-01-01T00:00:00Z');
  assert.deepEqual(await a.journal(), []);

  // Rate limits: on in a only, one request taken from its organization's bucket.
  assert.equal((await a.setRateLimits(true)).enforce, true);
  await postMessage(a);
  const requests = (await a.rateLimits()).buckets.find((k) => k.limiter === 'requests_per_minute');
  assert.equal(requests.remaining, 3999);
  assert.equal((await b.rateLimits()).enforce, false);

  assert.ok((await server.namespaces()).data.some((n) => n.name === a.name));
  assert.equal(await a.delete(), 1);
  assert.ok(!(await server.namespaces()).data.some((n) => n.name === a.name));
  await b.delete();
});

test('connect reaches a server a global setup started, through PLATFORMFAKE_URL', async () => {
  process.env.PLATFORMFAKE_URL = server.baseURL;
  try {
    const ns = connect().namespace();
    assert.equal((await ns.reset()).now, '2026-01-01T00:00:00Z');
    await connect().stop(); // not its to stop: the server still serves
    assert.equal((await ns.advanceClock(1)).now, '2026-01-01T00:00:01Z');
  } finally {
    delete process.env.PLATFORMFAKE_URL;
  }
});

test('a refusal is a FakeError naming the field', async () => {
  const ns = server.namespace();
  await assert.rejects(ns.injectFault({ status: 418 }), (err) => {
    assert.ok(err instanceof FakeError);
    assert.equal(err.status, 400);
    assert.equal(err.type, 'invalid_request_error');
    assert.match(err.detail, /status/);
    return true;
  });
  assert.throws(() => server.namespace('has space'), TypeError);
  assert.equal(API_KEY, 'test-api-key');
});

test('namespace names fit the fake\'s alphabet and length', () => {
  const name = namespaceName(`suite > test [a b/${'z'.repeat(80)}]`);
  assert.ok(name.length <= 64, name);
  assert.match(name, /^suite-test-a-b-z+-\d+-\d+$/);
  assert.match(namespaceName('...'), /^test-\d+-\d+$/);
});

test('a server that cannot start says why', async () => {
  await assert.rejects(startFake({ args: ['-max-namespaces', '0'] }), /-max-namespaces: want at least 1/);
});

test('stop ends the process', async () => {
  const other = await startFake();
  const pid = other._child.pid;
  await other.stop();
  assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  await assert.rejects(fetch(`${other.baseURL}/_fake/health`));
});

test('startFake uses the server at PLATFORMFAKE_URL, and its stop leaves it running', async () => {
  process.env.PLATFORMFAKE_URL = server.baseURL;
  try {
    const same = await startFake({ args: ['-max-namespaces', '0'] }); // flags would fail a new server
    assert.equal(same.baseURL, server.baseURL);
    assert.equal(same._child, undefined);
    await same.stop();
    assert.equal((await fetch(`${server.baseURL}/_fake/health`)).status, 200);
  } finally {
    delete process.env.PLATFORMFAKE_URL;
  }
});

test('the retry-after scale of a namespace', async () => {
  const ns = server.namespace();
  assert.equal(await ns.retryAfterScale(), 1);
  assert.equal(await ns.setRetryAfterScale(0.001), 0.001);
  await ns.injectFault({ path: '/v1/messages', status: 429, retry_after: 2 });
  const resp = await fetch(`${ns.baseURL}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': ns.apiKey, 'content-type': 'application/json', ...ns.headers },
    body: JSON.stringify(MESSAGE),
  });
  assert.deepEqual([resp.status, resp.headers.get('retry-after-ms'), resp.headers.get('retry-after'), resp.headers.get('fake-retry-after-ms')],
    [429, '2', '1', '2000']);
  await assert.rejects(ns.setRetryAfterScale(0), (err) => err instanceof FakeError && err.status === 400 && /^scale: /.test(err.detail));
});

test('the batch pace of a namespace', async () => {
  const ns = server.namespace();
  assert.equal(await ns.batchPace(), 0.1);
  assert.equal(await ns.setBatchPace(2), 2);
  const resp = await fetch(`${ns.baseURL}/v1/messages/batches`, {
    method: 'POST',
    headers: { 'x-api-key': ns.apiKey, 'content-type': 'application/json', ...ns.headers },
    body: JSON.stringify({ requests: [{ custom_id: 'a', params: MESSAGE }, { custom_id: 'b', params: MESSAGE }] }),
  });
  const batch = await resp.json();
  await ns.advanceClock(3.9); // two requests at 2 s end 4 s after creation
  const status = async () => (await (await fetch(`${ns.baseURL}/v1/messages/batches/${batch.id}`, {
    headers: { 'x-api-key': ns.apiKey, ...ns.headers },
  })).json()).processing_status;
  assert.equal(await status(), 'in_progress');
  await ns.advanceClock(0.1);
  assert.equal(await status(), 'ended');
  await assert.rejects(ns.setBatchPace(-1), (err) => err instanceof FakeError && err.status === 400 && /^seconds: /.test(err.detail));
});

// A Node process that starts the fake with the helper (or through the platformfake command),
// prints where it listens, and waits to be killed.
const PARENT = `
const { startFake } = require('@platformkit/fake');
startFake().then((s) => { console.log(s.baseURL); setInterval(() => {}, 1000); });
`;

async function portOpen(baseURL) {
  const { hostname, port } = new URL(baseURL);
  return new Promise((resolve) => {
    const sock = net.connect({ host: hostname, port: Number(port) });
    sock.once('connect', () => { sock.destroy(); resolve(true); });
    sock.once('error', () => resolve(false));
  });
}

for (const how of ['startFake()', 'platformfake command']) {
  test(`kill -9 of the Node process that started the fake (${how}) closes its port within a second`, { skip: process.platform === 'win32' }, async () => {
    const env = { ...process.env };
    delete env.PLATFORMFAKE_URL;
    const parent = how === 'startFake()'
      ? spawn(process.execPath, ['-e', PARENT], { env, stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn(process.execPath, [createRequire(import.meta.url).resolve('@platformkit/fake/package.json').replace(/package\.json$/, 'bin/platformfake.js'), '-addr', '127.0.0.1:0', '-quiet'],
        { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise((resolve) => {
      let out = '';
      parent.stdout.on('data', (b) => { out += b; if (out.includes('\n')) resolve(out.split('\n')[0].trim()); });
    });
    const baseURL = line.replace(/^listening on /, '');
    assert.match(baseURL, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(await portOpen(baseURL));
    const exited = new Promise((resolve) => parent.once('exit', resolve));
    parent.kill('SIGKILL');
    await exited;
    const killed = Date.now();
    while (await portOpen(baseURL)) {
      assert.ok(Date.now() - killed < 1000, `the fake at ${baseURL} outlived its parent by a second`);
      await new Promise((r) => setTimeout(r, 20));
    }
  });
}
