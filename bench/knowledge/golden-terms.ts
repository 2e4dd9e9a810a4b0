/*
 * The words the golden-set builder (bench/build-golden-sets.ts) drops before it finds a paragraph's nearest
 * neighbours by BM25: frozen as they were when the open sets were first built (2026-12-01), so that the sets stay
 * the same documents when the offline grader's own stopwords change (core/offline-policy/text-signals.ts). Changing
 * this list changes the sets, and every report measured on them.
 */

const FROZEN_STOPWORDS: ReadonlySet<string> = new Set([
  '的', '了', '是', '吗', '呢', '吧', '啊', '呀', '么', '和', '与', '及', '或', '在', '有', '为', '对', '把', '被', '将', '从',
  '到', '以', '等', '也', '都', '就', '还', '又', '而', '但', '并', '其', '之', '于', '给', '让', '用', '个', '种', '些',
  '什么', '怎么', '怎样', '如何', '哪', '哪个', '哪些', '哪里', '几', '多少', '请', '介绍', '一下', '说明', '是否', '能否',
  '可以', '能', '会', '要', '需要', '应该', '我', '你', '他', '她', '我们', '你们', '他们', '吗？', '呢？', '多', '么样',
  '多久', '多长', '多大', '多高', '多远', '哪儿', '为何', '是不是', '有没有',
  // measure words that jieba splits off a reference (这款 → 这 + 款)
  '款', '位', '台', '部', '件', '项', '条', '只',
  'the', 'a', 'an', 'of', 'to', 'in', 'on', 'for', 'is', 'are', 'was', 'were', 'be', 'been', 'what', 'which', 'how',
  'why', 'when', 'where', 'who', 'does', 'do', 'did', 'and', 'or', 'with', 'by', 'about', 'can', 'i', 'you', 'me',
  'my', 'your', 'please', 'tell', 'there', 'any', 'should', 'would', 'could', 'from', 'as', 'at', 'into', 'than',
]);
const FROZEN_REFERENCE_WORDS: ReadonlySet<string> = new Set(['这个', '那个', '这款', '那款', '该', '它', '它的', '此', '这', '那', 'this', 'that', 'it', 'its']);
const PUNCTUATION_ONLY = /^[\s\p{P}\p{S}]*$/u;

/** A paragraph's words for neighbour search: lower-cased, de-duplicated, without the frozen stopwords. */
export function goldenSetTerms(tokens: readonly string[]): string[] {
  const terms = tokens
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token && !PUNCTUATION_ONLY.test(token) && !FROZEN_STOPWORDS.has(token) && !FROZEN_REFERENCE_WORDS.has(token));
  return [...new Set(terms)];
}
