// The README's loop with the OpenAI Chat Completions API:
// toolSchemas(defs, 'openai') is what chat.completions.create takes as
// `tools`, and a function tool call is what runTool takes. Compiled only
// (npm run check), never run.

import OpenAI from 'openai';
import { HostdClient, toolSchemas } from '@hostd/client';

export async function turn(openai: OpenAI, hostd: HostdClient, sessionId: string, prompt: string, promptId: string): Promise<string | null> {
  const tools = toolSchemas(await hostd.toolDefinitions(), 'openai');
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: prompt }];
  for (;;) {
    const completion = await openai.chat.completions.create({ model: 'gpt-5', tools, messages });
    const message = completion.choices[0]?.message;
    if (message === undefined) {
      return null;
    }
    messages.push(message);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      return message.content;
    }
    let terminate = false;
    for (const call of calls) {
      if (call.type === 'function') {
        const input: unknown = JSON.parse(call.function.arguments);
        const run = await hostd.runTool(sessionId, { name: call.function.name, input, id: call.id }, { promptId });
        messages.push({ role: 'tool', tool_call_id: call.id, content: run.text });
        terminate ||= run.terminate;
      }
    }
    if (terminate) {
      return null; // the repeat guard stopped the turn
    }
  }
}
