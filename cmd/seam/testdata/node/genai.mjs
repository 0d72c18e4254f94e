// @google/genai: models.generateContentStream, the text, thoughts and
// function calls as the SDK's accessors give them.
import { GoogleGenAI } from '@google/genai';
import { result, run } from './sdk.mjs';

await run(({ base }) => {
  const ai = new GoogleGenAI({ apiKey: 'node-test-key', httpOptions: { baseUrl: base, retryOptions: { attempts: 1 } } });
  return async (model) => {
    const r = result(model);
    const stream = await ai.models.generateContentStream({ model, contents: 'hi' });
    for await (const chunk of stream) {
      const cand = chunk.candidates?.[0];
      r.text += chunk.text ?? '';
      for (const p of cand?.content?.parts ?? []) if (p.thought && typeof p.text === 'string') r.reasoning += p.text;
      for (const fc of chunk.functionCalls ?? []) r.tool_calls.push({ id: fc.id ?? '', name: fc.name, args: fc.args ?? null });
      if (cand?.finishReason) r.finish = cand.finishReason;
      const u = chunk.usageMetadata;
      if (u) r.usage = { input: u.promptTokenCount ?? 0, output: u.candidatesTokenCount ?? 0 };
    }
    return r;
  };
});
