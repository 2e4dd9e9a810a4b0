import { tenantKnowledgeBases } from '../../../core/knowledge/tenant-knowledge-bases';

/* Which knowledge bases `ragtime tenant purge` drops (issue 45 §2): those only the tenant's tokens list. */

const sha256 = 'a'.repeat(64);

test('a knowledge base only its tokens list is its own; one another tenant lists, or the default, is shared and kept', () => {
  const tokens = [
    { tenant: 'acme', sha256, kbs: ['acme_kb', 'faq'] },
    { tenant: 'acme', sha256, kbs: ['acme_old', 'manuals'] },
    { tenant: 'globex', sha256, kbs: ['faq'] },
    // A tenant whose tokens list none uses the default one.
    { tenant: 'initech', sha256 },
  ];
  expect(tenantKnowledgeBases(tokens, 'acme', 'manuals')).toEqual({
    own: ['acme_kb', 'acme_old'],
    shared: [
      { kb: 'faq', with: ['globex'] },
      { kb: 'manuals', with: ['initech', '(the default knowledge base)'] },
    ],
  });
  expect(tenantKnowledgeBases(tokens, 'initech', 'manuals')).toEqual({ own: [], shared: [] });
  expect(tenantKnowledgeBases(tokens, 'nobody', 'manuals')).toEqual({ own: [], shared: [] });
});
