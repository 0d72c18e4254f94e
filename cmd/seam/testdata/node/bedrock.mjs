// @aws-sdk/client-bedrock-runtime: ConverseStream, its union events joined
// as the AWS documentation's examples do. A leg's handler picks the HTTP
// handler: h2 (the client's default, NodeHttp2Handler) or h1
// (NodeHttpHandler, which a proxy needs: it goes through
// https-proxy-agent). With EVENTS_DIR set, every event the SDK yields on
// the first leg is also written there, one JSON line each, to MODEL.jsonl,
// as a logger would.
import { BedrockRuntimeClient, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
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
