import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './knowledge/common';
import { writeSetPair } from './open-sets/common';
import { writeSlice } from './open-sets/slice';
import { DEBIAN_FAQ_README, DEBIAN_FAQ_SET, buildDebianFaq, type BuiltSet } from './open-sets/debian-faq';
import { DJANGO_README, DJANGO_SET, buildDjangoNotes } from './open-sets/django-notes';
import { SECURITY_REPORTS_README, SECURITY_REPORTS_SET, SECURITY_REPORTS_SPLIT, buildSecurityReports } from './open-sets/security-reports';
import { NEWS_EN_README, NEWS_EN_SET, buildNewsEn } from './open-sets/news-en';
import { NEWS_ZH_README, NEWS_ZH_SET, buildNewsZh } from './open-sets/news-zh';
import { TWO_PART_README, TWO_PART_SET, buildTwoPart } from './open-sets/two-part';
import { CLI_PAGES_README, CLI_PAGES_SET, buildCliPages } from './open-sets/cli-pages';

/*
 * The open evaluation sets of issues 26 and 32 (docs/design/evaluation-sets-plan.md, docs/EVALUATION.md): built from the
 * packages bench/fetch-eval-sources.sh fetched (outside the repository) and written as golden sets for
 * `ragtime eval` into .data/golden/ (git-ignored): `<set>` (calibration) and `<set>-heldout`, the same documents.
 * Deterministic: no clock, no randomness, sorted inputs; the split is by unit hash.
 *
 *   bash bench/fetch-eval-sources.sh && npx tsx bench/build-open-sets.ts [--out DIR] [--set NAME]
 */

const SETS: Record<string, { build: () => BuiltSet; readme: string; split?: string }> = {
  [DEBIAN_FAQ_SET]: { build: buildDebianFaq, readme: DEBIAN_FAQ_README },
  [DJANGO_SET]: { build: buildDjangoNotes, readme: DJANGO_README },
  [SECURITY_REPORTS_SET]: { build: buildSecurityReports, readme: SECURITY_REPORTS_README, split: SECURITY_REPORTS_SPLIT },
  [NEWS_EN_SET]: { build: buildNewsEn, readme: NEWS_EN_README },
  [NEWS_ZH_SET]: { build: () => buildNewsZh(), readme: NEWS_ZH_README },
  [TWO_PART_SET]: { build: () => buildTwoPart(), readme: TWO_PART_README },
  [CLI_PAGES_SET]: { build: buildCliPages, readme: CLI_PAGES_README },
};

function main(): void {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: path.join(REPO_ROOT, '.data', 'golden') },
      set: { type: 'string', multiple: true },
      slice: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(`usage: npx tsx bench/build-open-sets.ts [--out DIR] [--set ${Object.keys(SETS).join('|')} …] [--slice DIR]\n  --slice DIR  write the committed slice (test/fixtures/golden/open-slice) instead of the sets\nenv: RAGTIME_EVAL_SOURCES (default ../eval-sources)`);
    return;
  }
  if (values.slice) {
    writeSlice(values.slice, Object.fromEntries(Object.entries(SETS).map(([name, spec]) => [name, spec.build()])));
    return;
  }
  for (const name of values.set ?? Object.keys(SETS)) {
    const spec = SETS[name];
    if (!spec) throw new Error(`unknown set ${name}; expected one of ${Object.keys(SETS).join(', ')}`);
    const built = spec.build();
    for (const note of built.notes) console.log(`  ${name}: ${note}`);
    writeSetPair(values.out, name, built.documents, built.questions, `${spec.readme}\n## Notes of this build\n\n${built.notes.map((n) => `- ${n}`).join('\n')}\n`, spec.split);
  }
}

main();
