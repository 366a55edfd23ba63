#!/usr/bin/env node
// generate.mjs writes src/generated.ts, the TypeScript types of hostd's
// wire, from docs/openrpc.json (the document rpc.discover answers): every
// method's params and result, the notifications' params, each built-in
// tool's arguments and result, and the error codes: the JSON-RPC ones
// (components.errors), the tool ones (x-tool-errors) with the shape of
// each one's details, and what the repeat guard adds to them
// (x-repeat-guard-details). The daemon generates all of it from its Go
// definitions, so these types are the daemon's own account.
//
//	node scripts/generate.mjs          rewrite src/generated.ts
//	node scripts/generate.mjs --check  fail when src/generated.ts differs
//
// It is plain Node with no dependencies: the document's schemas use only
// type, properties, required, items, additionalProperties, oneOf, enum,
// $ref and annotations, and a keyword it does not know stops it with an
// error rather than being dropped from a type.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const documentPath = path.resolve(here, '../../../docs/openrpc.json');
export const outputPath = path.resolve(here, '../src/generated.ts');

// Annotations carry no type information; the generator reads only
// description from them.
const annotations = new Set(['description', 'format', 'pattern', 'minimum', 'maximum', 'title', 'minLength', 'maxLength', 'default', 'examples']);
const typed = new Set(['type', 'properties', 'required', 'items', 'additionalProperties', 'oneOf', 'anyOf', 'enum', 'const', '$ref', 'minItems', 'maxItems']);

// pascal turns a wire name ("session.setWorkspace", "$/cancelRequest")
// into a type name ("SessionSetWorkspace", "CancelRequest").
export function pascal(name) {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');
}

function docComment(text, indent) {
  if (!text) {
    return '';
  }
  const lines = String(text).replaceAll('*/', '*\\/').split('\n');
  if (lines.length === 1) {
    return `${indent}/** ${lines[0]} */\n`;
  }
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

function propertyKey(key) {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
}

function union(types) {
  const unique = [...new Set(types)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

function arrayOf(t) {
  return /^[A-Za-z0-9_]+$/.test(t) ? `${t}[]` : `Array<${t}>`;
}

// tsType is the TypeScript type of schema s; where names s's place in the
// document for error messages; indent is the indentation of the line the
// type starts on.
export function tsType(s, where, indent = '') {
  if (s === true || s === undefined) {
    return 'unknown';
  }
  if (s === false) {
    return 'never';
  }
  if (typeof s !== 'object' || s === null || Array.isArray(s)) {
    throw new Error(`${where}: a schema must be an object or a boolean, not ${JSON.stringify(s)}`);
  }
  for (const k of Object.keys(s)) {
    if (!annotations.has(k) && !typed.has(k)) {
      throw new Error(`${where}: schema keyword "${k}" is not supported by scripts/generate.mjs; teach it the keyword rather than dropping it`);
    }
  }
  if (s.$ref !== undefined) {
    const m = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(s.$ref);
    if (!m) {
      throw new Error(`${where}: $ref ${JSON.stringify(s.$ref)} does not point into #/components/schemas`);
    }
    return m[1];
  }
  if (s.const !== undefined) {
    return JSON.stringify(s.const);
  }
  if (s.enum !== undefined) {
    return union(s.enum.map((v) => JSON.stringify(v)));
  }
  for (const k of ['oneOf', 'anyOf']) {
    if (s[k] !== undefined) {
      return union(s[k].map((alt, i) => tsType(alt, `${where}.${k}[${i}]`, indent)));
    }
  }
  if (Array.isArray(s.type)) {
    return union(s.type.map((t) => tsType({ ...s, type: t }, where, indent)));
  }
  switch (s.type) {
    case undefined:
      if (s.properties !== undefined || s.additionalProperties !== undefined) {
        return objectType(s, where, indent);
      }
      return 'unknown';
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = tsType(s.items, `${where}.items`, indent);
      // A fixed-length array of one item type, such as a [from, to]
      // range, is a tuple.
      if (s.minItems !== undefined && s.minItems === s.maxItems && s.minItems > 0 && s.minItems <= 8) {
        return `[${Array(s.minItems).fill(item).join(', ')}]`;
      }
      return arrayOf(item);
    }
    case 'object':
      return objectType(s, where, indent);
    default:
      throw new Error(`${where}: unknown schema type ${JSON.stringify(s.type)}`);
  }
}

function objectType(s, where, indent) {
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  for (const r of required) {
    if (!(r in props)) {
      throw new Error(`${where}: required member "${r}" has no schema in properties`);
    }
  }
  const inner = indent + '  ';
  let body = '';
  for (const [key, sub] of Object.entries(props)) {
    body += docComment(sub && sub.description, inner);
    body += `${inner}${propertyKey(key)}${required.has(key) ? '' : '?'}: ${tsType(sub, `${where}.${key}`, inner)};\n`;
  }
  const extra = s.additionalProperties;
  if (extra !== undefined && extra !== false) {
    // Next to named members the index signature must admit their types
    // too, so it is unknown; alone it carries the schema's type.
    const t = Object.keys(props).length === 0 ? tsType(extra, `${where}.additionalProperties`, inner) : 'unknown';
    body += `${inner}[key: string]: ${t};\n`;
  }
  if (body === '') {
    return 'Record<string, never>';
  }
  return `{\n${body}${indent}}`;
}

// paramsType is the object type of a by-name params list.
function paramsType(params, where) {
  const schema = { type: 'object', properties: {}, required: [], additionalProperties: false };
  for (const p of params) {
    schema.properties[p.name] = p.description && !p.schema.description ? { ...p.schema, description: p.description } : p.schema;
    if (p.required) {
      schema.required.push(p.name);
    }
  }
  return tsType(schema, where);
}

function declare(name, type, description) {
  const keyword = type.startsWith('{\n') ? `export interface ${name} ` : `export type ${name} = `;
  return `${docComment(description, '')}${keyword}${type}${keyword.startsWith('export type') ? ';' : ''}\n\n`;
}

// generate returns the text of src/generated.ts for the OpenRPC document doc.
export function generate(doc) {
  let out = `// Code generated by scripts/generate.mjs from docs/openrpc.json. DO NOT EDIT.
// Regenerate with: npm run generate

/** The protocol version these types describe (host.info's protocolVersion). */
export const protocolVersion = ${JSON.stringify(Number(doc.info.version))};

`;
  const schemas = doc.components?.schemas ?? {};
  for (const [name, s] of Object.entries(schemas)) {
    out += declare(name, tsType(s, `components.schemas.${name}`), s.description);
  }

  const methods = doc.methods ?? [];
  for (const m of methods) {
    if (m.paramStructure !== undefined && m.paramStructure !== 'by-name') {
      throw new Error(`method ${m.name}: paramStructure ${m.paramStructure} is not supported (hostd takes params by name)`);
    }
    const base = pascal(m.name);
    out += declare(`${base}Params`, paramsType(m.params ?? [], `${m.name}.params`), `Params of ${m.name}.`);
    out += declare(`${base}Result`, tsType(m.result.schema, `${m.name}.result`), `Result of ${m.name}.`);
  }
  out += '/** Every method: its params and result types. */\nexport interface Methods {\n';
  for (const m of methods) {
    const base = pascal(m.name);
    out += docComment(m.summary + (m['x-unstable'] ? '\n\n@experimental x-unstable: its shape may change in any release.' : ''), '  ');
    out += `  ${JSON.stringify(m.name)}: { params: ${base}Params; result: ${base}Result };\n`;
  }
  out += '}\n\nexport type MethodName = keyof Methods;\n\n';
  out += `/** The names of every method, in the document's order. */\nexport const methodNames: readonly MethodName[] = ${JSON.stringify(methods.map((m) => m.name))};\n\n`;

  const notes = doc['x-notifications'] ?? [];
  for (const n of notes) {
    out += declare(`${pascal(n.name)}Params`, paramsType(n.params ?? [], `${n.name}.params`), `${n.summary}\n\nDirection: ${n.direction}.`);
  }
  for (const [direction, name] of [['server-to-client', 'ServerNotifications'], ['client-to-server', 'ClientNotifications']]) {
    out += `/** The notifications sent ${direction}, by method name. */\nexport interface ${name} {\n`;
    for (const n of notes.filter((x) => x.direction === direction)) {
      out += `  ${JSON.stringify(n.name)}: ${pascal(n.name)}Params;\n`;
    }
    out += '}\n\n';
  }
  for (const n of notes) {
    if (n.direction !== 'server-to-client' && n.direction !== 'client-to-server') {
      throw new Error(`notification ${n.name}: unknown direction ${JSON.stringify(n.direction)}`);
    }
  }

  const tools = doc['x-tools'] ?? [];
  out += '/** Each built-in tool\'s arguments (tools.execute args), by tool name. */\nexport interface ToolArgs {\n';
  for (const t of tools) {
    out += docComment(t.description, '  ');
    out += `  ${JSON.stringify(t.name)}: ${tsType(t.args, `x-tools.${t.name}.args`)};\n`;
  }
  out += '}\n\n/** Each built-in tool\'s result (what tools.execute answers), by tool name. */\nexport interface ToolResults {\n';
  for (const t of tools) {
    out += `  ${JSON.stringify(t.name)}: ${tsType(t.result, `x-tools.${t.name}.result`)};\n`;
  }
  out += '}\n\nexport type ToolName = keyof ToolArgs;\n\n';
  out += `/** The names of the built-in tools, in the document's order. */\nexport const toolNames: readonly ToolName[] = ${JSON.stringify(tools.map((t) => t.name))};\n\n`;

  out += errorTypes(doc, methods);
  return out;
}

// errorTypes declares the error codes: wireErrors from components.errors
// (checked against the errors each method documents), toolErrors and the
// ToolError union from x-tool-errors, each code's details typed.
function errorTypes(doc, methods) {
  const wire = doc.components?.errors ?? {};
  for (const [name, e] of Object.entries(wire)) {
    if (e.data?.code !== name || !Number.isInteger(e.code)) {
      throw new Error(`components.errors.${name}: want {code: <integer>, data: {code: ${JSON.stringify(name)}}}, got ${JSON.stringify(e)}`);
    }
  }
  for (const m of methods) {
    for (const e of m.errors ?? []) {
      const name = e.data?.code ?? e.message;
      if (wire[name] === undefined || wire[name].code !== e.code) {
        throw new Error(`method ${m.name} documents error ${name} (${e.code}), which components.errors ${wire[name] ? `gives code ${wire[name].code}` : 'lacks'}`);
      }
    }
  }
  let out = '/**\n * Every JSON-RPC error hostd answers with, by the name error.data.code\n * carries (wire-contract §2): its code, and whether the same request can\n * succeed when sent again as it is.\n */\nexport const wireErrors = {\n';
  for (const [name, e] of Object.entries(wire)) {
    out += docComment(e['x-description'], '  ');
    out += `  ${name}: { code: ${e.code}, retriable: ${e['x-retriable'] === true} },\n`;
  }
  out += '} as const;\n\n/** The name of a JSON-RPC error (error.data.code). */\nexport type WireErrorName = keyof typeof wireErrors;\n\n';

  const tools = doc['x-tool-errors'];
  if (!Array.isArray(tools) || tools.length === 0) {
    throw new Error('the document has no x-tool-errors: the tool error codes cannot be typed');
  }
  const guard = doc['x-repeat-guard-details'];
  if (guard !== undefined) {
    out += declare('RepeatGuardDetails', tsType(guard, 'x-repeat-guard-details'), guard.description);
  }
  const members = [];
  const seen = new Set();
  out += '/**\n * Every tool error code (error.code of a result with ok: false,\n * wire-contract §4), with whether the same intent can succeed once the\n * model does what the message says.\n */\nexport const toolErrors = {\n';
  for (const t of tools) {
    if (!/^[A-Z][A-Z0-9_]*$/.test(t.code) || typeof t.retriable !== 'boolean' || seen.has(t.code)) {
      throw new Error(`x-tool-errors: want a new code in capitals and a boolean retriable, got ${JSON.stringify({ code: t.code, retriable: t.retriable })}`);
    }
    seen.add(t.code);
    out += docComment(t.description, '  ');
    out += `  ${t.code}: { retriable: ${t.retriable} },\n`;
  }
  out += '} as const;\n\n/** A tool error code. */\nexport type ToolErrorCode = keyof typeof toolErrors;\n\n';
  const extra = guard === undefined ? undefined : 'RepeatGuardDetails';
  for (const t of tools) {
    let details = extra;
    if (t.details !== undefined) {
      const name = `${pascal(t.code.toLowerCase().replaceAll('_', '-'))}Details`;
      out += declare(name, tsType(t.details, `x-tool-errors.${t.code}.details`), `error.details of ${t.code}.`);
      details = extra === undefined ? name : `${name} & Partial<${extra}>`;
    }
    members.push(`  | { code: ${JSON.stringify(t.code)}; message: string; retriable: ${t.retriable}${details ? `; details?: ${details}` : ''} }`);
  }
  out += '/**\n * The error of a tool result with ok: false, by code: test error.code to\n * reach the code\'s details. A newer daemon may answer a code not listed\n * here (wire-contract §6); treat it by its retriable flag and content.\n */\nexport type ToolError =\n' + members.join('\n') + ';\n';
  return out;
}

// readDocument is docs/openrpc.json.
export function readDocument() {
  return JSON.parse(fs.readFileSync(documentPath, 'utf8'));
}

function main() {
  const check = process.argv.includes('--check');
  const text = generate(readDocument());
  const rel = path.relative(process.cwd(), outputPath);
  if (check) {
    let current = null;
    try {
      current = fs.readFileSync(outputPath, 'utf8');
    } catch {
      // reported below
    }
    if (current !== text) {
      console.error(`${rel} is out of date with docs/openrpc.json; regenerate it with: npm run generate (and commit the result)`);
      process.exit(1);
    }
    console.log(`${rel} is current`);
    return;
  }
  fs.writeFileSync(outputPath, text);
  console.log(`wrote ${rel}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main();
}
