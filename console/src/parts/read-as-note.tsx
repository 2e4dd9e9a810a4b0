import type { RagOutcome } from '../api';

type ConversationRecord = NonNullable<RagOutcome['conversation']>;

const HOW: Record<ConversationRecord['condensedBy'], string> = {
  model: 'condensed by the model',
  offline_rules: 'condensed by the offline rules',
  none: 'as asked',
  fallback: 'as asked: condensing failed',
};

/**
 * How a follow-up was read for retrieval: "read as: Aurora X2 路由器的产品价格是多少？ · condensed by the offline rules",
 * the reason in its title. Shown only when the question was rewritten (or condensing failed): a question that
 * stands alone needs no note. `record` is the run's; without it (a run no longer readable), the stored standalone
 * question alone.
 */
export function ReadAsNote({ question, standalone, record }: { question: string; standalone: string | null; record: ConversationRecord | null }) {
  const how = record?.condensedBy ?? null;
  const read = record?.standaloneQuestion ?? standalone;
  if (read === null || (read === question && how !== 'fallback')) return null;
  return (
    <p className="read-as" title={record?.why}>
      <span className="muted">read as:</span> <q lang="zh-CN">{read}</q>
      {how !== null && <span className="muted" data-condensed-by={how}> · {HOW[how]}</span>}
      {record?.why && <span className="visually-hidden"> ({record.why})</span>}
    </p>
  );
}
