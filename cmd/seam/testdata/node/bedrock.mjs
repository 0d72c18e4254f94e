// @aws-sdk/client-bedrock-runtime: ConverseStream, its union events joined
// as the AWS documentation's examples do; for a model named invoke-…,
// InvokeModelWithResponseStream, each chunk's bytes decoded as the model's
// own JSON and joined as the documentation's example for its family does. A leg's handler picks the HTTP
// handler: h2 (the client's default, NodeHttp2Handler) or h1
// (NodeHttpHandler, which a proxy needs: it goes through
// https-proxy-agent). With EVENTS_DIR set, every event the SDK yields on
// the first leg is also written there, one JSON line each, to MODEL.jsonl,
// as a logger would.
import { BedrockRuntimeClient, ConverseStreamCommand, InvokeModelWithResponseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { appendFileSync } from 'node:fs';
import { result, args, run } from './sdk.mjs';

let eventsDir = process.env.EVENTS_DIR;
await run(({ base, proxy, handler }) => {
  const config = {
    region: 'us-east-1', endpoint: base, maxAttempts: 1,
    credentials: { accessKeyId: 'AKIDNODETEST', secretAccessKey: 'node-test-secret' },
  };
  if (handler === 'h1' || proxy) config.requestHandler = new NodeHttpHandler(proxy ? { httpsAgent: new HttpsProxyAgent(proxy) } : {});
  const client = new BedrockRuntimeClient(config);
  const events = eventsDir;
  eventsDir = undefined;
  return async (model) => {
    if (model.startsWith('invoke-')) return invoke(client, model);
    const r = result(model);
    const calls = new Map(); // contentBlockIndex → call
    const call = (i) => calls.get(i) ?? calls.set(i, { id: '', name: '', input: '' }).get(i);
    const res = await client.send(new ConverseStreamCommand({ modelId: model, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
    for await (const ev of res.stream) {
      if (events) appendFileSync(`${events}/${model}.jsonl`, JSON.stringify(ev) + '\n');
      if (ev.contentBlockStart?.start?.toolUse) {
        const c = call(ev.contentBlockStart.contentBlockIndex);
        c.id = ev.contentBlockStart.start.toolUse.toolUseId;
        c.name = ev.contentBlockStart.start.toolUse.name;
      }
      const d = ev.contentBlockDelta?.delta;
      if (d?.text !== undefined) r.text += d.text;
      if (d?.toolUse) call(ev.contentBlockDelta.contentBlockIndex).input += d.toolUse.input ?? '';
      if (d?.reasoningContent?.text) r.reasoning += d.reasoningContent.text;
      if (ev.messageStop) r.finish = ev.messageStop.stopReason;
      if (ev.metadata?.usage) r.usage = { input: ev.metadata.usage.inputTokens, output: ev.metadata.usage.outputTokens };
    }
    for (const [, c] of [...calls].sort((a, b) => a[0] - b[0])) r.tool_calls.push({ id: c.id, name: c.name, args: args(c.input) });
    return r;
  };
});

// invoke streams model with InvokeModelWithResponseStream and joins the
// chunks by their family: Anthropic Messages events (by type), Titan
// (outputText, completionReason), Llama (generation, stop_reason), Mistral
// (outputs[0]), Cohere Command (generations[0]); usage from the Anthropic
// events, else the invocation metrics Bedrock adds to the last chunk, else
// Titan's token counts.
async function invoke(client, model) {
  const r = result(model);
  const calls = new Map();
  let anthropic = null;
  const res = await client.send(new InvokeModelWithResponseStreamCommand({ modelId: model, body: JSON.stringify({ prompt: 'hi' }) }));
  for await (const ev of res.body) {
    const c = JSON.parse(new TextDecoder().decode(ev.chunk.bytes));
    switch (c.type) {
      case 'message_start': anthropic = { input: c.message.usage.input_tokens, output: c.message.usage.output_tokens }; break;
      case 'content_block_start':
        if (c.content_block.type === 'tool_use') calls.set(c.index, { id: c.content_block.id, name: c.content_block.name, input: '' });
        break;
      case 'content_block_delta':
        if (c.delta.type === 'text_delta') r.text += c.delta.text;
        if (c.delta.type === 'input_json_delta') calls.get(c.index).input += c.delta.partial_json;
        break;
      case 'message_delta':
        r.finish = c.delta.stop_reason ?? r.finish;
        if (c.usage?.output_tokens !== undefined) anthropic.output = c.usage.output_tokens;
        break;
    }
    if (typeof c.outputText === 'string') r.text += c.outputText;
    if (c.completionReason) r.finish = c.completionReason;
    if (typeof c.generation === 'string') r.text += c.generation;
    const out = c.outputs?.[0] ?? c.generations?.[0];
    if (typeof out?.text === 'string') r.text += out.text;
    if (out?.stop_reason ?? out?.finish_reason) r.finish = out.stop_reason ?? out.finish_reason;
    if (c.stop_reason && !c.type) r.finish = c.stop_reason;
    if (c.inputTextTokenCount !== undefined) r.usage = { input: c.inputTextTokenCount, output: c.totalOutputTextTokenCount };
    const m = c['amazon-bedrock-invocationMetrics'];
    if (m) r.usage = { input: m.inputTokenCount, output: m.outputTokenCount };
  }
  if (anthropic) r.usage = anthropic;
  for (const [, c] of [...calls].sort((a, b) => a[0] - b[0])) r.tool_calls.push({ id: c.id, name: c.name, args: args(c.input) });
  return r;
}
