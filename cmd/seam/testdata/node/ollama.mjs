// ollama: chat (model names starting "generate" use generate), the
// streamed parts joined as the library's README does: content (or
// response), thinking, tool calls, and done_reason and the counts of the
// last part.
import { Ollama } from 'ollama';
import { result, run } from './sdk.mjs';

await run(({ base }) => {
  const ollama = new Ollama({ host: base });
  return async (model) => {
    const r = result(model);
    const generate = model.startsWith('generate');
    const stream = generate
      ? await ollama.generate({ model, prompt: 'hi', stream: true })
      : await ollama.chat({ model, messages: [{ role: 'user', content: 'hi' }], stream: true });
    for await (const part of stream) {
      const m = generate ? { content: part.response, thinking: part.thinking } : part.message ?? {};
      r.text += m.content ?? '';
      r.reasoning += m.thinking ?? '';
      for (const tc of m.tool_calls ?? []) r.tool_calls.push({ id: tc.id ?? '', name: tc.function.name, args: tc.function.arguments ?? null });
      if (part.done) {
        r.finish = part.done_reason ?? '';
        r.usage = { input: part.prompt_eval_count ?? 0, output: part.eval_count ?? 0 };
      }
    }
    return r;
  };
});
