import { useState, type FormEvent, type KeyboardEvent } from 'react';
import { filtersOfText } from '../filter-text';

/**
 * The conversation's question box, at the bottom: Enter sends, Shift+Enter starts a new line (and Enter that ends
 * an input method's composition only ends it). The knowledge base is offered when the person may use several.
 */
export function QuestionBox({ kbs, busy, onAsk }: { kbs: string[]; busy: boolean; onAsk: (question: string, kb: string | undefined, filters: Record<string, string[]> | undefined) => Promise<boolean> }) {
  const [question, setQuestion] = useState('');
  const [kb, setKb] = useState('');
  // issue 44 §2: kept between questions, so a conversation stays within what it was filtered to.
  const [filter, setFilter] = useState('');
  const [filterError, setFilterError] = useState<string | null>(null);
  const send = async () => {
    if (busy || question.trim() === '') return;
    let filters: Record<string, string[]> | undefined;
    try {
      filters = filtersOfText(filter);
      setFilterError(null);
    } catch (error) {
      setFilterError((error as Error).message);
      return;
    }
    if (await onAsk(question.trim(), kb || undefined, filters)) setQuestion('');
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send();
  };
  const keyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
    event.preventDefault();
    void send();
  };
  return (
    <form className="ask question-box" onSubmit={submit}>
      <label htmlFor="question">Question</label>
      <textarea id="question" value={question} onChange={(event) => setQuestion(event.target.value)} onKeyDown={keyDown} rows={2} lang="zh-CN" aria-describedby="question-hint" />
      <p id="question-hint" className="muted hint">Enter sends · Shift+Enter for a new line · follow-ups may refer to earlier turns (“它…”)</p>
      {kbs.length > 1 && (
        <label>knowledge base<select value={kb} onChange={(event) => setKb(event.target.value)}>{['', ...kbs].map((name) => <option key={name} value={name}>{name || 'default'}</option>)}</select></label>
      )}
      <label>filter<input type="text" value={filter} onChange={(event) => setFilter(event.target.value)} placeholder="product=atlas lang=en,zh" aria-describedby="filter-hint" spellCheck={false} /></label>
      <p id="filter-hint" className="muted hint">{filterError ?? 'only documents whose metadata matches: key=value, space between keys, a,b for one of'}</p>
      <button type="submit" disabled={busy}>Ask</button>
    </form>
  );
}
