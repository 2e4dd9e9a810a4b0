import { useState, type FormEvent } from 'react';
import type { Api } from '../api';
import { hrefOf } from '../route';
import { useLoad } from '../use-load';
import { useAction } from '../use-action';
import { ErrorLine } from '../parts/error-line';

/** Ask a question (POST /api/runs with wait: false) and go to the run's page, which follows its progress live. */
export function AskPage({ api }: { api: Api }) {
  const kbs = useLoad((signal) => api.kbs(signal), [api]);
  const [question, setQuestion] = useState('');
  const [kb, setKb] = useState('');
  const { busy, error, run } = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const started = await api.ask(question, kb || undefined);
      location.hash = hrefOf.run(started.workflowId);
    });
  };
  return (
    <section>
      <h1>Ask</h1>
      <form className="ask" onSubmit={submit}>
        <label htmlFor="question">Question</label>
        <textarea id="question" value={question} onChange={(event) => setQuestion(event.target.value)} rows={3} lang="zh-CN" />
        {(kbs.data?.kbs.length ?? 0) > 1 && (
          <label>knowledge base<select value={kb} onChange={(event) => setKb(event.target.value)}>{['', ...(kbs.data?.kbs ?? []).map((k) => k.kb)].map((name) => <option key={name} value={name}>{name || 'default'}</option>)}</select></label>
        )}
        <button type="submit" disabled={busy}>Ask</button>
      </form>
      <ErrorLine error={error} />
    </section>
  );
}
