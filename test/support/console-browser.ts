import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/*
 * Debian's chromium driven by playwright-core (Playwright's own browser download cannot work on this network). The
 * flags keep it from calling home: without the background-networking ones it opens many connections that the closed
 * network refuses (docs/CONSOLE.md, the machine notes). A fresh profile per launch, removed on close.
 */

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export type ConsoleBrowser = { context: BrowserContext; close(): Promise<void> };

/** Fails loudly when chromium is missing: scripts/setup.sh installs it (apt-get install chromium fonts-noto-cjk). */
export async function launchConsoleBrowser(): Promise<ConsoleBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing; run scripts/setup.sh (it installs Debian's chromium and fonts-noto-cjk)`);
  // launchPersistentContext is how Playwright takes a --user-data-dir of the caller's.
  const profile = mkdtempSync(path.join(os.tmpdir(), 'ragtime-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    locale: 'zh-CN',
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A new page signed in to the console at `url` with `token`, on the Runs page. Uncaught page errors and CSP refusals
 * are pushed to `problems`, which a test's last case expects empty.
 */
export async function signedInPage(browser: ConsoleBrowser, url: string, token: string, problems: string[]): Promise<Page> {
  const page = await browser.context.newPage();
  page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`${page.url()}: ${message.text()}`);
  });
  await page.goto(`${url}/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  return page;
}
