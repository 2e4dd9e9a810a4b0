import { textLanguage } from '../text/language';

/*
 * Text signals the offline policy reads: which question terms matter, and how much of them a chunk covers.
 * Tokens come from the caller (jieba in the adapter), so this stays pure.
 */

/**
 * Function words and question words that carry no topic (Chinese and English). The English part stays this short
 * list: stopwords-iso's 1,298 words (tried for issue 32 §3) left FAQ headings one content word, and the held-out
 * django-notes FAQ questions that have no answer were all answered (0 of 6 refused; docs/offline-policy.md).
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  '的', '了', '是', '吗', '呢', '吧', '啊', '呀', '么', '和', '与', '及', '或', '在', '有', '为', '对', '把', '被', '将', '从',
  '到', '以', '等', '也', '都', '就', '还', '又', '而', '但', '并', '其', '之', '于', '给', '让', '用', '个', '种', '些',
  '什么', '怎么', '怎样', '如何', '哪', '哪个', '哪些', '哪里', '几', '多少', '请', '介绍', '一下', '说明', '是否', '能否',
  '可以', '能', '会', '要', '需要', '应该', '我', '你', '他', '她', '我们', '你们', '他们', '吗？', '呢？', '多', '么样',
  '多久', '多长', '多大', '多高', '多远', '哪儿', '为何', '是不是', '有没有',
  // pointing words that jieba does not split (这一准则): the noun after them carries the topic
  '这一', '那一', '这些', '那些',
  // light verbs of "怎么做", "如何办": the asking, not the topic
  '做', '办', '弄', '搞',
  // measure words that jieba splits off a reference (这款 → 这 + 款)
  '款', '位', '台', '部', '件', '项', '条', '只',
  'the', 'a', 'an', 'of', 'to', 'in', 'on', 'for', 'is', 'are', 'was', 'were', 'be', 'been', 'what', 'which', 'how',
  'why', 'when', 'where', 'who', 'does', 'do', 'did', 'and', 'or', 'with', 'by', 'about', 'can', 'i', 'you', 'me',
  'my', 'your', 'please', 'tell', 'there', 'any', 'should', 'would', 'could', 'from', 'as', 'at', 'into', 'than',
  // "how much", "how many" ask for an amount, as 多少 does
  'much', 'many',
]);

/** Words that point at something the question does not name (spec §7.1 missing_slot: "角色名、版本…"). */
export const REFERENCE_WORDS = ['这个', '那个', '这款', '那款', '该', '它', '它的', '此', '这', '那', 'this', 'that', 'it', 'its'] as const;

/** Nouns naming a kind of thing rather than a thing: after a reference word they say which slot is missing. */
export const SLOT_NOUNS: Readonly<Record<string, string>> = {
  角色: '角色名', 产品: '产品型号', 型号: '产品型号', 设备: '设备型号', 版本: '版本号', 模块: '模块名', 文件: '文件名',
  系统: '系统名称', 功能: '功能名称', 接口: '接口名称', 服务: '服务名称', 套餐: '套餐名称', 路由器: '路由器型号',
  product: 'product name', model: 'model name', version: 'version', device: 'device model', feature: 'feature name',
};

const PUNCTUATION_ONLY = /^[\s\p{P}\p{S}]*$/u;

/** The question's topic terms: lower-cased tokens without stopwords, reference words and punctuation, de-duplicated. */
export function topicTerms(tokens: readonly string[]): string[] {
  const references = new Set<string>(REFERENCE_WORDS);
  const terms = tokens
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token && !PUNCTUATION_ONLY.test(token) && !STOPWORDS.has(token) && !references.has(token));
  return [...new Set(terms)];
}

/** Share of `terms` found in `text` (case-insensitive substring), 0 when there are no terms. */
export function coverage(terms: readonly string[], text: string): number {
  if (terms.length === 0) return 0;
  const haystack = text.toLowerCase();
  return terms.filter((term) => haystack.includes(term)).length / terms.length;
}

/**
 * The slot a reference leaves open ("这个角色" → 角色名, "this product" → product name), or null when the question
 * names what it asks about.
 */
export function unresolvedSlot(tokens: readonly string[], terms: readonly string[], question = tokens.join('')): string | null {
  const lowered = tokens.map((token) => token.trim().toLowerCase());
  const referenceAt = lowered.findIndex((token) => (REFERENCE_WORDS as readonly string[]).includes(token));
  if (referenceAt < 0) return null;
  const named = terms.filter((term) => !(term in SLOT_NOUNS) && !GENERIC_TERMS.has(term));
  if (named.length > 0) return null;
  const slotNoun = lowered.slice(referenceAt + 1).find((token) => token in SLOT_NOUNS);
  return slotNoun ? (SLOT_NOUNS[slotNoun] as string) : textLanguage(question) === 'zh' ? '具体对象' : 'the specific item';
}

/** Attribute words that ask about an aspect, not name a thing (so "这个角色的属性" still names nothing). */
export const GENERIC_TERMS: ReadonlySet<string> = new Set([
  '属性', '参数', '规格', '价格', '定位', '技能', '机制', '性能', '作用', '功能', '用法', '配置', '设置', '步骤', '方法',
  '原理', '特点', '区别', '优点', '缺点', '含义', '定义', '时间', '要求', '条件', '限制', '流程', '费用', '型号', '版本',
  'price', 'cost', 'parameters', 'specs', 'settings', 'steps', 'usage', 'configuration', 'features', 'limits', 'requirements',
]);
