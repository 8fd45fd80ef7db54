/**
 * PostgreSQL text cannot hold U+0000: a string carrying it fails the statement that stores or
 * compares it. Every input that can reach Postgres is refused at the edge with this message.
 */
export const nulMessage = 'must not contain NUL (\\u0000) characters';

export function hasNul(value: string): boolean {
  return value.includes('\u0000');
}

/**
 * The first string inside a parsed input (JSON body, query, path parameters) that holds a NUL,
 * as the path of its field (`rooms.0.name`), or null. Keys count as fields too.
 */
export function findNul(value: unknown, path: string[] = []): string | null {
  if (typeof value === 'string') return hasNul(value) ? path.join('.') || 'body' : null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findNul(value[index], [...path, String(index)]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (hasNul(key)) return [...path, key.replaceAll('\u0000', '\\u0000')].join('.');
      const found = findNul(item, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}
