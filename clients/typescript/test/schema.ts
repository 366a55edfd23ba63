// A JSON Schema check of the keywords the OpenRPC document uses, so that
// tests can hold what a real hostd answers to the schemas the types are
// generated from.

/** The schemas a $ref may name (#/components/schemas/NAME). */
export type Schemas = Record<string, unknown>;

/**
 * problems lists where value does not fit schema, as "$.a.b: why"; an
 * empty list means it fits.
 */
export function problems(schema: unknown, value: unknown, schemas: Schemas, at = '$'): string[] {
  if (schema === true || schema === undefined) {
    return [];
  }
  if (schema === false) {
    return [`${at}: no value is allowed here`];
  }
  const s = schema as Record<string, unknown>;
  if (typeof s['$ref'] === 'string') {
    const name = s['$ref'].replace('#/components/schemas/', '');
    if (!(name in schemas)) {
      return [`${at}: $ref ${s['$ref']} names no schema`];
    }
    return problems(schemas[name], value, schemas, at);
  }
  if ('const' in s && JSON.stringify(s['const']) !== JSON.stringify(value)) {
    return [`${at}: want ${JSON.stringify(s['const'])}, got ${JSON.stringify(value)}`];
  }
  if (Array.isArray(s['enum']) && !s['enum'].some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    return [`${at}: ${JSON.stringify(value)} is none of ${JSON.stringify(s['enum'])}`];
  }
  for (const k of ['oneOf', 'anyOf']) {
    if (Array.isArray(s[k]) && !s[k].some((alt) => problems(alt, value, schemas, at).length === 0)) {
      return [`${at}: ${JSON.stringify(value)} fits none of ${k}`];
    }
  }
  if (s['type'] !== undefined) {
    const types = Array.isArray(s['type']) ? (s['type'] as string[]) : [s['type'] as string];
    const t = typeOf(value);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) {
      return [`${at}: want ${types.join(' or ')}, got ${t} ${JSON.stringify(value)}`];
    }
  }
  const out: string[] = [];
  if (Array.isArray(value) && s['items'] !== undefined) {
    value.forEach((v, i) => out.push(...problems(s['items'], v, schemas, `${at}[${i}]`)));
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    const props = (s['properties'] ?? {}) as Record<string, unknown>;
    for (const r of (s['required'] ?? []) as string[]) {
      if (!(r in v)) {
        out.push(`${at}.${r}: missing`);
      }
    }
    for (const [k, x] of Object.entries(v)) {
      if (k in props) {
        out.push(...problems(props[k], x, schemas, `${at}.${k}`));
      } else if (s['additionalProperties'] === false) {
        out.push(`${at}.${k}: not in the schema`);
      } else if (typeof s['additionalProperties'] === 'object') {
        out.push(...problems(s['additionalProperties'], x, schemas, `${at}.${k}`));
      }
    }
  }
  return out;
}

function typeOf(v: unknown): string {
  if (v === null) {
    return 'null';
  }
  if (Array.isArray(v)) {
    return 'array';
  }
  if (typeof v === 'number') {
    return Number.isInteger(v) ? 'integer' : 'number';
  }
  return typeof v;
}
