import { RagError } from '../../../core/errors';
import { mergeMeta, parseKeyValues } from '../../../core/knowledge/document-meta';
import { readFrontMatter } from '../../../core/knowledge/front-matter';
import { documentPasses, filterClauses, MetadataFilters, withDocIds } from '../../../core/retrieval/metadata-filter';
import { RagWorkflowInput } from '../../../core/schemas/run-io';

// issue 44 §1–§2: metadata and filters as people write them, and what a bad one says.

const refused = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RagError);
    expect((error as RagError).code).toBe('INVALID_INPUT');
    return (error as RagError).message;
  }
  throw new Error('expected INVALID_INPUT');
};

describe('--filter and --meta arguments', () => {
  test('key=value, repeatable; key=a,b is one of', () => {
    expect(parseKeyValues(['product=atlas', 'lang=en,zh'], '--filter')).toEqual({ product: ['atlas'], lang: ['en', 'zh'] });
  });

  test('a bad filter names itself and the rule: unknown operator, no "=", no value, bad key, key twice', () => {
    expect(refused(() => parseKeyValues(['version>=2'], '--filter'))).toMatchInlineSnapshot(`"--filter "version>=2": unknown operator ">=" (only = is supported); write key=value (key=a,b for one of several values)"`);
    expect(refused(() => parseKeyValues(['product!=atlas'], '--filter'))).toContain('unknown operator "!="');
    expect(refused(() => parseKeyValues(['product'], '--filter'))).toContain('no "=" in it');
    expect(refused(() => parseKeyValues(['product=', 'x'], '--filter'))).toContain('no value after "="');
    expect(refused(() => parseKeyValues(['9lives=x'], '--filter'))).toContain('a metadata key is a letter or _');
    expect(refused(() => parseKeyValues(['a=x', 'a=y'], '--filter'))).toContain('key "a" is given twice');
  });

  test('doc_id filters, but is not metadata one can set', () => {
    expect(parseKeyValues(['doc_id=guides/a.md'], '--filter')).toEqual({ doc_id: ['guides/a.md'] });
    expect(refused(() => parseKeyValues(['doc_id=x'], '--meta'))).toContain('is the document\'s id, not metadata');
  });
});

describe('front matter', () => {
  test('key: value, key: [a, b] and a list of - items; text after the block is not read', () => {
    const text = ['---', 'product: Atlas', 'tags: [setup, "network"]', 'versions:', '  - 1.2', '  - 2', 'nested:', '  a: b', '---', 'product: ignored'].join('\n');
    const { meta, skipped, body } = readFrontMatter(text);
    expect(meta).toEqual({ product: ['Atlas'], tags: ['setup', 'network'], versions: ['1.2', '2'] });
    expect(skipped).toEqual(['a: b', 'nested']);
    expect(body).toBe('product: ignored'); // what is chunked: the text after the block
  });

  test('no block, or an unclosed one: no metadata', () => {
    expect(readFrontMatter('# Title\nproduct: x')).toEqual({ meta: {}, skipped: [], body: '# Title\nproduct: x' });
    expect(readFrontMatter('---\nproduct: x\n').meta).toEqual({});
  });

  test('path comes from the folder; front matter, then --meta, win per key', () => {
    expect(mergeMeta('guides/net/setup.md', { product: ['a'], path: ['fm'] }, { product: ['b'] })).toEqual({ path: ['fm'], product: ['b'] });
    expect(mergeMeta('setup.md', undefined, undefined)).toEqual({});
  });
});

describe('filters', () => {
  test('the API form takes a value or a list, and a run input carries it', () => {
    expect(MetadataFilters.parse({ product: 'atlas', lang: ['en', 'zh'] })).toEqual({ product: ['atlas'], lang: ['en', 'zh'] });
    expect(MetadataFilters.safeParse({ product: [] }).success).toBe(false);
    expect(MetadataFilters.safeParse({ 'a b': 'x' }).success).toBe(false);
    expect(RagWorkflowInput.parse({ question: 'q', sessionId: 's', filters: { product: 'atlas' } }).filters).toEqual({ product: ['atlas'] });
  });

  test('a document passes when every key holds one of the values; forced clauses are ANDed, orMissing lets a document without the key pass', () => {
    const meta = { product: ['atlas'], tags: ['a', 'b'] };
    expect(documentPasses('d1', meta, filterClauses({ product: ['atlas', 'zephyr'], tags: ['b'] }))).toBe(true);
    expect(documentPasses('d1', meta, filterClauses({ product: ['zephyr'] }))).toBe(false);
    expect(documentPasses('d1', undefined, filterClauses({ product: ['atlas'] }))).toBe(false);
    const forced = [{ key: 'acl', anyOf: ['ops'], orMissing: true }];
    expect(documentPasses('d1', meta, filterClauses({ product: ['atlas'] }, forced))).toBe(true);
    expect(documentPasses('d1', { ...meta, acl: ['hr'] }, filterClauses({ product: ['atlas'] }, forced))).toBe(false);
    expect(documentPasses('d1', meta, filterClauses({ doc_id: ['d1'] }))).toBe(true);
  });

  test('the scope pick is a doc_id filter beside the run\'s', () => {
    expect(withDocIds({ product: ['atlas'] }, ['a.md'])).toEqual({ product: ['atlas'], doc_id: ['a.md'] });
    expect(withDocIds(undefined, [])).toBeUndefined();
  });
});
