import { CITATION_CHECK_LABEL, CITATION_CHECK_TITLE } from '../citation-check';
import type { ShownAnswer } from '../shown-answer';
import { StreamSources } from './stream-sources';

/**
 * The answer of the live turn as it is written: its sources, the text so far with a caret, and a note when what was
 * shown was dropped and is being written again. A polite live region that is busy while the text grows, so a screen
 * reader reads the answer once, when it is final, not token by token. Once the run settles the turn's AnswerView
 * (with the citations' quoted spans) takes its place.
 */
export function StreamingAnswer({ shown }: { shown: ShownAnswer }) {
  const writing = shown.final === null;
  return (
    <div className="streaming-answer" data-state={writing ? 'writing' : 'final'}>
      <StreamSources sources={shown.sources} />
      {shown.rewritten !== null && writing && <p className="muted rewritten">rewritten: {shown.rewritten}</p>}
      <div aria-live="polite" aria-busy={writing}>
        <p className={writing ? 'answer-text streaming' : 'answer-text'} lang="zh-CN">
          {shown.text}
          {writing && <span className="caret" aria-hidden="true" />}
        </p>
        {!writing && shown.final && <p className="muted"><strong className={`verify-${shown.final.verification}`} title={CITATION_CHECK_TITLE}>{CITATION_CHECK_LABEL[shown.final.verification]}</strong></p>}
      </div>
    </div>
  );
}
