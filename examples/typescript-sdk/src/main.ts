// The official TypeScript SDK, unmodified, against the platformkit fake. The client is
// configured exactly as its users configure it; the only fake-specific part is the base URL,
// which puts every request in a namespace of its own (/ns/<name>), so that this program never
// sees, nor disturbs, another test's data, clock, journal, faults or stubs.
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
// It shows a tool loop, a stream, a scripted reply registered through the control API, a retry
// after an injected 529, a structured output parsed by the SDK's helper and a strict tool, a
// conversation's prompt caching turn by turn and a burst that meets a rate limit, then what the
// fake counted as exercised, and prints only what the fake makes deterministic.
import Anthropic from '@anthropic-ai/sdk';
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
  defaultHeaders: { 'vendor-version': '2023-06-01' },
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

  console.log('fault and retry (529 with retry-after, the SDK retries):');
  await control('DELETE', '/journal');
  const fault = await control('POST', '/faults', { path: '/v1/messages', status: 529, retry_after: 0.05 });
  console.log(`  injected: status ${fault.status}, retry_after ${fault.retry_after}s`);
  const msg = await client.messages.create({ model, max_tokens: 20, messages: [{ role: 'user', content: 'Are you there?' }] });
  console.log(`  answer after the retry: stop_reason=${msg.stop_reason}`);
  const journal = await control('GET', '/journal');
  for (const e of journal.data) {
    console.log(
      `  journal: ${e.method} ${e.path} -> ${e.status}${e.fault ? ' (injected fault)' : ''}` +
        ` x-stainless-retry-count=${e.headers['x-stainless-retry-count']}` +
        (e.credential_header ? `, key in ${e.credential_header}` : ''),
    );
  }

  await structured();
  await cachingAndRateLimits();

  // What this program exercised, counted by the fake as requests arrived (GET /_fake/coverage;
  // the binary's -coverage-on-exit FILE writes the whole server's when it stops).
  console.log('coverage:');
  const cov = await control('GET', '/coverage');
  for (const op of cov.operations.filter((o: any) => o.requests > 0)) {
    console.log(`  ${op.operation}: ${op.requests} requests, ${op.invalid} invalid, ${op.body_fields.sent.length} of ${op.body_fields.sent.length + op.body_fields.not_sent.length} body fields sent`);
  }
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
  const admin = new Anthropic({ baseURL: nsURL, apiKey: 'test-admin-key', defaultHeaders: { 'vendor-version': '2023-06-01' } });
  const groups = await admin.organization.rateLimits.list({ model });
  const group = groups.data[0]!;
  await admin.organization.workspaces.rateLimits.update(group.id, {
    workspace_id: 'wrkspc_01AcmeResearch0000000001',
    limits: [{ type: 'requests_per_minute', value: 3 }],
  });
  // The SDK would retry a 429 by itself after retry-after in real time; this client lets the
  // program see it, and waits on the fake's virtual clock instead.
  const research = new Anthropic({
    baseURL: nsURL,
    apiKey: 'test-api-key-research',
    maxRetries: 0,
    defaultHeaders: { 'vendor-version': '2023-06-01' },
  });
  const ask = () =>
    research.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Is the shop open on Sunday?' }] }).withResponse();
  for (let i = 1; i <= 4; i++) {
    try {
      const { response } = await ask();
      console.log(`  request ${i}: ${response.status}, requests remaining ${response.headers.get('anthropic-ratelimit-requests-remaining')}`);
    } catch (err) {
      if (!(err instanceof Anthropic.RateLimitError)) throw err;
      const wait = Number(err.headers?.get('retry-after'));
      console.log(`  request ${i}: ${err.status} ${err.type}, retry-after ${wait}s, full again at ${err.headers?.get('anthropic-ratelimit-requests-reset')}`);
      await control('POST', '/clock/advance', { seconds: wait });
      const { response } = await ask();
      console.log(`  request ${i} after ${wait}s: ${response.status}, requests remaining ${response.headers.get('anthropic-ratelimit-requests-remaining')}`);
    }
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
