// The official TypeScript SDK, unmodified, against the platformkit fake. Every client is
// configured exactly as the SDK's README says, `new Anthropic({ baseURL, apiKey })` and nothing
// else: the SDK sends its own headers (anthropic-version 2026-10-21, the key as Authorization:
// Bearer, anthropic-beta where a helper needs one) and retries as it does against the service.
// The only fake-specific part is the base URL, which puts every request in a namespace of its
// own (/ns/<name>), so that this program never sees, nor disturbs, another test's data, clock,
// journal, faults or stubs.
//
// The fake is started by the npm package's helper (@platformkit/fake: startFake) and stopped at
// the end; with BASE_URL set, the program uses the fake already serving there instead.
//
//	cd examples/typescript-sdk && npm ci && npm run build
//	PLATFORMFAKE_BINARY=$(go env GOPATH)/bin/platformfake npm start   # after go install ./fake/cmd/platformfake
//
// (Here the helper comes from this repository's packaging/npm/fake, which carries no binary, hence
// PLATFORMFAKE_BINARY; installed from npm as @platformkit/fake, it brings the binary of its platform.)
//
// It shows a tool loop, a stream, a scripted reply registered through the control API, the SDK's
// default tool runner over a message thread (and the same loop unthreaded), a retry after an
// injected 529, a structured output parsed by the SDK's helper and a strict tool, models paged,
// files, a file named by file_id in Messages, a message batch read through the SDK's results
// iterator, a conversation's prompt caching turn by turn with count_tokens, a burst that meets a rate limit
// and the SDK's own retry of the 429, what the SDK sent (version and key header, from the fake's
// journal), then what the fake counted as exercised; it prints only what the fake makes
// deterministic.
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';
import { jsonSchemaOutputFormat } from '@anthropic-ai/sdk/helpers/json-schema';
import { connect, startFake } from '@platformkit/fake';

const server = process.env['BASE_URL'] ? connect(process.env['BASE_URL']) : await startFake();
const base = server.baseURL;
const namespace = process.env['NAMESPACE'] ?? 'typescript-sdk-example';
const nsURL = `${base}/ns/${namespace}`;
const model = 'assistant-sonnet-4-5';

const client = new Anthropic({
  baseURL: nsURL,
  apiKey: process.env['API_KEY'] ?? 'test-api-key', // the fake's default key
});

// control calls the fake's test-control API of the namespace.
async function control(method: string, path: string, body?: unknown): Promise<any> {
  const resp = await fetch(`${nsURL}/_fake${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await resp.text();
  if (!resp.ok) {
    throw new Error(`${method} /_fake${path}: ${resp.status} ${text}`);
  }
  return JSON.parse(text);
}

// sent holds every journal entry this program has taken (takeJournal), for the closing summary
// of the headers the SDK sent.
const sent: any[] = [];

// takeJournal returns the requests the namespace's journal holds and clears it, so that each
// part of the program reads only its own.
async function takeJournal(): Promise<any[]> {
  const entries = (await control('GET', '/journal')).data;
  await control('DELETE', '/journal');
  sent.push(...entries);
  return entries;
}

const weatherTool: Anthropic.Messages.Tool = {
  name: 'get_weather',
  description: 'Current weather of a city',
  input_schema: {
    type: 'object',
    required: ['city'],
    properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } },
  },
};

// getWeather is the tool: a real program would call a weather service here.
function getWeather(input: unknown): string {
  const { city, unit } = input as { city?: string; unit?: string };
  return `18 degrees ${unit ?? 'celsius'} and sunny in ${city}`;
}

// toolLoop asks one question and runs the tools the model calls until it stops calling them.
async function toolLoop(question: string): Promise<void> {
  const messages: Anthropic.Messages.MessageParam[] = [{ role: 'user', content: question }];
  for (let step = 1; step <= 10; step++) {
    const msg = await client.messages.create({ model, max_tokens: 1024, tools: [weatherTool], messages });
    console.log(`  step ${step}: ${msg.id} stop_reason=${msg.stop_reason}`);
    const results: Anthropic.Messages.ToolResultBlockParam[] = [];
    for (const block of msg.content) {
      if (block.type === 'text') {
        console.log(`    assistant: ${block.text}`);
      } else if (block.type === 'tool_use') {
        const result = getWeather(block.input);
        console.log(`    tool call ${block.name}(${JSON.stringify(block.input)}) -> ${result}`);
        results.push({ type: 'tool_result', tool_use_id: block.id, content: result });
      }
    }
    if (msg.stop_reason !== 'tool_use') {
      return;
    }
    messages.push({ role: 'assistant', content: msg.content }, { role: 'user', content: results });
  }
  throw new Error('the model was still calling tools after 10 steps');
}

async function main(): Promise<void> {
  await control('POST', '/reset'); // a namespace lives as long as the server: start it afresh

  console.log('tool loop (the scripted model):');
  await toolLoop('What is the weather in Lisbon?');

  console.log('stream:');
  const stream = client.messages.stream({
    model,
    max_tokens: 40,
    messages: [{ role: 'user', content: 'Tell me about harbor lanterns.' }],
  });
  const events: string[] = [];
  let text = '';
  stream.on('streamEvent', (event) => {
    if (events.at(-1) !== event.type) events.push(event.type);
  });
  stream.on('text', (delta) => (text += delta));
  const final = await stream.finalMessage();
  const block = final.content[0];
  console.log(`  events: ${events.join(' ')}`);
  console.log(`  text: ${text}`);
  console.log(`  final: ${final.id} stop_reason=${final.stop_reason} output_tokens=${final.usage.output_tokens}`);
  console.log(`  deltas add up to the final text: ${block?.type === 'text' && block.text === text}`);

  console.log('scripted reply (a stub: a tool call, then an answer):');
  const stub = await control('POST', '/messages/stubs', {
    match: { tool_name: 'get_weather' },
    replies: [
      {
        content: [
          { type: 'tool_use', id: 'toolu_scripted_1', name: 'get_weather', input: { city: 'Reykjavik' }, caller: { type: 'direct' } },
        ],
      },
      { content: [{ type: 'text', text: 'It is 18 degrees and sunny in Reykjavik, says the tool.' }] },
    ],
  });
  console.log(`  registered ${stub.id} with ${stub.replies.length} replies`);
  await toolLoop('What is the weather in Reykjavik?');

  await toolRunner();

  console.log('fault and retry (529 with retry-after, the SDK retries):');
  await takeJournal();
  const fault = await control('POST', '/faults', { path: '/v1/messages', status: 529, retry_after: 0.05 });
  console.log(`  injected: status ${fault.status}, retry_after ${fault.retry_after}s`);
  const msg = await client.messages.create({ model, max_tokens: 20, messages: [{ role: 'user', content: 'Are you there?' }] });
  console.log(`  answer after the retry: stop_reason=${msg.stop_reason}`);
  for (const e of await takeJournal()) {
    console.log(
      `  journal: ${e.method} ${e.path} -> ${e.status}${e.fault ? ' (injected fault)' : ''}` +
        ` x-stainless-retry-count=${e.headers['x-stainless-retry-count']}` +
        (e.credential_header ? `, key in ${e.credential_header}` : ''),
    );
  }

  await structured();
  await modelsPaging();
  await filesFlow();
  await fileIdFlow();
  await batchFlow();
  await cachingAndRateLimits();

  // Every request of the program, as the fake's journal recorded it: the version header the SDK
  // sent, and which header carried the key (the journal never records the key itself). An
  // injected fault answers before the key is read, so its entry names no header: left out.
  console.log('what the SDK sent:');
  const kinds = new Map<string, number>();
  for (const e of [...sent, ...(await takeJournal())].filter((e) => !e.fault)) {
    const kind = `anthropic-version ${e.headers['anthropic-version']}, vendor-version ${e.headers['vendor-version'] ?? 'not sent'}, key in ${e.credential_header}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  for (const [kind, n] of kinds) {
    console.log(`  ${kind}: ${n} requests`);
  }

  // What this program exercised, counted by the fake as requests arrived (GET /_fake/coverage;
  // the binary's -coverage-on-exit FILE writes the whole server's when it stops).
  console.log('coverage:');
  const cov = await control('GET', '/coverage');
  for (const op of cov.operations.filter((o: any) => o.requests > 0)) {
    console.log(`  ${op.operation}: ${op.requests} requests, ${op.invalid} invalid, ${op.body_fields.sent.length} of ${op.body_fields.sent.length + op.body_fields.not_sent.length} body fields sent`);
  }
}

// forecastTool is a tool the SDK's tool runner calls by itself: betaTool pairs the definition
// with the function that answers it.
const forecastTool = betaTool({
  name: 'get_forecast',
  description: 'Tomorrow\'s forecast of a city',
  inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } } as const,
  run: ({ city }) => `tomorrow: 21 degrees celsius and clear in ${city}`,
});

// toolRunner runs the SDK's default tool runner (client.beta.messages.toolRunner, which holds the
// conversation in a message thread: the first turn creates it, the next ones send only the tool
// results) for three turns, then the same loop with thread: false (the full history every turn):
// the replies and the usage must be the same.
async function toolRunner(): Promise<void> {
  console.log('tool runner (the SDK\'s default: over a message thread), three turns:');
  await control('POST', '/messages/stubs', {
    match: { tool_name: 'get_forecast' },
    times: 2, // once for the threaded loop, once for the unthreaded one
    replies: [
      { content: [{ type: 'tool_use', id: 'toolu_forecast_1', name: 'get_forecast', input: { city: 'Lisbon' }, caller: { type: 'direct' } }] },
      { content: [{ type: 'tool_use', id: 'toolu_forecast_2', name: 'get_forecast', input: { city: 'Porto' }, caller: { type: 'direct' } }] },
      { content: [{ type: 'text', text: 'Tomorrow it is clear and 21 degrees in both Lisbon and Porto.' }] },
    ],
  });
  await takeJournal();
  const params = {
    model,
    max_tokens: 1024,
    system: 'You are a weather assistant.',
    tools: [forecastTool],
    messages: [{ role: 'user' as const, content: 'What is tomorrow\'s weather in Lisbon and in Porto?' }],
  };
  const threaded: Anthropic.Beta.BetaMessage[] = [];
  for await (const message of client.beta.messages.toolRunner(params)) {
    threaded.push(message);
    const said = message.content.map((b) => (b.type === 'text' ? `"${b.text}"` : b.type === 'tool_use' ? `${b.name}(${JSON.stringify(b.input)})` : b.type));
    console.log(`  turn ${threaded.length}: ${message.id} stop_reason=${message.stop_reason} ${said.join(' ')}`);
  }
  for (const e of await takeJournal()) {
    const body = e.body ?? {};
    console.log(
      `  journal: ${e.method} ${e.path} -> ${e.status} thread=${JSON.stringify(body.thread)}` +
        ` messages=${body.messages?.length} system=${'system' in body} tools=${'tools' in body} anthropic-beta=${e.headers['anthropic-beta']}`,
    );
  }
  const unthreaded: Anthropic.Beta.BetaMessage[] = [];
  for await (const message of client.beta.messages.toolRunner({ ...params, thread: false })) {
    unthreaded.push(message);
  }
  const replies = (ms: Anthropic.Beta.BetaMessage[]) => JSON.stringify(ms.map((m) => [m.content, m.stop_reason]));
  const usage = (ms: Anthropic.Beta.BetaMessage[]) => JSON.stringify(ms.map((m) => [m.usage.input_tokens, m.usage.output_tokens]));
  console.log(`  usage per turn: ${usage(threaded)}`);
  console.log(
    `  the same loop with thread: false sends the full history (${(await takeJournal()).map((e) => e.body?.messages?.length).join(', ')} messages):` +
      ` the same replies ${replies(threaded) === replies(unthreaded)}, the same usage ${usage(threaded) === usage(unthreaded)}`,
  );
}

// modelsPaging lists the models two to a page, as the SDK's auto-pagination walks them.
async function modelsPaging(): Promise<void> {
  console.log('models, two a page:');
  let page = await client.models.list({ limit: 2 });
  const ids: string[] = [];
  for (let n = 1; ; n++) {
    ids.push(...page.data.map((m) => m.id));
    console.log(`  page ${n}: ${page.data.map((m) => m.id).join(', ')}`);
    if (!page.hasNextPage()) break;
    page = await page.getNextPage();
  }
  let all = 0;
  for await (const m of client.models.list({ limit: 2 })) {
    if (m.id !== ids[all++]) throw new Error(`auto-pagination: model ${all} is ${m.id}, the pages said ${ids[all - 1]}`);
  }
  console.log(`  auto-pagination: the same ${all} models`);
}

// filesFlow uploads a file and lists the files one a page, is refused the upload's download
// (uploaded files are not downloadable), downloads the file of the fixtures the platform made,
// and deletes the upload.
async function filesFlow(): Promise<void> {
  console.log('files:');
  const file = await toFile(Buffer.from('hello, files'), 'notes/hello.txt', { type: 'text/plain' });
  const up = await client.files.upload({ file });
  console.log(`  uploaded ${up.id}: ${up.filename}, ${up.mime_type}, ${up.size_bytes} bytes, downloadable ${up.downloadable}`);
  const listed: string[] = [];
  for await (const f of client.files.list({ limit: 1 })) {
    listed.push(f.downloadable ? `${f.filename} (downloadable)` : f.filename);
  }
  console.log(`  listed one a page, newest first: ${listed.join(', ')}`);
  try {
    await client.files.download(up.id);
    throw new Error('the upload was downloaded');
  } catch (e) {
    if (!(e instanceof Anthropic.BadRequestError)) throw e;
    const body = e.error as { error?: { details?: { error_code?: string } } };
    console.log(`  download of the upload: ${e.status} ${body.error?.details?.error_code}`);
  }
  const made = (await client.files.list()).data.find((f) => f.downloadable);
  if (!made) throw new Error('no downloadable file listed');
  const text = await (await client.files.download(made.id)).text();
  console.log(`  download of ${made.filename}: ${JSON.stringify(text.split('\n')[0])}, ${text.length} bytes`);
  console.log(`  delete: ${(await client.files.delete(up.id)).type}`);
}

// fileIdFlow uploads a text file and names it by file_id in a document block: the file's text
// counts as input as it does sent inline; once the file is deleted, the same request is a 404
// naming the block's file_id.
async function fileIdFlow(): Promise<void> {
  console.log('file_id in Messages:');
  const text = 'The quarterly report says revenue grew by four percent. '.repeat(20);
  const up = await client.files.upload({ file: await toFile(Buffer.from(text), 'notes.txt', { type: 'text/plain' }) });
  const ask = (source: Anthropic.Messages.DocumentBlockParam['source']) =>
    client.messages.create({
      model,
      max_tokens: 64,
      messages: [{ role: 'user', content: [{ type: 'document', source }, { type: 'text', text: 'What does it say?' }] }],
    });
  const byID = await ask({ type: 'file', file_id: up.id });
  const inline = await ask({ type: 'text', media_type: 'text/plain', data: text });
  if (byID.usage.input_tokens !== inline.usage.input_tokens) {
    throw new Error(`input tokens by file_id ${byID.usage.input_tokens}, inline ${inline.usage.input_tokens}`);
  }
  console.log(`  input tokens by file_id ${byID.usage.input_tokens}, the same as inline`);
  await client.files.delete(up.id);
  try {
    await ask({ type: 'file', file_id: up.id });
    throw new Error('a deleted file was read');
  } catch (e) {
    if (!(e instanceof Anthropic.NotFoundError)) throw e;
    const message = (e.error as { error?: { message?: string } }).error?.message ?? '';
    console.log(`  naming the deleted file: ${e.status} at ${message.split(':')[0]}`);
  }
}

// batchFlow is the SDK's batch_results flow: create a batch of 100 requests, one of which the
// Messages rules refuse (a user_id that is an email address), with the namespace's batch pace set
// through the control API; poll retrieve while the clock moves; iterate results() through the
// SDK's own JSONL decoder. request_counts agree with the lines, the errored line carries the error
// the request gets sent alone, and the journal holds each request of the batch.
async function batchFlow(): Promise<void> {
  console.log('message batch:');
  await takeJournal();
  const pace = await control('PUT', '/batch_pace', { seconds: 0.1 });
  const refused: Anthropic.Messages.MessageCreateParamsNonStreaming = {
    model,
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Hello' }],
    metadata: { user_id: 'someone@example.com' },
  };
  const requests: Anthropic.Messages.BatchCreateParams.Request[] = Array.from({ length: 99 }, (_, i) => ({
    custom_id: `req-${i}`,
    params: { model, max_tokens: 64, messages: [{ role: 'user', content: `Hello number ${i}` }] },
  }));
  requests.push({ custom_id: 'refused', params: refused });
  let batch = await client.messages.batches.create({ requests });
  const n = batch.request_counts.processing;
  console.log(`  created: ${batch.processing_status}, ${n} processing, results_url ${batch.results_url}; pace ${pace.seconds} s a request`);
  let polls = 0;
  while (batch.processing_status !== 'ended') {
    polls++;
    await control('POST', '/clock/advance', { seconds: 5 });
    batch = await client.messages.batches.retrieve(batch.id);
  }
  const c = batch.request_counts;
  console.log(`  ended after ${polls} polls of 5 s: succeeded ${c.succeeded}, errored ${c.errored}, canceled ${c.canceled}, expired ${c.expired}`);
  const lines: Anthropic.Messages.MessageBatchIndividualResponse[] = [];
  for await (const line of await client.messages.batches.results(batch.id)) {
    lines.push(line);
  }
  const count = (type: string) => lines.filter((l) => l.result.type === type).length;
  const inOrder = lines.every((l, i) => l.custom_id === requests[i]?.custom_id);
  console.log(`  results: ${lines.length} lines in the requests' order: ${inOrder}; ${count('succeeded')} succeeded, errored: ${lines.filter((l) => l.result.type === 'errored').map((l) => l.custom_id).join(', ')}`);
  if (lines.length !== n || count('succeeded') !== c.succeeded || count('errored') !== c.errored) {
    throw new Error(`request_counts ${JSON.stringify(c)} disagree with the ${lines.length} lines`);
  }
  const errored = lines.find((l) => l.result.type === 'errored')?.result as Anthropic.Messages.MessageBatchErroredResult;
  try {
    await client.messages.create(refused);
    throw new Error('the refused request was answered sent alone');
  } catch (e) {
    if (!(e instanceof Anthropic.BadRequestError)) throw e;
    const alone = (e.error as { error?: { message?: string } }).error?.message;
    if (errored.error.error.message !== alone) {
      throw new Error(`the errored line says ${JSON.stringify(errored.error.error.message)}, the request alone ${JSON.stringify(alone)}`);
    }
    console.log(`  the errored line is the error of the request sent alone: ${e.status} ${errored.error.error.type}`);
  }
  const journaled = (await takeJournal()).filter((e) => e.batch);
  const byStatus = (status: number) => journaled.filter((e) => e.status === status).length;
  console.log(`  journal: ${journaled.length} entries, each a POST /v1/messages: ${journaled.every((e) => e.method === 'POST' && e.path === '/v1/messages')}; ${byStatus(200)} -> 200, ${journaled.filter((e) => e.status === 400).map((e) => `${e.batch.custom_id} -> 400`).join(', ')}`);
  console.log(`  delete: ${(await client.messages.batches.delete(batch.id)).type}`);
  await control('PUT', '/batch_pace', { seconds: 0.1 });
}

// forecastSchema is a structured-output schema in the subset the API compiles: closed objects,
// an enum, an array of objects and a string format.
const forecastSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['city', 'unit', 'days'],
  properties: {
    city: { type: 'string' },
    unit: { enum: ['celsius', 'fahrenheit'] },
    days: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['date', 'high'],
        properties: { date: { type: 'string', format: 'date' }, high: { type: 'integer' } },
      },
    },
  },
} as const;

// structured asks for a structured output and a strict tool call: the fake answers JSON of the
// schema (which the SDK's parse helper turns into an object) and a tool input that validates
// against the tool's input_schema.
async function structured(): Promise<void> {
  console.log('structured output (output_config.format, parsed by the SDK):');
  const parsed = await client.messages.parse({
    model,
    max_tokens: 512,
    messages: [{ role: 'user', content: 'The forecast for Oslo, as JSON.' }],
    output_config: { format: jsonSchemaOutputFormat(forecastSchema) },
  });
  const forecast = parsed.parsed_output;
  console.log(`  stop_reason=${parsed.stop_reason} city=${forecast?.city} unit=${forecast?.unit} days=${forecast?.days.length}`);
  console.log(`  parsed: ${JSON.stringify(forecast)}`);

  console.log('strict tool (strict: true, its input validates against input_schema):');
  const strictTool: Anthropic.Messages.Tool = {
    ...weatherTool,
    strict: true,
    input_schema: { ...weatherTool.input_schema, additionalProperties: false },
  };
  const msg = await client.messages.create({
    model,
    max_tokens: 256,
    tools: [strictTool],
    tool_choice: { type: 'tool', name: 'get_weather' },
    messages: [{ role: 'user', content: 'What is the weather in Oslo?' }],
  });
  for (const block of msg.content) {
    if (block.type === 'tool_use') {
      const input = block.input as { city?: unknown; unit?: unknown };
      const valid = typeof input.city === 'string' && ['celsius', 'fahrenheit'].includes(String(input.unit ?? 'celsius'));
      console.log(`  tool call ${block.name}(${JSON.stringify(block.input)}) valid=${valid}`);
    }
  }
}

// policy is a long, stable system prompt: the part of every request worth caching, past the
// 1,024-token minimum below which a breakpoint caches nothing.
const policy =
  'You are the support assistant of a bicycle shop. Follow these rules.\n' +
  Array.from(
    { length: 60 },
    (_, i) =>
      `Rule ${i + 1}: answer questions about order ${1001 + i}, its parts, its delivery and its warranty politely, in at most three sentences, and never promise a date the workshop has not confirmed.\n`,
  ).join('');

// cachingAndRateLimits shows what a request costs with prompt caching, turn by turn, and what
// happens when a client sends more than its workspace's rate limit allows.
async function cachingAndRateLimits(): Promise<void> {
  console.log('prompt caching (system cached for 1h, the conversation for 5m as it grows):');
  const system: Anthropic.Messages.TextBlockParam[] = [{ type: 'text', text: policy, cache_control: { type: 'ephemeral', ttl: '1h' } }];
  const messages: Anthropic.Messages.MessageParam[] = [];
  const questions = [
    'Which tyres fit a gravel bike?',
    'How long does a wheel truing take?',
    'Can I return a helmet I have worn once?',
    'Do you ship saddles abroad?',
  ];
  for (const [i, question] of questions.entries()) {
    if (i === questions.length - 1) {
      // Seven minutes pass: the conversation's 5-minute entry expires, the system's 1-hour one does not.
      await control('POST', '/clock/advance', { seconds: 420 });
    }
    messages.push({ role: 'user', content: question });
    // Automatic caching: the top-level cache_control marks the last block of the request.
    const prompt = { model, system, messages, cache_control: { type: 'ephemeral' as const } };
    const counted = await client.messages.countTokens(prompt);
    const msg = await client.messages.create({ ...prompt, max_tokens: 256 });
    const u = msg.usage;
    const total = u.cache_read_input_tokens! + u.cache_creation_input_tokens! + u.input_tokens;
    console.log(
      `  turn ${i + 1}: read ${u.cache_read_input_tokens}, written 1h ${u.cache_creation?.ephemeral_1h_input_tokens}` +
        ` 5m ${u.cache_creation?.ephemeral_5m_input_tokens}, uncached ${u.input_tokens};` +
        ` total ${total} = count_tokens ${counted.input_tokens}: ${total === counted.input_tokens}`,
    );
    messages.push({ role: 'assistant', content: msg.content });
  }

  console.log('rate limits (Research workspace lowered to 3 requests a minute, a burst of 4):');
  await control('PUT', '/rate_limits', { enforce: true });
  const admin = new Anthropic({ baseURL: nsURL, apiKey: 'test-admin-key' });
  const groups = await admin.organization.rateLimits.list({ model });
  const group = groups.data[0]!;
  await admin.organization.workspaces.rateLimits.update(group.id, {
    workspace_id: 'wrkspc_01AcmeResearch0000000001',
    limits: [{ type: 'requests_per_minute', value: 3 }],
  });
  // The client as any user has it: the SDK's default retries. The fourth request of the burst is
  // answered 429 with retry-after, and the SDK sends it again after that wait. The namespace's
  // retry-after scale makes the wait asked for a thousandth of the true one (the true 20 s cost
  // 20 ms), and the SDK's retry moves the fake's virtual clock by the true wait, so the bucket
  // has refilled when the retry arrives.
  await server.namespace(namespace).setRetryAfterScale(0.001);
  const research = new Anthropic({ baseURL: nsURL, apiKey: 'test-api-key-research' });
  await takeJournal();
  for (let i = 1; i <= 4; i++) {
    const { response } = await research.messages
      .create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Is the shop open on Sunday?' }] })
      .withResponse();
    console.log(`  request ${i}: ${response.status}, requests remaining ${response.headers.get('anthropic-ratelimit-requests-remaining')}`);
  }
  for (const e of await takeJournal()) {
    console.log(
      `  journal: ${e.at} ${e.method} ${e.path} -> ${e.status}${e.rate_limit ? ` (${e.rate_limit})` : ''}` +
        ` x-stainless-retry-count=${e.headers['x-stainless-retry-count']}`,
    );
  }
}

try {
  await main();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await server.stop(); // stops only a server startFake started
}
