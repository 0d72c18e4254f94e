// What the SDK scripts share. A script streams one request per model
// named in MODELS (comma-separated; the fake API picks the recorded body
// by model) on every leg of LEGS, a JSON list of {leg, base, proxy,
// handler}: base is the API's base URL, proxy (when set) an HTTP proxy,
// seam record --forward, that every fetch goes through. It prints one
// JSON line per leg and model: what the SDK reported,
//   {leg, model, text, reasoning, tool_calls: [{id, name, args}], finish, usage: {input, output}}
// or {leg, model, error} when the SDK threw.
import { Agent, ProxyAgent, setGlobalDispatcher } from 'undici';

const models = (process.env.MODELS || '').split(',').filter(Boolean);
const legs = JSON.parse(process.env.LEGS || '[]');

// result is an empty SDK result for model, for a script to fill.
export function result(model) {
  return { model, text: '', reasoning: '', tool_calls: [], finish: '', usage: null };
}

// args parses a tool call's arguments when the SDK gives them as a
// string, so every SDK's calls compare as JSON values.
export function args(v) {
  if (typeof v !== 'string') return v ?? null;
  try { return JSON.parse(v); } catch { return { unparsed: v }; }
}

// run calls client(leg) for each leg, then the function it returns for
// every model, and prints each result.
export async function run(client) {
  for (const leg of legs) {
    setGlobalDispatcher(leg.proxy ? new ProxyAgent(leg.proxy) : new Agent());
    const one = await client(leg);
    for (const model of models) {
      let out;
      try {
        out = await one(model);
      } catch (e) {
        out = { model, error: `${e?.name ?? 'Error'}: ${e?.message ?? e}` };
      }
      process.stdout.write(JSON.stringify({ leg: leg.leg, ...out }) + '\n');
    }
  }
}
