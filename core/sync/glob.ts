/*
 * The include and exclude globs of a synced source (issue 46 §1), over paths relative to the source with "/"
 * separators: "*" and "?" stay inside a folder, "**" crosses folders ("docs/**" is everything under docs/), and a glob
 * without "/" matches a file's name in any folder ("*.md").
 */

const escape = (text: string) => text.replace(/[.+^${}()|[\]\\]/g, '\\$&');

/** The regular expression of a glob. */
export function globRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i]!;
    if (char === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      source += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += escape(char);
  }
  return new RegExp(`^${source}$`);
}

/** Whether `path` matches `glob` (a glob without "/" is matched against the file's name). */
export function matchesGlob(path: string, glob: string): boolean {
  const target = glob.includes('/') ? path : path.slice(path.lastIndexOf('/') + 1);
  return globRegExp(glob).test(target);
}

/** Kept by the source: matched by an include (or there are none) and by no exclude. */
export function selectedBy(path: string, include: readonly string[], exclude: readonly string[]): boolean {
  if (include.length > 0 && !include.some((glob) => matchesGlob(path, glob))) return false;
  return !exclude.some((glob) => matchesGlob(path, glob));
}
