// The JSON-LD graph of a page: its nodes by @id, and paths through nested entities and @id references (an
// author given as {"@id": "#person"} stands for the Person node of that id).
import type { StructuredItem } from '../../../shared/structured-data.js';

export type Props = Record<string, unknown>;
const isRecord = (v: unknown): v is Props => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A path through nested entities and @id references; through an array, every element's value. */
export function at(value: unknown, path: string[], nodes: Map<string, Props>): unknown {
  const node = resolve(value, nodes);
  if (Array.isArray(node)) {
    const all = node.map((v) => at(v, path, nodes)).filter((v) => v !== undefined);
    return all.length === 0 ? undefined : all.length === 1 ? all[0] : all.flat();
  }
  if (path.length === 0) return node;
  if (!isRecord(node)) return undefined;
  return at(node[path[0] as string], path.slice(1), nodes);
}

/** A bare reference ({"@id": …}, perhaps with a @type) stands for the node of that id. */
function resolve(value: unknown, nodes: Map<string, Props>): unknown {
  if (!isRecord(value) || typeof value['@id'] !== 'string') return value;
  if (Object.keys(value).some((k) => k !== '@id' && k !== '@type')) return value;
  return nodes.get(value['@id']) ?? value;
}

export function nodesById(items: StructuredItem[]): Map<string, Props> {
  const nodes = new Map<string, Props>();
  for (const item of items) {
    const id = item.props['@id'];
    if (item.source === 'json-ld' && typeof id === 'string' && !nodes.has(id)) nodes.set(id, item.props);
  }
  return nodes;
}
