// What the SDK scripts share. Each script streams one request per model
// named in MODELS (comma-separated; the fake API picks the recorded body
// by model) and prints one JSON line per model: what the SDK reported,
//   {model, text, reasoning, tool_calls: [{id, name, args}], finish, usage: {input, output}}
// or {model, error} when the SDK threw. BASE_URL is the API; PROXY, when
// set, is an HTTP proxy (seam record --forward) every fetch goes through.
import { ProxyAgent, setGlobalDispatcher } from 'undici';

export const base = process.env.BASE_URL;
export const proxy = process.env.PROXY || '';
export const models = (process.env.MODELS || '').split(',').filter(Boolean);
if (proxy) setGlobalDispatcher(new ProxyAgent(proxy));

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

// run calls one(model) for every model and prints its result.
export async function run(one) {
  for (const model of models) {
    let out;
    try {
      out = await one(model);
    } catch (e) {
      out = { model, error: `${e?.name ?? 'Error'}: ${e?.message ?? e}` };
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  }
}
