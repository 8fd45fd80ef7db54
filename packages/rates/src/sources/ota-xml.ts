/** Readers of a parsed OpenTravel message (fast-xml-parser output: attributes as `@Name`). */
export type Node = Record<string, unknown>;

export const asNode = (value: unknown): Node | undefined => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : undefined);
export const list = (value: unknown): Node[] => (Array.isArray(value) ? value.filter((item): item is Node => asNode(item) !== undefined) : asNode(value) ? [value as Node] : []);
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
