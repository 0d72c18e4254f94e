// Streams one chat completion with the real openai package and prints the
// final completion as JSON. argv[2] picks how it reaches the API:
//   direct  undici's fetch, no proxy
//   proxy   undici's ProxyAgent(PROXY) as the dispatcher
//   env     undici's EnvHttpProxyAgent (reads HTTPS_PROXY) as the dispatcher
// The API's base URL comes from BASE_URL; trust from NODE_EXTRA_CA_CERTS.
const OpenAI = require('openai');
const { fetch, ProxyAgent, EnvHttpProxyAgent } = require('undici');

async function main() {
  const mode = process.argv[2];
  const fetchOptions = {};
  if (mode === 'proxy') fetchOptions.dispatcher = new ProxyAgent(process.env.PROXY);
  else if (mode === 'env') fetchOptions.dispatcher = new EnvHttpProxyAgent();
  else if (mode !== 'direct') throw new Error('mode: direct, proxy or env');
  const client = new OpenAI({ apiKey: 'sk-node-test-key', baseURL: process.env.BASE_URL, fetch, fetchOptions, maxRetries: 0 });
  const stream = client.chat.completions.stream({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Say hello' }],
  });
  const final = await stream.finalChatCompletion();
  process.stdout.write(JSON.stringify(final));
}

main().catch((e) => { console.error(e); process.exit(1); });
