// @hostd/client: a typed client of hostd (docs/wire-contract.md). The
// types of every method, notification and tool come from src/generated.ts,
// which scripts/generate.mjs writes from docs/openrpc.json.

export * from './generated';
export { HostdClient, type CallArgs, type CallOptions, type Disposable, type ExecuteOptions, type SpawnOptions, type ToolOutcome } from './client';
export { HostdConnectionError, HostdError } from './errors';
export {
  runTool,
  toolSchemas,
  type AnthropicTool,
  type OpenAITool,
  type ToolCall,
  type ToolDefinition,
  type ToolRun,
  type ToolSchemaFormat,
} from './tools';

import type { ReviewListResult } from './generated';

/** One review record (wire-contract §5), as review.list and review.recorded carry it. */
export type ReviewEntry = ReviewListResult['entries'][number];
