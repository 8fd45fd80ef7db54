import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { maskingSpanExporter } from './tracing.ts';

const pan = '4242 4242 4242 4242';
const token = `v2:${'Ab9_-'.repeat(59)}x`;

describe('maskingSpanExporter', () => {
  it('masks card numbers and tokens in span names, attributes, events and status, exporting everything else as recorded', async () => {
    expect(token).toHaveLength(299);
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: maskingSpanExporter(memory) })] });
    const span = provider.getTracer('test').startSpan(`POST /pay/${token}`, {
      attributes: { 'url.path': `/pay/${token}`, 'db.statement': `GETDEL card:${pan}`, 'http.response.status_code': 500 },
    });
    span.recordException(new Error(`card ${pan} refused`));
    span.setStatus({ code: SpanStatusCode.ERROR, message: `token ${token} refused` });
    span.end();
    await provider.forceFlush();
    const [exported] = memory.getFinishedSpans();
    expect(exported?.name).toBe('POST /pay/[Redacted]');
    expect(exported?.attributes).toEqual({
      'url.path': '/pay/[Redacted]',
      'db.statement': 'GETDEL card:[Redacted]',
      'http.response.status_code': 500,
    });
    expect(exported?.events[0]?.attributes?.['exception.message']).toBe('card [Redacted] refused');
    expect(exported?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'token [Redacted] refused' });
    expect(exported?.spanContext().traceId).toBe(span.spanContext().traceId);
    expect(JSON.stringify([exported?.name, exported?.attributes, exported?.events, exported?.status])).not.toMatch(/4242|Ab9_-Ab9_-/);
    await provider.shutdown();
  });

  it('exports a span holding nothing to mask as recorded, without a copy (a copy cost more than the span)', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: maskingSpanExporter(memory) })] });
    const span = provider.getTracer('test').startSpan('GET /v1/whoami', {
      attributes: { 'url.path': '/v1/whoami', 'http.route': '/v1/whoami', 'http.response.status_code': 200, 'a.list': ['one', 'two'] },
    });
    span.recordException(new Error('upstream answered 502 after 1200 ms'));
    span.end();
    await provider.forceFlush();
    const [exported] = memory.getFinishedSpans();
    expect(exported).toBe(span);
    await provider.shutdown();
  });

  it('masks a secret in a list attribute or a recorded exception while other spans pass as they are', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: maskingSpanExporter(memory) })] });
    const tracer = provider.getTracer('test');
    const listed = tracer.startSpan('SET', { attributes: { 'db.args': ['card', pan] } });
    listed.end();
    const thrown = tracer.startSpan('POST /pay');
    thrown.recordException(new Error(`Authorization: Bearer ${'x'.repeat(20)} refused`));
    thrown.end();
    await provider.forceFlush();
    const [first, second] = memory.getFinishedSpans();
    expect(first?.attributes['db.args']).toEqual(['card', '[Redacted]']);
    expect(second?.events[0]?.attributes?.['exception.message']).toBe('Authorization: [Redacted] refused');
    expect((listed as unknown as { attributes: Record<string, unknown> }).attributes['db.args']).toEqual(['card', pan]);
    await provider.shutdown();
  });
});
