import { CITATION_CHECK_LABEL, CITATION_CHECK_TITLE, verificationReason } from '../citation-check';
import type { RagOutcome } from '../api';
import { shownPage } from '../../../core/schemas/page-number';

type Citation = NonNullable<RagOutcome['answer']>['citations'][number];
const CONTEXT_CHARS = 160;

/** The cited document's text around the quote, the quote marked: the reader sees the span in its source. */
function QuotedSpan({ citation, source }: { citation: Citation; source: string | undefined }) {
  const at = source?.indexOf(citation.quote) ?? -1;
  if (source === undefined || at < 0) return <blockquote><mark>{citation.quote}</mark></blockquote>;
  const start = Math.max(0, at - CONTEXT_CHARS);
  const end = Math.min(source.length, at + citation.quote.length + CONTEXT_CHARS);
  return (
    <blockquote className="source-span">
      {start > 0 && '…'}{source.slice(start, at)}<mark>{citation.quote}</mark>{source.slice(at + citation.quote.length, end)}{end < source.length && '…'}
    </blockquote>
  );
}

/** Who graded and wrote (issue 43 §5), the CLI's "answered by" line; nothing for runs that do not say. */
function AnsweredByLine({ by }: { by: RagOutcome['answered_by'] }) {
  if (!by) return null;
  const where = by.endpoint === null ? '' : `${by.provider} @ ${by.endpoint}: `;
  return <p className="muted answered-by">answered by {where}{by.grader} (grader){by.writer === null ? '' : ` · ${by.writer} (writer)`}</p>;
}

const focusCitation = (id: string) => {
  const target = document.getElementById(id);
  if (target instanceof HTMLDetailsElement) target.open = true;
  target?.scrollIntoView({ block: 'nearest' });
  target?.querySelector('summary')?.focus();
};

/**
 * The answer with its inline markers as buttons to the citations, each citation with its quoted span. `scope` keeps
 * the citations' element ids apart when a page shows several answers (the conversation's turns); `citationsOpen`
 * false shows each citation's source span only when asked (a marker's button opens it).
 */
export function AnswerView({ outcome, scope = '', citationsOpen = true }: { outcome: RagOutcome; scope?: string; citationsOpen?: boolean }) {
  const citationId = (marker: number | string) => `${scope}citation-${marker}`;
  const answer = outcome.answer;
  // Issue 33 §6: "verified" is about the quotes, so the grade's confidence stands beside it.
  const confidence = outcome.rag_trace?.evidence_confidence;
  const gradeConfidence = typeof confidence === 'number' ? `grade confidence ${confidence.toFixed(2)}` : null;
  if (answer === null) {
    return (
      <>
        <p className="muted">No answer: {outcome.answer_null_reason ?? 'unknown'}{outcome.answer_error ? ` (${outcome.answer_error.message})` : ''}</p>
        <AnsweredByLine by={outcome.answered_by} />
      </>
    );
  }
  const parts = answer.text.split(/(\[\d+\])/);
  return (
    <div className="answer">
      <p className="answer-text" lang="zh-CN">
        {parts.map((part, i) => {
          const marker = /^\[(\d+)\]$/.exec(part)?.[1];
          return marker ? <button key={i} type="button" className="marker" onClick={() => focusCitation(citationId(marker))} aria-label={`citation ${marker}`}>{part}</button> : <span key={i}>{part}</span>;
        })}
      </p>
      {outcome.rag_trace?.needs_retrieval === false ? (
        // Issue 44 §5: a greeting's reply has no sources and nothing to verify (as core/intent/without-retrieval-text.ts says it).
        <p className="muted">answered without retrieval: {outcome.rag_trace.intent?.intent ?? 'chat'} (decided by the {outcome.rag_trace.intent?.decided_by ?? 'rules'}) · {answer.model} · {answer.duration_ms} ms</p>
      ) : (
        <p className="muted"><strong className={`verify-${answer.verification.status}`} title={CITATION_CHECK_TITLE}>{CITATION_CHECK_LABEL[answer.verification.status]}</strong>{answer.verification.status === 'verified' ? '' : ` (${verificationReason(answer.verification)})`}{gradeConfidence ? ` · ${gradeConfidence}` : ''}{outcome.answered_by ? '' : ` · ${answer.model}`} · {answer.duration_ms} ms{answer.repair_attempted ? ' · repaired once' : ''}</p>
      )}
      <AnsweredByLine by={outcome.answered_by} />
      <ol className="citations">
        {answer.citations.map((citation) => (
          <li key={citation.marker}>
            <details id={citationId(citation.marker)} open={citationsOpen}>
              <summary>[{citation.marker}] {citation.filename ?? 'document'}{shownPage(citation.page_number) !== null ? `, page ${shownPage(citation.page_number)}` : ''}</summary>
              <QuotedSpan citation={citation} source={outcome.docs[citation.doc_index - 1]?.text} />
            </details>
          </li>
        ))}
      </ol>
    </div>
  );
}
