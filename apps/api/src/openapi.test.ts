import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.ts';

type Schema = {
  type?: string | string[];
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  $ref?: string;
  [key: string]: unknown;
};

const document = buildOpenApiDocument() as unknown as {
  paths: Record<
    string,
    Record<
      string,
      {
        requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
        responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
      }
    >
  >;
  components?: { schemas?: Record<string, Schema> };
};

const resolve = (schema: Schema): Schema =>
  schema.$ref ? (document.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')] ?? schema) : schema;

/** Every property named `name` in every response schema, with the path and status it is under. */
function propertiesNamed(name: string): Array<{ where: string; schema: Schema }> {
  const found: Array<{ where: string; schema: Schema }> = [];
  const seen = new Set<Schema>();
  const walk = (schema: unknown, where: string): void => {
    if (!schema || typeof schema !== 'object' || seen.has(schema as Schema)) return;
    seen.add(schema as Schema);
    const resolved = resolve(schema as Schema);
    for (const [key, value] of Object.entries(resolved.properties ?? {})) {
      if (key === name) found.push({ where, schema: resolve(value) });
    }
    for (const value of Object.values(resolved)) {
      if (Array.isArray(value)) value.forEach((item) => walk(item, where));
      else walk(value, where);
    }
  };
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const media of Object.values(response.content ?? {})) walk(media.schema, `${method.toUpperCase()} ${path} ${status}`);
      }
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  it("types POST /book/{bookingId}/consent's finalPrice as a required price", () => {
    const body = document.paths['/book/{bookingId}/consent']?.post?.requestBody;
    expect(body?.required).toBe(true);
    const schema = resolve(body?.content['application/json']?.schema ?? {});
    expect(schema.required).toEqual(['finalPrice']);
    const finalPrice = resolve(schema.properties?.finalPrice ?? {});
    expect(finalPrice.type).toBe('object');
    expect(Object.keys(finalPrice.properties ?? {})).toEqual(['baseRate', 'taxes', 'fees', 'total']);
    expect(finalPrice.required).toEqual(expect.arrayContaining(['baseRate', 'total']));
  });

  it('shows every createdAt as an ISO 8601 date-time, but the batch status the interface fixes in epoch milliseconds', () => {
    const createdAt = propertiesNamed('createdAt');
    expect(createdAt.length).toBeGreaterThan(8);
    const iso = createdAt.filter(({ schema }) => schema.type === 'string' && schema.format === 'date-time');
    const epoch = createdAt.filter(({ schema }) => schema.type === 'integer' && /epoch milliseconds/.test(schema.description ?? ''));
    expect(createdAt.filter((entry) => !iso.includes(entry) && !epoch.includes(entry))).toEqual([]);
    // Only the batches' answers, which share the interface's batch status, keep epoch milliseconds.
    expect([...new Set(epoch.map(({ where }) => where.split(' ')[1]))].every((path) => /batch/.test(path ?? ''))).toBe(true);
  });
});
