import { useState, type FormEvent } from 'react';
import type { Api, RagOutcome } from '../api';
import { useAction } from '../use-action';
import { ErrorLine } from './error-line';

/**
 * A waiting run's question: each option is a button, or a free-text answer. A refused answer (the run is no longer
 * waiting, the text is empty or too long) shows the API's message and leaves the form as it was.
 */
export function HitlForm({ api, workflowId, hitl, onAnswered }: { api: Api; workflowId: string; hitl: RagOutcome['hitl']; onAnswered: (next: RagOutcome) => void }) {
  const [text, setText] = useState('');
  const { busy, error, run } = useAction();
  if (hitl === null) return null;

  const send = (answer: string) =>
    run(async () => {
      onAnswered(await api.answer(workflowId, answer));
      setText('');
    });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send(text);
  };

  return (
    <section className="hitl" aria-label="answer the run">
      <h2>Waiting for you <span className="muted">(round {hitl.round})</span></h2>
      <p className="prompt" lang="zh-CN">{hitl.prompt}</p>
      {hitl.options.length > 0 && (
        <div className="options" role="group" aria-label="options">
          {hitl.options.map((option) => (
            <button key={option} type="button" disabled={busy} onClick={() => void send(option)}>{option}</button>
          ))}
        </div>
      )}
      <form onSubmit={submit}>
        <label htmlFor={`answer-${workflowId}`}>Your answer</label>
        <input id={`answer-${workflowId}`} value={text} onChange={(event) => setText(event.target.value)} disabled={busy} />
        <button type="submit" disabled={busy}>Send answer</button>
      </form>
      <ErrorLine error={error} />
    </section>
  );
}
