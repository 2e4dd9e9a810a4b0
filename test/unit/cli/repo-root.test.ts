import { accessSync, constants, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { SERVICES_SCRIPT, servicesExitCode } from '../../../cli/commands/services';
import { cliDataDir } from '../../../cli/data-dir';
import { EXIT } from '../../../cli/exit-codes';
import { REPO_ROOT, repoPath } from '../../../runtime/repo-root';

/*
 * Issue 24 §4: `ragtime services` ran <parent of the repository>/scripts/services.sh, one `..` too many after the CLI
 * moved into cli/, and the CLI's default data dir was ./.data of wherever it ran. The repository's files are now
 * found from one place, runtime/repo-root.ts; the commands themselves, from a copy of the repository elsewhere, are
 * test/e2e/fresh-clone.test.ts.
 */

describe('the repository root', () => {
  test('is the folder of ragtime\'s package.json', () => {
    expect(REPO_ROOT).toBe(path.resolve(__dirname, '..', '..', '..'));
    expect((JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { name: string }).name).toBe('ragtime');
  });

  test('ragtime services runs the repository\'s scripts/services.sh, an executable file', () => {
    expect(SERVICES_SCRIPT).toBe(path.join(REPO_ROOT, 'scripts', 'services.sh'));
    expect(() => accessSync(SERVICES_SCRIPT, constants.X_OK)).not.toThrow();
  });
});

describe('cliDataDir: RAGTIME_DATA_DIR as the command reads it', () => {
  test('unset or blank: the repository\'s .data/, wherever the command runs', () => {
    expect(cliDataDir({})).toBe(path.join(REPO_ROOT, '.data'));
    expect(cliDataDir({ RAGTIME_DATA_DIR: '  ' })).toBe(path.join(REPO_ROOT, '.data'));
  });

  test('set: the caller\'s, a relative one left for the config to resolve from where it runs', () => {
    expect(cliDataDir({ RAGTIME_DATA_DIR: '/srv/ragtime' })).toBe('/srv/ragtime');
    expect(cliDataDir({ RAGTIME_DATA_DIR: 'my-data' })).toBe('my-data');
  });
});

describe('servicesExitCode: the script\'s exit code as ragtime\'s', () => {
  test('status 3 (a service is not running) is 4, a service is not reachable', () => {
    expect(servicesExitCode('status', 3)).toBe(EXIT.unavailable);
  });

  test('other codes keep their meaning; no code (bash did not run) is a failure', () => {
    expect([0, 1, 2].map((code) => servicesExitCode('status', code))).toEqual([EXIT.ok, EXIT.failed, EXIT.usage]);
    expect(servicesExitCode('up', 1)).toBe(EXIT.failed);
    expect(servicesExitCode('down', null)).toBe(EXIT.failed);
  });
});
