/// <reference lib="dom" />
// (Callbacks of page.evaluate run in the browser, with its globals.)
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = path.resolve(__dirname, '../..');
/** Where the browser tests leave a screenshot of each page (linked from the README). */
export const SCREENSHOTS = path.join(ROOT, 'docs/console');
export const CONSOLE_BUILD = path.join(ROOT, 'packages/console/dist/index.html');

/**
 * The system's Chromium (Debian's `chromium`, which `npm test` installs when missing), driven
 * by playwright-core: browser downloads are not possible here, and a distribution package is
 * kept patched by the distribution.
 */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((candidate) => candidate && existsSync(candidate));
  if (!found) {
    throw new Error(
      "No Chromium: install Debian's chromium package (npm test does) or set CHROMIUM_PATH",
    );
  }
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    // The sandbox needs user namespaces, which containers and root often lack.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

/**
 * Everything that would tell a user or a developer something broke: scripts' errors, console
 * errors (a Content-Security-Policy refusal is one) and failed requests, kept per page.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A refusal (4xx) the page shows to its user is logged by the browser too: not a fault.
    if (
      /^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())
    ) {
      return;
    }
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  return problems;
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core run in the page as it is now. The script is evaluated through the DevTools protocol,
 * which the page's Content-Security-Policy does not govern, so the policy stays as strict as
 * users get it.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    const result = await axe.run();
    return result.violations as {
      id: string;
      impact: string | null;
      help: string;
      nodes: { target: unknown[]; failureSummary?: string }[];
    }[];
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.map(
        (node) => `${JSON.stringify(node.target)}: ${node.failureSummary}`,
      ),
    }));
}

/**
 * The whole page in one picture. The console's header and navigation are fixed, which a
 * scrolled full-page capture would paint half-way down, so the window is made as tall as the
 * page for the shot instead.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const viewport = page.viewportSize()!;
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: viewport.width, height: Math.max(viewport.height, height) });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
  await page.setViewportSize(viewport);
}
