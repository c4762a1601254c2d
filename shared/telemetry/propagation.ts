// Which outbound requests carry the trace (a W3C `traceparent` header): the model calls and the tenant's
// webhooks do; the scraped sites and their robots.txt do not — a third-party site has no use for our trace
// ids, and they would mark the requests as coming from this service. Their spans are recorded all the same.
import {
  type Context,
  context,
  createContextKey,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
} from '@opentelemetry/api';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';

const UNPROPAGATED = createContextKey('extract-service.unpropagated');

/** Runs `fn` so that the requests it sends carry no trace headers (nothing changes when tracing is off). */
export function withoutTracePropagation<T>(fn: () => T): T {
  return context.with(context.active().setValue(UNPROPAGATED, true), fn);
}

/** W3C trace context and baggage (the SDK's default), skipped inside withoutTracePropagation. */
export class SelectivePropagator implements TextMapPropagator {
  private readonly inner = new CompositePropagator({
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
  });

  inject(ctx: Context, carrier: unknown, setter: TextMapSetter): void {
    if (ctx.getValue(UNPROPAGATED) === true) return;
    this.inner.inject(ctx, carrier, setter);
  }

  extract(ctx: Context, carrier: unknown, getter: TextMapGetter): Context {
    return this.inner.extract(ctx, carrier, getter);
  }

  fields(): string[] {
    return this.inner.fields();
  }
}
