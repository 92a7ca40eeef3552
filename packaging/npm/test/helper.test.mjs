// The installed @platformkit/fake, as a user's test run meets it: run with node --test in a
// project that installed the packed tarballs. ESM importing the CommonJS package, as a Vitest or
// modern Jest suite does.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
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
  const ns = connect().namespace();
  assert.equal((await ns.reset()).now, '2026-01-01T00:00:00Z');
  await connect().stop(); // not its to stop: the server still serves
  assert.equal((await ns.advanceClock(1)).now, '2026-01-01T00:00:01Z');
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
