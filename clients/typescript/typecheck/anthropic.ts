// The README's loop with the Anthropic Messages API: toolSchemas(defs) is
// what messages.create takes as `tools`, and a tool_use block is what
// runTool takes. Compiled only (npm run check), never run.

import Anthropic from '@anthropic-ai/sdk';
import { HostdClient, toolSchemas } from '@hostd/client';

export async function turn(anthropic: Anthropic, hostd: HostdClient, sessionId: string, prompt: string, promptId: string): Promise<Anthropic.Message> {
  const tools = toolSchemas(await hostd.toolDefinitions());
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: prompt }];
  for (;;) {
    const reply = await anthropic.messages.create({ model: 'claude-sonnet-4-5', max_tokens: 4096, tools, messages });
    messages.push({ role: 'assistant', content: reply.content });
    if (reply.stop_reason !== 'tool_use') {
      return reply;
    }
    const results: Anthropic.ToolResultBlockParam[] = [];
    let terminate = false;
    for (const block of reply.content) {
      if (block.type === 'tool_use') {
        const run = await hostd.runTool(sessionId, { name: block.name, input: block.input, id: block.id }, { promptId });
        results.push({ type: 'tool_result', tool_use_id: block.id, content: run.text, is_error: run.isError });
        terminate ||= run.terminate;
      }
    }
    messages.push({ role: 'user', content: results });
    if (terminate) {
      return reply; // the repeat guard stopped the turn
    }
  }
}
