/**
 * The console's filter box (issue 44 §2): `product=atlas lang=en,zh` as the API's `filters` ({key: [values]}: every
 * key must match, `a,b` is one of). Only the shape is read here; the server checks keys and values (400 INVALID_INPUT
 * with the reason, shown under the box).
 */
export function filtersOfText(text: string): Record<string, string[]> | undefined {
  const filters: Record<string, string[]> = {};
  for (const item of text.trim().split(/\s+/).filter((part) => part !== '')) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`filter "${item}": write key=value (key=a,b for one of several values)`);
    filters[item.slice(0, eq)] = item.slice(eq + 1).split(',').filter((value) => value !== '');
  }
  return Object.keys(filters).length === 0 ? undefined : filters;
}
