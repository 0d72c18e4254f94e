// cohere-ai: CohereClientV2.chatStream, its typed events joined: text
// from content-delta, the tool plan as reasoning, tool calls from
// tool-call-start and tool-call-delta, finish and tokens from message-end.
import { CohereClientV2 } from 'cohere-ai';
import { result, args, run } from './sdk.mjs';

await run(({ base }) => {
  const co = new CohereClientV2({ token: 'node-test-key', environment: base });
  return async (model) => {
    const r = result(model);
    const calls = [];
    const stream = await co.chatStream({ model, messages: [{ role: 'user', content: 'hi' }] }, { maxRetries: 0 });
    for await (const ev of stream) {
      const m = ev.delta?.message;
      switch (ev.type) {
        case 'content-delta': r.text += m?.content?.text ?? ''; break;
        case 'tool-plan-delta': r.reasoning += m?.toolPlan ?? ''; break;
        case 'tool-call-start': calls[ev.index] = { id: m.toolCalls.id, name: m.toolCalls.function.name, input: m.toolCalls.function.arguments ?? '' }; break;
        case 'tool-call-delta': calls[ev.index].input += m?.toolCalls?.function?.arguments ?? ''; break;
        case 'message-end':
          r.finish = ev.delta?.finishReason ?? '';
          if (ev.delta?.usage?.tokens) r.usage = { input: ev.delta.usage.tokens.inputTokens, output: ev.delta.usage.tokens.outputTokens };
          break;
      }
    }
    for (const c of calls) if (c) r.tool_calls.push({ id: c.id, name: c.name, args: args(c.input) });
    return r;
  };
});
