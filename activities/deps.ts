// What activities need from the outside world; built once by the worker and passed to createActivities.
import type { Config } from '../shared/config.js';
import type { ContentStore } from '../shared/store/contents.js';
import type { EventStore } from '../shared/store/event-store.js';

export interface ActivityDeps {
  config: Config;
  events: EventStore;
  contents: ContentStore;
}
