// The official TypeScript SDK's environment worker, unmodified, serving a managed-agents session
// of a self-hosted environment against the platformkit fake, end to end: the session is created
// (which queues its work item), the SDK's EnvironmentWorker polls and acks the item, heartbeats,
// reads the session, streams and lists its events, runs the agent's bash call (pwd) in a scratch
// folder with the SDK's own agent toolset, posts the result, which the agent answers with its
// final message, and stops the item when the session has been idle for maxIdleMs.
//
// The worker is configured as the SDK documents it: the environment's ID and key, a workdir.
// From the polled item's secret it takes the per-item sessions token, and the program checks in
// the fake's journal that the item's heartbeats, its stop and the session's reads went with it.
//
//	cd examples/typescript-sdk && npm ci && npm run build
//	PLATFORMFAKE_BINARY=$(go env GOPATH)/bin/platformfake node dist/worker.js
import Anthropic from '@anthropic-ai/sdk';
import { connect, startFake } from '@platformkit/fake';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const server = process.env['BASE_URL'] ? connect(process.env['BASE_URL']) : await startFake();
const nsURL = `${server.baseURL}/ns/${process.env['NAMESPACE'] ?? 'typescript-sdk-worker'}`;
const environmentId = 'env_01AcmePrimary000000000001'; // the fixtures' self-hosted environment
const environmentKey = 'test-environment-key'; // its key, as its worker holds it

const client = new Anthropic({ baseURL: nsURL, apiKey: 'test-api-key' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  const agent = await client.beta.agents.create({
    name: 'proof',
    model: { id: 'assistant-sonnet-4-5' },
    tools: [{ type: 'agent_toolset_20260401' }],
  });
  const session = await client.beta.sessions.create({ agent: agent.id, environment_id: environmentId });
  await client.beta.sessions.events.send(session.id, {
    events: [{ type: 'user.message', content: [{ type: 'text', text: 'Where are you?' }] }],
  });
  await fetch(`${nsURL}/_fake/journal`, { method: 'DELETE' });

  const workdir = mkdtempSync(join(tmpdir(), 'platformkit-ts-worker-'));
  const stop = new AbortController();
  const started = performance.now();
  const worker = new Anthropic({ baseURL: nsURL, apiKey: 'unused' }).beta.environments.work.worker({
    environmentId,
    environmentKey,
    workdir,
    maxIdleMs: 200,
    signal: stop.signal,
  });
  const running = worker.run().catch((e: unknown) => e);
  let item: any;
  for (let i = 0; i < 100 && item?.state !== 'stopped'; i++) {
    await sleep(50);
    for await (const it of client.beta.environments.work.list(environmentId, { limit: 100 })) {
      if (it.data.id === session.id) item = it;
    }
  }
  const elapsed = performance.now() - started;
  // What the worker sent, before this program's own reads below join the journal.
  const journal: any[] = (await (await fetch(`${nsURL}/_fake/journal`)).json()).data;
  stop.abort();
  const failure = await running;
  if (failure instanceof Error && failure.name !== 'AbortError' && !/abort/i.test(failure.message)) throw failure;
  if (item?.state !== 'stopped') throw new Error(`the worker did not stop the session's item within 5 s: ${JSON.stringify(item)}`);
  if (elapsed > 5000) throw new Error(`the worker took ${Math.round(elapsed)} ms, over 5 s`);

  const events: any[] = [];
  for await (const e of client.beta.sessions.events.list(session.id, { limit: 1000 })) events.push(e);
  const result = events.find((e) => e.type === 'user.tool_result');
  const ranIn = String(result?.content?.[0]?.text ?? '').trim();
  const final = [...events].reverse().find((e) => e.type === 'agent.message');
  const idle = [...events].reverse().find((e) => e.type === 'session.status_idle');

  const ofItem = (suffix: string) => journal.filter((j) => j.path.endsWith(`/work/${item.id}${suffix}`));
  const token = (entries: any[]) => entries.length > 0 && entries.every((j) => String(j.credential_id).startsWith('sessions_token_'));
  const sessionReads = journal.filter((j) => j.path.startsWith(`/v1/sessions/${session.id}`) && !(j.method === 'GET' && j.path.includes('/work')));

  console.log(`item polled: ${journal.some((j) => j.path.endsWith('/work/poll') && j.status === 200)}`);
  console.log(`item acked: ${ofItem('/ack').some((j) => j.status === 200)}`);
  console.log(`heartbeat, with the item's sessions token: ${ofItem('/heartbeat').some((j) => j.status === 200) && token(ofItem('/heartbeat'))}`);
  console.log(`session read, events streamed and listed, with the token: ${token(sessionReads)}`);
  console.log(`bash ran in the scratch folder: ${realpathSync(ranIn) === realpathSync(workdir)}`);
  console.log(`result posted: ${sessionReads.some((j) => j.method === 'POST' && j.path.endsWith('/events') && j.status === 200)}`);
  console.log(`final message: ${String(final?.content?.[0]?.text ?? '').startsWith('The tool returned: ')}`);
  console.log(`turn ended: ${idle?.stop_reason?.type}`);
  console.log(`item stopped, with the token: ${item.state === 'stopped' && token(ofItem('/stop'))}`);
  console.log(`under 5 s: ${elapsed < 5000}`);
  console.error(`worker: served in ${Math.round(elapsed)} ms; aborted in ${Math.round(performance.now() - started - elapsed)} ms`);
  rmSync(workdir, { recursive: true, force: true });
} finally {
  await server.stop();
}
