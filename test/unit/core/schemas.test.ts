import {
  CHUNK_LIST_FIELDS,
  GRADE_FIELDS,
  RAG_SUB_TRACE_FIELDS,
  RAG_TRACE_FIELDS,
  RETRIEVAL_META_FIELDS,
  RagTrace,
} from '../../../core/schemas/rag-trace';
import { HitlResumeState } from '../../../core/schemas/hitl-resume-state';
import { RETRIEVED_CHUNK_FIELDS, RetrievedChunk } from '../../../core/schemas/retrieved-chunk';
import { EvidenceGrade } from '../../../core/schemas/model-outputs';
import { HitlAnswer, Question } from '../../../core/schemas/run-io';

describe('trace protocol schemas (spec §5)', () => {
  test('field counts: RagTrace 59, RagSubTrace 58, RetrievedChunk 6, HitlResumeState 7, R 26, GRADE 10', () => {
    expect(RAG_TRACE_FIELDS).toHaveLength(59);
    expect(RAG_SUB_TRACE_FIELDS).toHaveLength(58);
    expect(RETRIEVED_CHUNK_FIELDS).toHaveLength(6);
    expect(Object.keys(RetrievedChunk.shape)).toEqual([...RETRIEVED_CHUNK_FIELDS]);
    expect(Object.keys(HitlResumeState.shape)).toHaveLength(7);
    expect(new Set(RETRIEVAL_META_FIELDS).size).toBe(26);
    expect(new Set(GRADE_FIELDS).size).toBe(10);
  });

  test('RagTrace is RagSubTrace plus sub_traces, last', () => {
    expect(RAG_TRACE_FIELDS.slice(0, 58)).toEqual(RAG_SUB_TRACE_FIELDS);
    expect(RAG_TRACE_FIELDS[58]).toBe('sub_traces');
  });

  test('declaration order of spec §5.1 (first, R-group boundaries, last)', () => {
    expect(RAG_TRACE_FIELDS.slice(0, 3)).toEqual(['tool_used', 'tool_name', 'query']);
    expect(RAG_TRACE_FIELDS[24]).toBe('rerank_enabled'); // field 25
    expect(RAG_TRACE_FIELDS[49]).toBe('auto_merge_steps'); // field 50
    expect(RAG_TRACE_FIELDS.slice(50, 53)).toEqual(['retrieved_chunks', 'initial_retrieved_chunks', 'rewrite_retrieved_chunks']);
    // The R group is fields 25–50, contiguous.
    expect(new Set(RAG_TRACE_FIELDS.slice(24, 50))).toEqual(new Set(RETRIEVAL_META_FIELDS));
    expect(CHUNK_LIST_FIELDS.every((field) => RAG_TRACE_FIELDS.includes(field))).toBe(true);
  });

  test('extra keys are forbidden; every field is optional', () => {
    expect(RagTrace.safeParse({}).success).toBe(true);
    expect(RagTrace.safeParse({ rewrite_count: 1 }).success).toBe(false);
  });

  test('RetrievedChunk requires filename and accepts a string or int page', () => {
    expect(RetrievedChunk.safeParse({ text: 't' }).success).toBe(false);
    expect(RetrievedChunk.safeParse({ filename: 'a', page_number: 'iv' }).success).toBe(true);
    expect(RetrievedChunk.safeParse({ filename: 'a', page_number: 1.5 }).success).toBe(false);
  });

  test('EvidenceGrade: required enums, defaults, confidence within 0..1 (spec §7.1)', () => {
    expect(EvidenceGrade.parse({ relevance: 'weak', answerability: 'partial', route: 'rewrite' })).toEqual({
      relevance: 'weak', answerability: 'partial', ambiguity: 'none', route: 'rewrite', confidence: 0,
      missing_slots: [], hitl_prompt: '', hitl_options: [], reason: '',
    });
    expect(EvidenceGrade.safeParse({ relevance: 'weak', answerability: 'partial', route: 'rewrite', confidence: 1.2 }).success).toBe(false);
    expect(EvidenceGrade.safeParse({ relevance: 'weak', answerability: 'partial', route: 'select' }).success).toBe(false);
    expect(EvidenceGrade.safeParse({ answerability: 'partial', route: 'answer' }).success).toBe(false);
  });
});

describe('text a person typed (issue 14 §7): refused when no embedder could read it', () => {
  const problem = (text: string) => {
    const parsed = Question.safeParse(text);
    return parsed.success ? null : parsed.error.issues.map((issue) => issue.message).join('; ');
  };
  test.each([
    ['a lone high surrogate', 'Aurora \ud800 保修期', 'question is not valid Unicode: it holds a lone surrogate'],
    ['a lone low surrogate', '\udc00', 'question is not valid Unicode: it holds a lone surrogate'],
    ['a NUL byte', 'Aurora\u0000保修期', 'question holds a control character (such as NUL)'],
    ['an escape character', 'a\u001bb', 'question holds a control character (such as NUL)'],
    ['only zero-width characters', '\u200b\u200c\u200d\u2060', 'question has no visible character (only spaces or zero-width characters)'],
    ['zero-width and spaces', '\u200b \u3000 \u200d', 'question has no visible character (only spaces or zero-width characters)'],
    ['only spaces', '   ', 'question is empty after trimming'],
  ])('%s → one clear message', (_what, text, message) => {
    expect(problem(text)).toBe(message);
  });

  test('well-formed text passes: emoji (surrogate pairs), tabs and newlines, CJK, a zero-width joiner inside words', () => {
    for (const text of ['保修期多久？👍', 'line one\n\tline two', 'Aurora X2 路由器', '👨‍👩‍👧 family plan']) expect(problem(text)).toBeNull();
    expect(HitlAnswer.safeParse('\u200b').success).toBe(false);
    expect(HitlAnswer.parse('  Aurora X2 ')).toBe('Aurora X2');
  });
});
