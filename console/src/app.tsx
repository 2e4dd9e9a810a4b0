import { useMemo, useState } from 'react';
import { createApi } from './api';
import { AskPage } from './pages/ask-page';
import { ComparePage } from './pages/compare-page';
import { RunPage } from './pages/run-page';
import { RunsPage } from './pages/runs-page';
import { SessionPage } from './pages/session-page';
import { SignInPage } from './pages/sign-in-page';
import { SourcesPage } from './pages/sources-page';
import { WaitingPage } from './pages/waiting-page';
import { hrefOf, usePage, type Page } from './route';
import { tokenStore } from './token-store';

/** Signed out: the sign-in page. Signed in: the navigation and the page of the URL, all through one Api. */
export function App() {
  const [token, setToken] = useState(tokenStore.read);
  const page = usePage();
  const signOut = () => {
    tokenStore.clear();
    setToken(null);
  };
  const api = useMemo(() => (token === null ? null : createApi(token, signOut)), [token]);
  if (api === null) {
    return <SignInPage onSignedIn={(valid) => { tokenStore.write(valid); setToken(valid); }} />;
  }
  return (
    <>
      <header className="top">
        <a className="brand" href={hrefOf.runs()}>ragtime</a>
        <nav aria-label="pages">
          <a href={hrefOf.runs()} aria-current={page.name === 'runs' ? 'page' : undefined}>Runs</a>
          <a href={hrefOf.waiting()} aria-current={page.name === 'waiting' ? 'page' : undefined}>Waiting</a>
          <a href={hrefOf.compare('', '')} aria-current={page.name === 'compare' ? 'page' : undefined}>Compare</a>
          <a href={hrefOf.ask()} aria-current={page.name === 'ask' ? 'page' : undefined}>Ask</a>
          <a href={hrefOf.sources()} aria-current={page.name === 'sources' ? 'page' : undefined}>Sources</a>
        </nav>
        <button type="button" className="quiet" onClick={signOut}>Sign out</button>
      </header>
      <main id="main">{pageView(page, api)}</main>
    </>
  );
}

function pageView(page: Page, api: NonNullable<ReturnType<typeof createApi>>) {
  switch (page.name) {
    case 'runs':
      return <RunsPage api={api} query={page.query} />;
    case 'run':
      return <RunPage key={page.workflowId} api={api} workflowId={page.workflowId} />;
    case 'waiting':
      return <WaitingPage api={api} />;
    case 'session':
      return <SessionPage key={page.sessionId} api={api} sessionId={page.sessionId} />;
    case 'compare':
      return <ComparePage key={`${page.a} ${page.b}`} api={api} a={page.a} b={page.b} />;
    case 'ask':
      return <AskPage key={page.sessionId ?? ''} api={api} sessionId={page.sessionId} />;
    case 'sources':
      return <SourcesPage api={api} />;
  }
}
