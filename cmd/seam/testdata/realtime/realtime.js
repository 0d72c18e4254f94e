// Runs one OpenAI Realtime session with openai-node's OpenAIRealtimeWS (the
// ws package), directly or through seam record --forward, and prints what
// the SDK saw as JSON: the event types in order, the text the deltas
// assemble to, the errors the SDK raised and how the socket closed.
//
// node realtime.js MODE SCENARIO; BASE_URL is the API, PROXY seam's
// forward proxy (MODE proxy), OPENAI_API_KEY the key.
const { OpenAIRealtimeWS } = require('openai/realtime/ws');
const { OpenAI } = require('openai');
const { HttpsProxyAgent } = require('https-proxy-agent');

const [mode, scenario] = process.argv.slice(2);
const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: process.env.OPENAI_API_KEY });
const options = mode === 'proxy' ? { agent: new HttpsProxyAgent(process.env.PROXY) } : {};
const rt = new OpenAIRealtimeWS({ model: scenario, options }, client);

const out = { events: [], text: '', errors: [], close: null };
rt.on('event', (e) => {
  out.events.push(e.type);
  if (e.type === 'response.output_text.delta') out.text += e.delta;
  if (e.type === 'response.done') rt.close({ code: 1000, reason: 'done' });
});
rt.on('error', (err) => out.errors.push(err.message));
rt.socket.on('open', () => {
  // Long enough for ws to compress it (over 1 KiB), key and all.
  rt.send({ type: 'session.update', session: { type: 'realtime', api_key: process.env.OPENAI_API_KEY, instructions: 'Be brief. '.repeat(200) } });
  rt.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello in French' }] } });
  rt.send({ type: 'response.create' });
});
rt.socket.on('close', (code, reason) => {
  out.close = { code, reason: reason.toString() };
  process.stdout.write(JSON.stringify(out) + '\n');
});
