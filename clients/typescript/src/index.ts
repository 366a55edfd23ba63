// @hostd/client: a typed client of hostd (docs/wire-contract.md). The
// types of every method, notification, tool and error code come from
// src/generated.ts, which scripts/generate.mjs writes from
// docs/openrpc.json.

export * from './generated';
export { HostdBinaryError, hostdBinEnv, hostdBinary, hostdPlatformPackages, type HostdBinaryOptions } from './binary';
export { HostdClient, defaultRequestTimeoutMs, type CallArgs, type ExecuteOptions } from './client';
export { HostdConnectionError, HostdError, HostdProtocolError, HostdTimeoutError } from './errors';
export type {
  AbortSignalLike,
  CallOptions,
  ClientOptions,
  Disposable,
  JsonRpcMessage,
  RestartEvent,
  RestartOptions,
  SpawnOptions,
  StderrMode,
  TraceEvent,
} from './options';
export { isRetriable, withRetry, type RetryOptions } from './retry';
export {
  runTool,
  toolSchemas,
  type AnthropicTool,
  type AnyToolResult,
  type OpenAITool,
  type RunToolOptions,
  type ToolCall,
  type ToolDefinition,
  type ToolFailure,
  type ToolInputSchema,
  type ToolOutcome,
  type ToolRun,
  type ToolSchemaFormat,
  type ToolSuccess,
} from './tools';

import type { ReviewListResult } from './generated';

/** One review record (wire-contract §5), as review.list and review.recorded carry it. */
export type ReviewEntry = ReviewListResult['entries'][number];
