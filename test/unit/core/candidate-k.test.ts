import { parseConfig } from '../../../core/config';
import { INVALID_CANDIDATE_K, resolveCandidateK } from '../../../core/retrieval/candidate-k';

// Default multiplier 3 (spec §1); top_k 8 (spec §1 default), as in the verified examples of spec §6.2.
const settings = (candidateKRaw: string, candidateMultiplier = 3) => ({ candidateKRaw, candidateMultiplier });

describe('candidate pool (spec §6.2)', () => {
  test('U01 top_k 8, no candidate env → candidate_k 24 from multiplier', () => {
    const { retrieval } = parseConfig({});
    expect(resolveCandidateK(retrieval.topK, retrieval)).toStrictEqual({
      candidateK: 24, // 8 × 3
      meta: { candidate_k_source: 'multiplier', retrieval_candidate_multiplier: 3 },
    });
  });

  test('U02 RETRIEVAL_CANDIDATE_K 30 → 30 from env', () => {
    const { retrieval } = parseConfig({ RETRIEVAL_CANDIDATE_K: '30' });
    expect(resolveCandidateK(8, retrieval)).toStrictEqual({
      candidateK: 30,
      meta: { candidate_k_source: 'env', retrieval_candidate_multiplier: 3 },
    });
  });

  test('U02 RETRIEVAL_CANDIDATE_K 5 → 8 from env (never below top_k)', () => {
    const { retrieval } = parseConfig({ RETRIEVAL_CANDIDATE_K: '5' });
    expect(resolveCandidateK(8, retrieval)).toStrictEqual({
      candidateK: 8,
      meta: { candidate_k_source: 'env', retrieval_candidate_multiplier: 3 },
    });
  });

  test('U02 RETRIEVAL_CANDIDATE_K abc → 24 from multiplier + "invalid RETRIEVAL_CANDIDATE_K"', () => {
    const { retrieval } = parseConfig({ RETRIEVAL_CANDIDATE_K: 'abc' });
    expect(resolveCandidateK(8, retrieval)).toStrictEqual({
      candidateK: 24,
      meta: {
        candidate_k_source: 'multiplier',
        retrieval_candidate_multiplier: 3,
        candidate_k_config_error: 'invalid RETRIEVAL_CANDIDATE_K',
      },
    });
  });

  // Python int() semantics on the stripped raw value; expected values computed with CPython 3.11.
  test.each([
    ['-4', 8, 'env'], // verified in spec §6.2: max(-4, 8)
    ['0', 8, 'env'],
    [' 30 ', 30, 'env'],
    ['+30', 30, 'env'],
    ['040', 40, 'env'],
    ['1_000', 1000, 'env'],
    ['\x1c30\x1c', 30, 'env'], // str.strip() removes \x1c before int() sees the value
    ['\u300030', 30, 'env'], // ideographic space
    ['', 24, 'multiplier'],
    ['   ', 24, 'multiplier'], // stripped to "" → treated as unset, no error
  ])('RETRIEVAL_CANDIDATE_K %j → %d from %s', (raw, candidateK, source) => {
    const result = resolveCandidateK(8, settings(raw));
    expect(result.candidateK).toBe(candidateK);
    expect(result.meta.candidate_k_source).toBe(source);
    expect(result.meta).not.toHaveProperty('candidate_k_config_error');
  });

  test.each([
    'abc',
    '30.5',
    '3e1',
    '0x1e',
    '1__0',
    '30 0',
    // Deliberate deviations (core/config.ts pythonInt): Python accepts these (30 and 10^20, both "env").
    '３０',
    '99999999999999999999',
  ])(
    'RETRIEVAL_CANDIDATE_K %j → multiplier with the config error',
    (raw) => {
      expect(resolveCandidateK(8, settings(raw))).toStrictEqual({
        candidateK: 24,
        meta: {
          candidate_k_source: 'multiplier',
          retrieval_candidate_multiplier: 3,
          candidate_k_config_error: INVALID_CANDIDATE_K,
        },
      });
    },
  );

  test.each([
    // [topK, multiplier, expected] — max(top_k × M, top_k)
    [8, 1, 8],
    [5, 4, 20],
    [1, 3, 3],
  ])('top_k %d × multiplier %d → %d', (topK, multiplier, expected) => {
    expect(resolveCandidateK(topK, settings('', multiplier)).candidateK).toBe(expected);
  });

  test('the multiplier is reported even when the env value wins', () => {
    expect(resolveCandidateK(8, settings('50', 7)).meta.retrieval_candidate_multiplier).toBe(7);
  });
});
