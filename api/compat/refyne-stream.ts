// API version `refyne` on the job stream: each event's data as the product's SSE event models have it.

import { RefyneStreamDataSchemas } from '../../shared/schemas/refyne/jobs.js';
import type { StreamEvent } from '../../shared/schemas/stream.js';

export function refyneStreamEvent(event: StreamEvent): StreamEvent {
  const data = RefyneStreamDataSchemas[event.event].parse(event.data);
  return { ...event, data } as StreamEvent;
}
