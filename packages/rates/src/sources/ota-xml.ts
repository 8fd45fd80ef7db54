import type { X2jOptions } from 'fast-xml-parser';

/**
 * How every OpenTravel message a hotel's system sends is parsed (rates and bookings alike):
 * attributes as `@Name`, namespace prefixes dropped, every value kept as text. Hotel systems are
 * not trusted, so entities stay within XML's own: the five built-ins are decoded, no HTML entity
 * is, a DOCTYPE's external or parameter entities fail the parse, and an entity a DOCTYPE declares
 * is replaced once, never inside another (no expansion that grows with nesting), within the
 * parser's size and count limits.
 */
export const otaXmlParserOptions = {
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: false,
} as const satisfies Partial<X2jOptions>;

/** Readers of a parsed OpenTravel message (fast-xml-parser output: attributes as `@Name`). */
export type Node = Record<string, unknown>;

export const asNode = (value: unknown): Node | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : undefined;
export const list = (value: unknown): Node[] =>
  Array.isArray(value) ? value.filter((item): item is Node => asNode(item) !== undefined) : asNode(value) ? [value as Node] : [];
export const attr = (node: Node | undefined, name: string): string | undefined => {
  const value = node?.[`@${name}`];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};
export const text = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value.trim() || undefined;
  const node = asNode(value);
  if (node && typeof node['#text'] === 'string') return (node['#text'] as string).trim() || undefined;
  if (Array.isArray(value)) return value.map(text).filter(Boolean).join('\n') || undefined;
  return undefined;
};
