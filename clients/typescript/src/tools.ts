// The glue between a model API's tool calls and hostd: tools.definitions
// turned into the tool shapes model APIs take, and runTool, which runs a
// model's tool call with tools.execute and says what to hand back.

import { HostdError } from './errors';
import type { ToolError, ToolName, ToolResult, ToolResults, ToolsDefinitionsResult } from './generated';
import type { CallOptions } from './options';

/** One entry of tools.definitions. */
export type ToolDefinition = ToolsDefinitionsResult['tools'][number];

/**
 * A tool's input schema as model APIs take it: a JSON Schema of an object.
 * Anthropic's Tool.InputSchema and OpenAI's FunctionParameters both accept
 * it as it is.
 */
export interface ToolInputSchema {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  [key: string]: unknown;
}

/** A tool as the Anthropic Messages API takes it (the `tools` request field). */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ToolInputSchema;
}

/** A tool as the OpenAI Chat Completions API takes it (the `tools` request field). */
export interface OpenAITool {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: ToolInputSchema;
  };
}

/**
 * A tools.execute result whose tool failed (wire-contract §4): the shared
 * fields only, and an error typed by its code (test error.code to reach
 * its details).
 */
export type ToolFailure = Omit<ToolResult, 'ok' | 'error'> & { ok: false; error: ToolError };

/** A tools.execute result of tool T that succeeded: the tool's own fields. */
export type ToolSuccess<T extends ToolName> = Omit<ToolResults[T], 'ok' | 'error'> & { ok: true; error?: undefined };

/**
 * What tools.execute answers for tool T: the tool's own result when it
 * succeeded, and only the shared fields (content, error, warnings, ...)
 * when it failed. Test `ok` to reach the tool's fields or the error.
 */
export type ToolOutcome<T extends ToolName> = ToolSuccess<T> | ToolFailure;

/** What tools.execute answers for any tool, one this client knows or not. */
export type AnyToolResult = (Omit<ToolResult, 'ok' | 'error'> & { ok: true; error?: undefined }) | ToolFailure;

export type ToolSchemaFormat = 'anthropic' | 'openai';

/**
 * toolSchemas turns tools.definitions (the result, or its tools array) into
 * the tool list of a model API. Names, descriptions and schemas are passed
 * on as hostd gives them (wire-contract §3: hostd is the single source of
 * the model-facing text), including tools this client does not know.
 */
export function toolSchemas(definitions: ToolsDefinitionsResult | readonly ToolDefinition[], format: 'openai'): OpenAITool[];
export function toolSchemas(definitions: ToolsDefinitionsResult | readonly ToolDefinition[], format?: 'anthropic'): AnthropicTool[];
export function toolSchemas(
  definitions: ToolsDefinitionsResult | readonly ToolDefinition[],
  format: ToolSchemaFormat = 'anthropic',
): AnthropicTool[] | OpenAITool[] {
  const tools = isToolList(definitions) ? definitions : definitions.tools;
  switch (format) {
    case 'anthropic':
      return tools.map((t) => ({ name: t.name, description: t.description, input_schema: inputSchema(t) }));
    case 'openai':
      return tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: inputSchema(t) } }));
    default:
      throw new Error(`toolSchemas: unknown format ${JSON.stringify(format)}; use "anthropic" or "openai"`);
  }
}

// inputSchema is a definition's inputSchema, checked to be what model APIs
// take: the wire types it unknown (any JSON Schema), hostd sends objects.
function inputSchema(t: ToolDefinition): ToolInputSchema {
  const s = t.inputSchema;
  if (typeof s !== 'object' || s === null || Array.isArray(s) || (s as { type?: unknown }).type !== 'object') {
    throw new Error(`toolSchemas: tool ${JSON.stringify(t.name)} has an inputSchema that is not a JSON Schema of an object (${JSON.stringify(s)}); model APIs take only those`);
  }
  return s as ToolInputSchema;
}

function isToolList(d: ToolsDefinitionsResult | readonly ToolDefinition[]): d is readonly ToolDefinition[] {
  return Array.isArray(d);
}

/** A model's tool call: the tool's name, its input as the model wrote it, and the call's id. */
export interface ToolCall {
  name: string;
  input: unknown;
  /**
   * The model API's id of the call (Anthropic's tool_use id, OpenAI's
   * tool_call id), sent as the toolCallId that files the call's review
   * records. Left out, hostd makes one up.
   */
  id?: string;
}

/** What became of a tool call. */
export interface ToolRun {
  /**
   * The text to hand back to the model as the tool's result: the result's
   * content, which on a failure starts `Error CODE: message` (wire-contract
   * §4). For a tool name hostd does not serve, the same form with
   * UNKNOWN_TOOL and the daemon's message, which lists the tools.
   */
  text: string;
  /** The call failed; mark the tool result as an error (Anthropic's is_error). */
  isError: boolean;
  /** The repeat guard stopped the turn: end it rather than call the model again (wire-contract §4). */
  terminate: boolean;
  /** The whole tools.execute result; absent when hostd refused the call as UNKNOWN_TOOL. */
  result: AnyToolResult | undefined;
}

// The client surface runTool needs.
interface Executor {
  executeAny(sessionId: string, tool: string, args: unknown, options: { promptId?: string; toolCallId?: string } & CallOptions): Promise<AnyToolResult>;
}

/** Options of runTool besides the call's own. */
export interface RunToolOptions extends CallOptions {
  /** The user turn the call belongs to; the repeat guard counts failed edits per turn only with it. */
  promptId?: string;
  /**
   * The form of an edit's result when the model's call does not choose
   * one (edit-contract §5.5): "compact", the new tag and the spans that
   * moved, or "full", every changed line. Left out, the session's form,
   * which is compact unless the session was created with editResult
   * "full".
   */
  editResult?: 'compact' | 'full';
}

/**
 * runTool executes a model's tool call in a session. Every outcome the
 * model must read resolves (a failed tool, an unknown tool name); a request
 * hostd could not serve for the runtime's reasons (unknown session, daemon
 * shutting down, cancelled) rejects with HostdError.
 */
export async function runTool(client: Executor, sessionId: string, call: ToolCall, options: RunToolOptions = {}): Promise<ToolRun> {
  const { editResult, ...rest } = options;
  let result: AnyToolResult;
  try {
    result = await client.executeAny(sessionId, call.name, withEditResult(call, editResult), { ...rest, toolCallId: call.id });
  } catch (err) {
    // The model named a tool that does not exist: that is the model's
    // mistake to fix, so it is told, in the form of every tool error.
    if (err instanceof HostdError && err.codeName === 'UNKNOWN_TOOL') {
      return { text: `Error UNKNOWN_TOOL: ${err.message}`, isError: true, terminate: false, result: undefined };
    }
    throw err;
  }
  return { text: result.content, isError: !result.ok, terminate: result.terminate === true, result };
}

// withEditResult is an edit call's input with the result form the runtime
// asks for, unless the model chose one; any other input as it is.
function withEditResult(call: ToolCall, form: RunToolOptions['editResult']): unknown {
  const input = call.input;
  if (form === undefined || call.name !== 'edit' || typeof input !== 'object' || input === null || Array.isArray(input) || 'result' in input) {
    return input;
  }
  return { ...input, result: form };
}
