// @mistralai/mistralai: chat.stream, the chunks' deltas joined as the
// SDK's README does: content, tool calls (whole or by index), the finish
// reason and usage of the chunk that has them.
import { Mistral } from '@mistralai/mistralai';
import { result, args, run } from './sdk.mjs';

await run(({ base }) => {
  const client = new Mistral({ apiKey: 'node-test-key', serverURL: base, retryConfig: { strategy: 'none' } });
  return async (model) => {
    const r = result(model);
    const calls = [];
    const stream = await client.chat.stream({ model, messages: [{ role: 'user', content: 'hi' }] });
    for await (const ev of stream) {
      const ch = ev.data.choices?.[0];
      const c = ch?.delta?.content;
      if (typeof c === 'string') r.text += c;
      for (const tc of ch?.delta?.toolCalls ?? []) {
        const i = tc.index ?? calls.length;
        if (!calls[i]) calls[i] = { id: tc.id ?? '', name: tc.function?.name ?? '', input: '' };
        const a = tc.function?.arguments;
        calls[i].input += typeof a === 'string' ? a : JSON.stringify(a ?? '');
      }
      if (ch?.finishReason) r.finish = ch.finishReason;
      if (ev.data.usage) r.usage = { input: ev.data.usage.promptTokens, output: ev.data.usage.completionTokens };
    }
    for (const c of calls) if (c) r.tool_calls.push({ id: c.id, name: c.name, args: args(c.input) });
    return r;
  };
});
