import { useEffect, useState } from 'react';

/*
 * The console's pages live in the URL's fragment (#/runs, #/run/<workflowId>, #/ask?session=<id>, …): the server serves one index.html at
 * "/" and needs no fallback route for deep links, and a page can be bookmarked or shared (the token is not in it).
 */

export type Page =
  | { name: 'runs'; query: URLSearchParams }
  | { name: 'run'; workflowId: string }
  | { name: 'waiting' }
  | { name: 'session'; sessionId: string }
  | { name: 'compare'; a: string; b: string }
  | { name: 'ask'; sessionId: string | null }
  | { name: 'sources' };

export function parsePage(hash: string): Page {
  const [path = '', search = ''] = hash.replace(/^#/, '').split('?');
  const query = new URLSearchParams(search);
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  switch (parts[0]) {
    case 'run':
      if (parts[1]) return { name: 'run', workflowId: parts[1] };
      break;
    case 'session':
      if (parts[1]) return { name: 'session', sessionId: parts[1] };
      break;
    case 'waiting':
      return { name: 'waiting' };
    case 'compare':
      return { name: 'compare', a: query.get('a') ?? '', b: query.get('b') ?? '' };
    case 'ask':
      return { name: 'ask', sessionId: query.get('session') || null };
    case 'sources':
      return { name: 'sources' };
  }
  return { name: 'runs', query };
}

export const hrefOf = {
  runs: (query?: URLSearchParams) => `#/runs${query && query.size > 0 ? `?${query.toString()}` : ''}`,
  run: (workflowId: string) => `#/run/${encodeURIComponent(workflowId)}`,
  session: (sessionId: string) => `#/session/${encodeURIComponent(sessionId)}`,
  compare: (a: string, b: string) => `#/compare?${new URLSearchParams({ a, b }).toString()}`,
  waiting: () => '#/waiting',
  sources: () => '#/sources',
  /** A conversation: its session in the URL, so that a reload or a shared link continues it; none: a new one. */
  ask: (sessionId?: string) => (sessionId ? `#/ask?${new URLSearchParams({ session: sessionId }).toString()}` : '#/ask'),
};

/** The page of the current URL, updated on every hash change. */
export function usePage(): Page {
  const [page, setPage] = useState(() => parsePage(location.hash));
  useEffect(() => {
    const update = () => setPage(parsePage(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return page;
}
