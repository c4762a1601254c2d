// Finished spans as JSON lines, one span a line, appended to a file (or written to stderr): tracing that needs
// no collector. The API and the worker may share one file; each batch is one append.
import { appendFile, rename, stat } from 'node:fs/promises';
import { type ExportResult, ExportResultCode, hrTimeToMilliseconds } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** Past this size the file is moved to `<file>.1` (replacing the previous one), so it cannot grow forever. */
const MAX_FILE_BYTES = 50 * 1024 * 1024;

export function spanToJson(span: ReadableSpan): Record<string, unknown> {
  const context = span.spanContext();
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    parentSpanId: span.parentSpanId,
    name: span.name,
    kind: span.kind,
    service: span.resource.attributes['service.name'],
    start: new Date(hrTimeToMilliseconds(span.startTime)).toISOString(),
    durationMs: Math.round(hrTimeToMilliseconds(span.duration) * 1000) / 1000,
    status: span.status,
    attributes: span.attributes,
    ...(span.events.length > 0
      ? { events: span.events.map((e) => ({ name: e.name, attributes: e.attributes })) }
      : {}),
  };
}

export class JsonLinesSpanExporter implements SpanExporter {
  private pending: Promise<void> = Promise.resolve();

  /** `path` '-' writes to stderr. */
  constructor(private readonly path: string) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const text = spans.map((s) => `${JSON.stringify(spanToJson(s))}\n`).join('');
    this.pending = this.pending
      .then(() => this.write(text))
      .then(
        () => done({ code: ExportResultCode.SUCCESS }),
        (error: Error) => done({ code: ExportResultCode.FAILED, error }),
      );
  }

  private async write(text: string): Promise<void> {
    if (this.path === '-') {
      process.stderr.write(text);
      return;
    }
    const size = await stat(this.path).then(
      (s) => s.size,
      () => 0,
    );
    if (size > MAX_FILE_BYTES) await rename(this.path, `${this.path}.1`).catch(() => undefined);
    await appendFile(this.path, text);
  }

  async forceFlush(): Promise<void> {
    await this.pending;
  }

  async shutdown(): Promise<void> {
    await this.pending;
  }
}
