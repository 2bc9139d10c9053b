/// <reference lib="dom" />
// The web console in a real browser (the system's Chromium driven by playwright-core), against
// every service and the provider simulator as processes: what a support agent, a marketer and a
// developer see and do. Each page is checked with axe-core and photographed into docs/console/.
import { existsSync, readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { AddAgentResponseSchema, FlowsResponseSchema } from '@switchboard/contracts';
import { orderFlow } from '../../services/campaigns/test/support/flow-fixtures';
import { startReceiver, type Receiver } from '../../services/webhooks/test/support/receiver';
import {
  CONSOLE_BUILD,
  launchChromium,
  screenshot,
  seriousAxeViolations,
  watchProblems,
} from '../support/browser';
import { callGateway, signIn } from '../support/console-client';
import { startE2eSystem, until, type E2eSystem } from '../support/e2e-system';

jest.setTimeout(180_000);

let e2e: E2eSystem;
let receiver: Receiver;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (!existsSync(CONSOLE_BUILD)) {
    throw new Error('The console is not built: run `npm run build` (npm test does) first');
  }
  receiver = await startReceiver();
  [e2e, browser] = await Promise.all([
    startE2eSystem('e2econsole', {
      ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_DELAYS: '1,1,1',
      // Slow enough for each tick to show, quick enough for the test.
      SIM_STATUS_DELAYS_MS: '300,800,800',
      // Long enough for a new template to be seen pending before the review decides.
      SIM_TEMPLATE_REVIEW_DELAY_MS: '2500',
    }),
    launchChromium(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await e2e?.stop();
  await receiver?.close();
});

/** A fresh browser profile (no cookie) whose page reports script errors and CSP refusals. */
async function newPage(): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    // No transitions half-way through when axe measures contrast.
    reducedMotion: 'reduce',
  });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  return { page, problems: watchProblems(page) };
}

const consoleUrl = (path = '') => `${e2e.gateway}/console/${path}`;

/** The page passes axe-core's serious and critical rules, then is photographed. */
async function checkPage(page: Page, name: string): Promise<void> {
  // As a page is first seen: no pointer resting on a button's hover state.
  await page.mouse.move(0, 0);
  expect(await seriousAxeViolations(page)).toEqual([]);
  await screenshot(page, name);
}

async function signInThroughForm(page: Page, email: string, password: string): Promise<void> {
  await page.goto(consoleUrl());
  await page.getByLabel('Email').fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

/** An organization whose owner has set a password through the invitation's API door. */
async function organizationWithOwner(name: string, plan: 'free' | 'standard', email: string) {
  const created = await e2e.createOrganization(name, plan, { owner_email: email });
  const invitation = new URL(created.owner!.invitation_url!).hash.replace(/^#invitation=/, '');
  const accepted = await callGateway(
    e2e.gateway,
    'POST',
    '/auth/accept-invitation',
    {},
    {
      invitation,
      password: 'owner passphrase',
    },
  );
  expect(accepted.status).toBe(200);
  return created;
}

test('when the owner opens the invitation link, sets a password, signs out and signs in again, then the console is served under a strict policy and the session lives in a cookie only', async () => {
  const created = await e2e.createOrganization('Invited Co', 'standard', {
    owner_email: 'owner@invited.example',
  });
  const { page, problems } = await newPage();

  // The console's document forbids inline and foreign scripts.
  const response = await page.goto(
    created.owner!.invitation_url!.replace(/^https?:\/\/[^/]+/, e2e.gateway),
  );
  const policy = response!.headers()['content-security-policy'];
  expect(policy).toContain("script-src 'self'");
  expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);

  await page.getByRole('heading', { name: 'Accept your invitation' }).waitFor();
  await checkPage(page, 'accept-invitation');
  await page.getByLabel('Your name (optional)').fill('Olga Owner');
  await page.getByLabel('New password').fill('owner passphrase');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.getByRole('heading', { name: 'Inbox' }).waitFor();
  // The invitation secret is gone from the address bar.
  expect(page.url()).not.toContain('invitation=');

  // Nothing readable by a script holds a credential.
  const stored = await page.evaluate(() => ({
    local: JSON.stringify(localStorage),
    session: JSON.stringify(sessionStorage),
    cookie: document.cookie,
  }));
  expect(stored).toEqual({ local: '{}', session: '{}', cookie: '' });

  // A reload keeps the session (the cookie) and the page.
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  await page.reload();
  await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to Switchboard' }).waitFor();
  await page.getByLabel('Email').fill('owner@invited.example');
  await page.getByLabel(/^Password/).fill('wrong passphrase');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'Wrong email or password' }).waitFor();
  await checkPage(page, 'sign-in');
  await page.getByLabel(/^Password/).fill('owner passphrase');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('Olga Owner · owner').waitFor();
  expect(problems.filter((problem) => !problem.includes('401'))).toEqual([]);
});

test('when a webhook is created whose receiver fails once, then its secret shows once and masked after, and the delivery row goes from retrying to delivered', async () => {
  await organizationWithOwner('Hooks Co', 'standard', 'dev@hooks.example');
  let answered = 0;
  receiver.behave(() =>
    answered++ === 0 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' },
  );
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'dev@hooks.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Developer → Webhooks' }).click();
  await page.getByText('No webhooks yet').waitFor();

  await page.getByRole('textbox', { name: 'Name' }).fill('Our CRM');
  await page.getByRole('textbox', { name: 'URL' }).fill(receiver.url);
  await page.getByRole('checkbox', { name: 'message_sent' }).check();
  // Reserved events are marked as such in the catalog.
  await page.getByRole('checkbox', { name: 'contact_created reserved' }).waitFor();
  await page.getByRole('button', { name: 'Create webhook' }).click();
  const secret = await page.getByTestId('new-secret').textContent();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
  receiver.trust(secret!);
  const masked = await page.getByTestId('masked-secret').textContent();
  expect(masked).toMatch(/^whsec_…/);
  expect(masked).not.toBe(secret);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  expect(await page.getByTestId('new-secret').count()).toBe(0);

  await page.getByRole('button', { name: 'Send a test event to Our CRM' }).click();
  const row = page.getByTestId('delivery-row').first();
  await row.getByText('retrying').waitFor();
  await row.getByText('1 / 3').waitFor();
  await checkPage(page, 'webhooks-retrying');
  await row.getByText('delivered').waitFor({ timeout: 60_000 });
  await row.getByText('2 / 3').waitFor();
  expect(await row.textContent()).toContain('200');

  // Pause, and back.
  await page.getByRole('button', { name: 'Pause Our CRM' }).click();
  await page.getByRole('button', { name: 'Activate Our CRM' }).waitFor();
  await page.getByRole('button', { name: 'Activate Our CRM' }).click();
  await page.getByRole('button', { name: 'Pause Our CRM' }).waitFor();
  await checkPage(page, 'webhooks');
  expect(problems).toEqual([]);
});

test("when an agent sends a message from the inbox, then its ticks go to read, and the customer's answer appears without a reload", async () => {
  const org = await organizationWithOwner('Inbox Co', 'standard', 'support@inbox.example');
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'support@inbox.example', 'owner passphrase');
  await page.getByText('No conversations yet.').waitFor();
  await checkPage(page, 'inbox-empty');

  await page.getByLabel('Phone number').fill('393471230099');
  await page.getByRole('textbox', { name: 'Message' }).fill('Your order has shipped');
  await page.getByRole('button', { name: 'Send message' }).click();
  const status = page.getByTestId('message-status').last();
  await page.locator('[data-testid="message-status"][data-status="read"]').waitFor();
  expect(await status.textContent()).toContain('read');

  const injected = await fetch(`${e2e.simulator}/sim/inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      phone_number_id: org.channel.phone_number_id,
      from: '393471230099',
      profile_name: 'Marta',
      text: 'Thank you!',
    }),
  });
  expect(injected.status).toBe(200);
  await page.getByTestId('message').filter({ hasText: 'Thank you!' }).waitFor();
  await page.getByText('24-hour window open').waitFor();
  await page.getByLabel('Reply', { exact: true }).fill('You are welcome, Marta');
  await page.getByLabel('Reply', { exact: true }).press('Enter');
  await page.getByTestId('message').filter({ hasText: 'You are welcome, Marta' }).waitFor();
  await page
    .getByTestId('message')
    .filter({ hasText: 'You are welcome, Marta' })
    .locator('[data-status="read"]')
    .waitFor();
  await page.getByRole('button', { name: 'Hand back to the bots' }).click();
  await page.getByText('The bots answer this customer again.').waitFor();
  // A reply with buttons goes out as an interactive message.
  await page.getByRole('button', { name: 'Add buttons or an image' }).click();
  await page.getByLabel('Reply', { exact: true }).fill('Anything else?');
  await page.getByLabel('Reply buttons').fill('Yes, No');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByTestId('message').filter({ hasText: 'Anything else?' }).waitFor();
  const sent = await fetch(`${e2e.simulator}/sim/sent`).then((r) => r.text());
  expect(sent).toMatch(/"interactive".*Anything else\?/s);
  await checkPage(page, 'inbox');
  expect(problems).toEqual([]);
});

test('when the owner of a free organization adds an agent, then the plan limit is shown and the refusal says why', async () => {
  await organizationWithOwner('Free Co', 'free', 'owner@free.example');
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'owner@free.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByTestId('agent-limit').filter({ hasText: '1 of 1 in use' }).waitFor();
  const users = page.getByRole('region', { name: 'Users and agents' });
  await users.getByRole('textbox', { name: 'Name' }).fill('Bo Agent');
  await users.getByRole('textbox', { name: 'Email' }).fill('bo@free.example');
  await users.getByRole('button', { name: 'Add user' }).click();
  const refusal = page.getByRole('alert').filter({ hasText: 'The user was not added' });
  await refusal.waitFor();
  expect(await refusal.textContent()).toMatch(/exceeded the limit of 1 agents on the free plan/);

  // API tokens: shown once, listed masked, revoked.
  const tokens = page.getByRole('region', { name: 'API tokens' });
  await tokens.getByLabel('Token name').fill('CRM sync');
  await tokens.getByRole('button', { name: 'Create token' }).click();
  const token = await page.getByTestId('new-token').textContent();
  expect(token?.length).toBeGreaterThan(20);
  const me = await callGateway(e2e.gateway, 'GET', '/api/svc/me', { token: token! });
  expect(me.status).toBe(200);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await tokens.getByRole('cell', { name: 'CRM sync', exact: true }).waitFor();
  expect(await tokens.textContent()).not.toContain(token!);
  await page.getByRole('region', { name: 'Account health' }).getByText('connected').waitFor();
  await checkPage(page, 'settings');
  page.once('dialog', (dialog) => void dialog.accept());
  await tokens.getByRole('button', { name: 'Revoke CRM sync' }).click();
  await tokens.getByRole('cell', { name: 'CRM sync', exact: true }).waitFor({ state: 'detached' });
  expect((await callGateway(e2e.gateway, 'GET', '/api/svc/me', { token: token! })).status).toBe(
    401,
  );
  expect(problems).toEqual([]);
});

test('when an agent signs in, then Settings and Developer → Webhooks are neither offered nor opened', async () => {
  await organizationWithOwner('Team Co', 'standard', 'lead@team.example');
  const owner = await signIn(e2e.gateway, 'lead@team.example', 'owner passphrase');
  const added = await callGateway(e2e.gateway, 'POST', '/api/svc/addAgent', owner, {
    name: 'Ana Agent',
    email: 'ana@team.example',
    role: 'agent',
  });
  expect(added.status).toBe(201);
  const { invitation_url } = AddAgentResponseSchema.parse(added.body);
  const { page, problems } = await newPage();
  await page.goto(invitation_url.replace(/^https?:\/\/[^/]+/, e2e.gateway));
  await page.getByLabel('New password').fill('agent passphrase');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.getByText('Ana Agent · agent').waitFor();
  expect(await page.getByRole('link', { name: 'Settings' }).count()).toBe(0);
  expect(await page.getByRole('link', { name: 'Developer → Webhooks' }).count()).toBe(0);
  await page.goto(consoleUrl('developer/webhooks'));
  await page
    .getByText("Only the organization's owner and admins can open Developer → Webhooks")
    .waitFor();
  await page.goto(consoleUrl('settings'));
  await page.getByText("Only the organization's owner and admins can open Settings").waitFor();
  // Nor can the agent reach what the page would show, by the API.
  const agent = await signIn(e2e.gateway, 'ana@team.example', 'agent passphrase');
  expect((await callGateway(e2e.gateway, 'GET', '/api/svc/getTokens', agent)).status).toBe(403);
  await checkPage(page, 'settings-agent');
  expect(problems).toEqual([]);
});

test('when a user has only a keyboard, then they sign in, reach every page from the navigation and create a token', async () => {
  await organizationWithOwner('Keys Co', 'standard', 'keys@keys.example');
  const { page, problems } = await newPage();
  await page.goto(consoleUrl());
  await page.getByLabel('Email').waitFor();
  // Tab order: email, password (and its show toggle), the button; Enter submits.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('email');
  await page.keyboard.type('keys@keys.example');
  await page.keyboard.press('Tab');
  await page.keyboard.type('owner passphrase');
  await page.keyboard.press('Enter');
  await page.getByRole('navigation', { name: 'Main' }).waitFor();

  for (const [link, shot] of [
    ['Contacts', 'contacts-empty'],
    ['Campaigns', 'campaigns-empty'],
    ['Templates', 'templates-empty'],
    ['Automation', 'automation-empty'],
    ['Developer → Webhooks', 'webhooks-empty'],
    ['Settings', 'settings-standard'],
  ] as const) {
    await page.getByRole('link', { name: link }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: link, level: 1 }).waitFor();
    await checkPage(page, shot);
  }
  const tokenName = page.getByLabel('Token name');
  await tokenName.focus();
  await page.keyboard.type('Keyboard token');
  await page.keyboard.press('Enter');
  await page.getByTestId('new-token').waitFor();
  const focusVisible = await page.evaluate(() => {
    const active = document.activeElement as HTMLElement | null;
    return active !== null && active !== document.body;
  });
  expect(focusVisible).toBe(true);
  expect(problems).toEqual([]);
});

test('when a CSV with a bad row is imported, then the progress reaches every row, the bad one is named, and search, paging and export see the rest', async () => {
  await organizationWithOwner('Lists Co', 'standard', 'lists@lists.example');
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'lists@lists.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Contacts' }).click();
  await page.getByText('No contacts yet').waitFor();

  const rows = Array.from(
    { length: 30 },
    (_, n) => `Customer ${n + 1},39347100${String(n).padStart(4, '0')},,VIP,Rome`,
  );
  const csv = ['name,phone,email,groups,city', ...rows, 'Broken,not-a-phone,,,'].join('\n');
  await page.locator('input[type="file"]').setInputFiles({
    name: 'contacts.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  await page
    .getByTestId('import-status')
    .filter({ hasText: 'Imported 31 of 31 rows, 1 refused' })
    .waitFor({ timeout: 60_000 });
  await page.getByRole('alert').filter({ hasText: 'Row 32:' }).waitFor();
  await page.getByText('30 contacts').waitFor();
  // 25 a page: the second page holds the other 5.
  expect(await page.getByTestId('contact-row').count()).toBe(25);
  await page.getByRole('button', { name: 'Next page' }).click();
  await page.getByText('Page 2').waitFor();
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="contact-row"]').length === 5,
  );
  await page.getByLabel('Search').fill('Customer 7');
  await page.getByText('1 contact', { exact: true }).waitFor();
  await page
    .getByRole('region', { name: 'Groups' })
    .getByRole('button', { name: 'VIP', exact: true })
    .waitFor();
  expect(await page.getByTestId('contact-row').textContent()).toContain('city: Rome');
  await page.getByRole('button', { name: 'Unsubscribe Customer 7' }).click();
  await page.getByTestId('contact-row').getByText('unsubscribed').waitFor();
  await checkPage(page, 'contacts');

  await page.getByLabel('Search').fill('');
  await page.getByText('30 contacts').waitFor();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const exported = readFileSync((await download.path())!, 'utf8').split('\r\n');
  expect(exported[0]).toBe('name,phone,email,subscription,groups,city');
  expect(exported).toHaveLength(31);
  expect(exported).toContain('Customer 7,393471000006,,unsubscribed,VIP,Rome');
  expect(exported).toContain('Customer 8,393471000007,,subscribed,VIP,Rome');
  expect(problems).toEqual([]);
});

test('when a regular campaign is sent now to a group, then its progress reaches 100 %', async () => {
  const org = await organizationWithOwner('Promo Co', 'standard', 'promo@promo.example');
  const client = e2e.api(org.token);
  for (const n of [1, 2, 3]) {
    const made = await client.post('makeContact', {
      name: `Buyer ${n}`,
      phone: `39347200000${n}`,
      groups: ['Buyers'],
    });
    expect(made.status).toBe(201);
  }
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'promo@promo.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Campaigns' }).click();
  await page.getByText('No campaigns yet.').waitFor();
  await page.getByLabel('Campaign name').fill('Spring sale');
  await page.getByLabel('Message text').fill('Hello {{1}}, the spring sale starts today');
  // The placeholder is mapped to the contact's name by default.
  expect(await page.getByRole('combobox', { name: '{{1}}' }).inputValue()).toBe('Contact name');
  await page.getByText('Groups', { exact: true }).click();
  await page.getByPlaceholder('Choose groups').click();
  await page.getByRole('option', { name: 'Buyers' }).click();
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Create and send' }).click();
  const row = page.getByTestId('campaign-row').filter({ hasText: 'Spring sale' });
  await row.getByText('completed').waitFor({ timeout: 60_000 });
  await row
    .getByTestId('campaign-progress')
    .filter({ hasText: /^100% · sent 3/ })
    .waitFor();
  await row
    .getByTestId('campaign-progress')
    .filter({ hasText: 'read 3' })
    .waitFor({ timeout: 60_000 });
  const sent = await fetch(`${e2e.simulator}/sim/sent`).then((r) => r.json() as Promise<unknown>);
  expect(JSON.stringify(sent)).toContain('Hello Buyer 2, the spring sale starts today');
  await checkPage(page, 'campaigns');
  expect(problems).toEqual([]);
});

test('when a template with an image header is submitted, then it shows pending, then approved, and it can be deleted', async () => {
  await organizationWithOwner('Tpl Co', 'standard', 'tpl@tpl.example');
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'tpl@tpl.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Templates' }).click();
  await page.getByText('No templates yet.').waitFor();
  await page.getByLabel('Template name').fill('order_shipped');
  await page.getByText('Image header', { exact: true }).click();
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  await page.locator('input[type="file"]').setInputFiles({
    name: 'header.png',
    mimeType: 'image/png',
    buffer: png,
  });
  await page.getByText('Image uploaded').waitFor();
  await page.getByLabel('Body').fill('Hello {{1}}, your order has shipped.');
  await page.getByLabel('Example of {{1}}').fill('Ana');
  await page.getByRole('button', { name: 'Submit for review' }).click();
  const row = page.getByTestId('template-row').filter({ hasText: 'order_shipped' });
  await row.getByText('APPROVED').waitFor({ timeout: 60_000 });
  await checkPage(page, 'templates');
  page.once('dialog', (dialog) => void dialog.accept());
  await row.getByRole('button', { name: 'Delete order_shipped (en_US)' }).click();
  await page.getByText('No templates yet.').waitFor();
  expect(problems).toEqual([]);
});

test('when an automated reply is added, then a customer who writes its keyword gets it; flows show their steps and the AI bot settings are kept', async () => {
  const org = await organizationWithOwner('Auto Co', 'standard', 'auto@auto.example');
  const client = e2e.api(org.token);
  expect((await client.post('addFlow', orderFlow() as Record<string, unknown>)).status).toBe(201);
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'auto@auto.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Automation' }).click();
  await page.getByText('No automated replies yet.').waitFor();
  await page.getByLabel('Reply name').fill('Opening hours');
  await page.getByLabel('Keywords').fill('hours, open');
  await page.getByLabel('Reply text').fill('We are open 9 to 5, {{name}}');
  await page.getByRole('button', { name: 'Add reply' }).click();
  await page.getByRole('cell', { name: 'contains: hours, open' }).waitFor();

  const injected = await fetch(`${e2e.simulator}/sim/inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      phone_number_id: org.channel.phone_number_id,
      from: '393471260001',
      profile_name: 'Piero',
      text: 'what are your opening hours?',
    }),
  });
  expect(injected.status).toBe(200);
  // The customer got the reply, and its counter says so once the page is read again.
  await until(async () => {
    const sent = await fetch(`${e2e.simulator}/sim/sent`).then((r) => r.text());
    return sent.includes('We are open 9 to 5, Piero') || undefined;
  }, 'the automated reply at the simulator');
  await until(
    async () => {
      await page.reload();
      const used = page
        .getByRole('table', { name: 'Automated replies' })
        .getByRole('cell', { name: '1', exact: true });
      await page.getByRole('table', { name: 'Automated replies' }).waitFor();
      return (await used.count()) === 1 || undefined;
    },
    'the reply counted once',
    30_000,
  );

  // The flow made over the API, as a list of steps with where each leads.
  const flows = page.getByRole('region', { name: 'Flows' });
  await flows.getByText('(start)').waitFor();
  expect(await flows.textContent()).toContain('→');

  await page.getByLabel('Model').fill('tiny-chat');
  await page.getByLabel('Instructions (system prompt)').fill('You answer for Auto Co.');
  await page.getByRole('button', { name: 'Save AI bot settings' }).click();
  await page.getByText('Saved.').waitFor();
  await page.reload();
  await page.getByLabel('Model').waitFor();
  await page.waitForFunction(
    () =>
      (document.querySelector('textarea') as HTMLTextAreaElement | null)?.value ===
      'You answer for Auto Co.',
  );
  await checkPage(page, 'automation');
  expect(problems).toEqual([]);
});

/** A customer's message to the organization's number, as WhatsApp would deliver it. */
async function customerWrites(
  org: { channel: { phone_number_id: string } },
  from: string,
  message: Record<string, unknown>,
): Promise<void> {
  const injected = await fetch(`${e2e.simulator}/sim/inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ phone_number_id: org.channel.phone_number_id, from, ...message }),
  });
  expect(injected.status).toBe(200);
}

/** An agent of the organization with a password set, through the invitation's API door. */
async function addAgent(ownerEmail: string, name: string, email: string, password: string) {
  const owner = await signIn(e2e.gateway, ownerEmail, 'owner passphrase');
  const added = await callGateway(e2e.gateway, 'POST', '/api/svc/addAgent', owner, {
    name,
    email,
    role: 'agent',
  });
  expect(added.status).toBe(201);
  const { invitation_url } = AddAgentResponseSchema.parse(added.body);
  const invitation = new URL(invitation_url).hash.replace(/^#invitation=/, '');
  const accepted = await callGateway(
    e2e.gateway,
    'POST',
    '/auth/accept-invitation',
    {},
    { invitation, password },
  );
  expect(accepted.status).toBe(200);
}

/** The inbox list's filter of that name (its radio is drawn by its label). */
async function showFilter(list: Locator, name: string): Promise<void> {
  await list
    .locator('label')
    .filter({ hasText: new RegExp(`^${name}$`) })
    .click();
  await list.getByRole('radio', { name, checked: true }).waitFor({ state: 'attached' });
}

/** A 160 × 100 picture of four coloured blocks. */
const PICTURE_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAKAAAABkCAIAAACO1KzYAAABBklEQVR42u3TQQ3AMBADwYNTEIHTd+AESUAETiEExdWfkRaBR66aO9K3K9J5RqRabybAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAE3ZuifCh0JMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAgAEDBgwYMGDAjV0BjOv1CAlLqAAAAABJRU5ErkJggg==';

test('when customers write, then opening a conversation clears its unread count, it is assigned to an agent who finds it under Mine, closed and reopened, and a sent image shows', async () => {
  const org = await organizationWithOwner('Desk Co', 'standard', 'lead@desk.example');
  await addAgent('lead@desk.example', 'Ana Agent', 'ana@desk.example', 'agent passphrase');
  await customerWrites(org, '393471240001', { profile_name: 'Marta', text: 'Where is my order?' });
  await customerWrites(org, '393471240002', {
    profile_name: 'Luca',
    type: 'image',
    image: { data_base64: PICTURE_PNG, mime_type: 'image/png', caption: 'The broken part' },
  });

  const { page, problems } = await newPage();
  await signInThroughForm(page, 'lead@desk.example', 'owner passphrase');
  const list = page.getByRole('region', { name: 'Conversations' });
  const marta = list.getByTestId('conversation').filter({ hasText: 'Marta' });
  const luca = list.getByTestId('conversation').filter({ hasText: 'Luca' });
  await showFilter(list, 'Unread');
  await marta.getByLabel('1 unread').waitFor();
  await luca.waitFor();
  await checkPage(page, 'inbox-unread');

  // Opening Marta's conversation marks it read: it leaves "Unread", the thread stays open.
  await marta.click();
  await page.getByTestId('message').filter({ hasText: 'Where is my order?' }).waitFor();
  await marta.waitFor({ state: 'detached' });
  await luca.waitFor();

  // Assigned to Ana, then closed; "Unassigned" no longer lists it, "Closed" does.
  const thread = page.getByRole('region', { name: 'Conversation' });
  await thread.getByLabel('Assigned to', { exact: true }).click();
  await page.getByRole('option', { name: 'Ana Agent' }).click();
  await thread.getByRole('button', { name: 'Close conversation' }).click();
  await thread.getByTestId('conversation-status').filter({ hasText: 'closed' }).waitFor();
  await showFilter(list, 'Unassigned');
  await luca.waitFor();
  await marta.waitFor({ state: 'detached' });
  await showFilter(list, 'Closed');
  await marta.getByText('Assigned to Ana Agent').waitFor();
  await thread.getByRole('button', { name: 'Reopen' }).click();
  await thread.getByTestId('conversation-status').filter({ hasText: 'open' }).waitFor();
  await marta.waitFor({ state: 'detached' });

  // Luca's image, served by getMedia from the console's own origin under its policy.
  await showFilter(list, 'All');
  await luca.click();
  const image = thread.getByTestId('message-image');
  await image.waitFor();
  await page.waitForFunction(() => {
    const shown = document.querySelector<HTMLImageElement>('[data-testid="message-image"]');
    return shown !== null && shown.complete && shown.naturalWidth === 160;
  });
  await luca.getByLabel('1 unread').waitFor({ state: 'detached' });
  await checkPage(page, 'inbox-image');
  // A flow's hand-over (here through the API) shows under "Needs human" without a reload.
  const handedOver = await e2e.api(org.token).post('setConversationStatus', {
    contact_id: Number(new URL(page.url()).searchParams.get('contact')),
    status: 'needs_human',
  });
  expect(handedOver.status).toBe(200);
  await thread.getByTestId('conversation-status').filter({ hasText: 'needs human' }).waitFor();
  await showFilter(list, 'Needs human');
  await luca.waitFor();
  await marta.waitFor({ state: 'detached' });

  // Ana finds Marta's conversation under Mine, and her reply says who sent it.
  const agent = await newPage();
  await signInThroughForm(agent.page, 'ana@desk.example', 'agent passphrase');
  const agentList = agent.page.getByRole('region', { name: 'Conversations' });
  // From the keyboard: the filters are one radio group, the arrow keys move through it.
  await agentList.getByRole('radio', { name: 'All' }).focus();
  await agent.page.keyboard.press('ArrowDown');
  await agentList
    .getByRole('radio', { name: 'Mine', checked: true })
    .waitFor({ state: 'attached' });
  await agentList.getByTestId('conversation').filter({ hasText: 'Marta' }).focus();
  await agent.page.keyboard.press('Enter');
  await agent.page.getByTestId('message').filter({ hasText: 'Where is my order?' }).waitFor();
  expect(await agentList.getByTestId('conversation').count()).toBe(1);
  await agent.page.getByLabel('Reply', { exact: true }).fill('It ships tomorrow');
  await agent.page.getByLabel('Reply', { exact: true }).press('Enter');
  await agent.page
    .getByTestId('message')
    .filter({ hasText: 'It ships tomorrow' })
    .getByText('Sent by you')
    .waitFor();
  await checkPage(agent.page, 'inbox-mine');
  // The owner sees who sent it.
  await showFilter(list, 'All');
  await marta.click();
  await page
    .getByTestId('message')
    .filter({ hasText: 'It ships tomorrow' })
    .getByText('Sent by Ana Agent')
    .waitFor();
  expect(problems).toEqual([]);
  expect(agent.problems).toEqual([]);
});

test('when a customer writes while a conversation is open, then the message arrives through the live stream, with no polling', async () => {
  const org = await organizationWithOwner('Live Co', 'standard', 'live@live.example');
  await customerWrites(org, '393471250001', { profile_name: 'Sara', text: 'Hello?' });
  const { page, problems } = await newPage();
  const reads: string[] = [];
  page.on('request', (request) => {
    if (/getMessages|getConversations/.test(request.url())) reads.push(request.url());
  });
  await signInThroughForm(page, 'live@live.example', 'owner passphrase');
  await page.locator('[data-testid="live-status"][data-live="true"]').waitFor();
  await page.getByTestId('conversation').filter({ hasText: 'Sara' }).click();
  await page.getByTestId('message').filter({ hasText: 'Hello?' }).waitFor();
  // Once opened (and marked read), the page reads nothing more by itself: no poll runs while
  // the stream is up (a 1.5 s poll would read several times in 6 s).
  await until(
    async () => {
      const seen = reads.length;
      await new Promise((resolve) => setTimeout(resolve, 6000));
      return reads.length === seen || undefined;
    },
    'the page quiet',
    40_000,
  );
  const before = reads.length;

  await customerWrites(org, '393471250001', { profile_name: 'Sara', text: 'Are you there?' });
  // The fallback poll is a minute: only the stream brings it this soon.
  await page
    .getByTestId('message')
    .filter({ hasText: 'Are you there?' })
    .waitFor({ timeout: 20_000 });
  expect(reads.length).toBeGreaterThan(before);
  expect(problems).toEqual([]);
});

/** A Mantine select of that label set to the option of that name. */
async function choose(scope: Page | Locator, label: string, option: string): Promise<void> {
  await scope.getByRole('combobox', { name: label, exact: true }).click();
  const page = 'page' in scope ? scope.page() : scope;
  await page.getByRole('option', { name: option, exact: true }).click();
}

test('when a flow is made in the console, then a step the API refuses shows its error in place, and a customer who writes its trigger gets its first step', async () => {
  const org = await organizationWithOwner('Flow Co', 'standard', 'flow@flow.example');
  const client = e2e.api(org.token);
  const template = await client.post('createTemplate', {
    template_name: 'goodbye',
    template_language: 'en_US',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Bye {{1}}!', example: { body_text: [['Ana']] } }],
  });
  expect(template.status).toBe(201);
  await until(async () => {
    const listed = await client.get('getTemplates', { status: 'APPROVED' });
    return JSON.stringify(listed.body).includes('goodbye') || undefined;
  }, 'the template approved');
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'flow@flow.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Automation' }).click();
  const flows = page.getByRole('region', { name: 'Flows' });
  await flows.getByText('No flows yet.').waitFor();
  await flows.getByRole('button', { name: 'New flow' }).click();
  const editor = page.getByRole('region', { name: 'New flow' });
  await editor.getByLabel('Flow name').fill('Returns');
  await editor.getByLabel('Trigger keywords').fill('return, refund');
  await editor.getByLabel('Step 1 id').fill('ask');
  await editor.getByLabel('Step 1 message').fill('Do you want to return an item, {{name}}?');
  await editor.getByLabel('Step 1 buttons').fill('Yes, No');
  await editor.getByRole('button', { name: 'Add step' }).click();
  await editor.getByLabel('Step 2 id').fill('save');
  await choose(editor, 'Step 2 does', 'Set a contact field');
  // Not a field a flow can set: the API's refusal shows under step 2.
  await editor.getByLabel('Step 2 field').fill('colour');
  await editor.getByLabel('Step 2 value').fill('{{reply}}');
  // The last step ends the flow with an approved template, its {{1}} the contact's name.
  await editor.getByRole('button', { name: 'Add step' }).click();
  await editor.getByLabel('Step 3 id').fill('bye');
  await choose(editor, 'Step 3 does', 'End the flow');
  await editor
    .getByRole('radiogroup', { name: 'Step 3 sends' })
    .locator('label')
    .filter({ hasText: /^Template$/ })
    .click();
  await choose(editor, 'Step 3 template', 'goodbye (en_US)');
  expect(await editor.getByRole('combobox', { name: 'Step 3 {{1}}' }).inputValue()).toBe(
    'Contact name',
  );
  await choose(editor, 'Step 2: then', 'bye');
  await editor.getByRole('button', { name: 'Add a branch to step 1' }).click();
  await choose(editor, 'Button (step 1 branch 1)', 'Yes');
  await choose(editor, 'Go to (step 1 branch 1)', 'save');
  await editor.getByRole('button', { name: 'Create flow' }).click();
  const step2 = editor.getByTestId('flow-step').nth(1);
  await step2
    .getByRole('alert')
    .filter({ hasText: 'field: must be name, email, language, subscription or custom.<key>' })
    .waitFor();
  await checkPage(page, 'automation-flow-editor');
  await editor.getByLabel('Step 2 field').fill('custom.returning');
  await editor.getByRole('button', { name: 'Create flow' }).click();
  const flow = flows.getByTestId('flow').filter({ hasText: 'Returns' });
  await flow.getByText('ask (start): Send “Do you want to return an item, {{name}}?”').waitFor();
  expect(await flow.textContent()).toContain('button “Yes” → save');
  expect(await flow.textContent()).toContain('Set custom.returning to “{{reply}}”');
  const stored = FlowsResponseSchema.parse((await client.get('getFlows')).body);
  expect(stored.flows[0]!.steps).toContainEqual({
    id: 'bye',
    type: 'end',
    message: { type: 'template', template_name: 'goodbye', template_language: 'en_US' },
    variables: [{ field: 'name' }],
  });
  expect(stored.flows[0]!.steps[1]).toMatchObject({ id: 'save', next: 'bye' });

  await customerWrites(org, '393471270001', { profile_name: 'Rita', text: 'Refund' });
  await until(async () => {
    const sent = await fetch(`${e2e.simulator}/sim/sent`).then((r) => r.text());
    return /Do you want to return an item, Rita\?.*Yes/s.test(sent) || undefined;
  }, 'the first step at the simulator');

  // Changed, then deleted.
  await flows.getByRole('button', { name: 'Edit Returns' }).click();
  const edit = page.getByRole('region', { name: 'Edit flow Returns' });
  await edit.getByLabel('Flow name').fill('Returns and refunds');
  await edit.getByRole('button', { name: 'Save flow' }).click();
  await flows.getByText('Returns and refunds', { exact: true }).waitFor();
  await checkPage(page, 'automation-flows');
  page.once('dialog', (dialog) => void dialog.accept());
  await flows.getByRole('button', { name: 'Delete Returns and refunds' }).click();
  await flows.getByText('No flows yet.').waitFor();
  expect(problems).toEqual([]);
});

test('when an API campaign and a bot campaign are created, then each is listed with its trigger, and the API campaign sends with its data', async () => {
  const org = await organizationWithOwner('Hook Co', 'standard', 'hook@hook.example');
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'hook@hook.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Campaigns' }).click();
  await page.getByText('No campaigns yet.').waitFor();
  await page.getByLabel('Campaign name').fill('Order shipped');
  await page.locator('label').filter({ hasText: /^API$/ }).click();
  await page.getByLabel('Message text').fill('Your order {{1}} has shipped');
  await choose(page, '{{1}}', 'Data of the API call');
  await page.getByLabel('Data path of {{1}}').fill('order.id');
  await page.getByRole('button', { name: 'Create campaign' }).click();
  const apiRow = page.getByTestId('campaign-row').filter({ hasText: 'Order shipped' });
  await apiRow.getByText(/POST \/api\/svc\/sendcampaigns with campaign_id \d+/).waitFor();
  await apiRow.getByText('data: order.id').waitFor();
  const id = Number(/campaign_id (\d+)/.exec((await apiRow.textContent())!)![1]);

  await page.getByLabel('Campaign name').fill('Promo code');
  await page.locator('label').filter({ hasText: /^Bot$/ }).click();
  await page.getByLabel('Trigger keywords').fill('promo, discount');
  await page.getByLabel('Message text').fill('Your code is SPRING10');
  await page.getByRole('button', { name: 'Create campaign' }).click();
  const botRow = page.getByTestId('campaign-row').filter({ hasText: 'Promo code' });
  await botRow.getByText('Keywords: promo, discount').waitFor();
  await checkPage(page, 'campaigns-api-bot');

  const sent = await e2e.api(org.token).post('sendcampaigns', {
    phone: '393471280001',
    campaign_id: id,
    data: { order: { id: 'A-7' } },
  });
  expect(sent.status).toBe(200);
  await until(async () => {
    const messages = await fetch(`${e2e.simulator}/sim/sent`).then((r) => r.text());
    return messages.includes('Your order A-7 has shipped') || undefined;
  }, 'the API campaign at the simulator');
  expect(problems).toEqual([]);
});

test('when a template with buttons and a document header is submitted, then a mix the Cloud API refuses is named, the fixed one shows pending, then approved, and a campaign of it asks for its document and its button variable', async () => {
  const org = await organizationWithOwner('Docs Co', 'standard', 'docs@docs.example');
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'docs@docs.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Templates' }).click();
  await page.getByText('No templates yet.').waitFor();
  await page.getByLabel('Template name').fill('return_label');
  await page.getByText('Document header', { exact: true }).click();
  await page.locator('input[type="file"]').setInputFiles({
    name: 'label.pdf',
    mimeType: 'application/pdf',
    buffer: Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'),
  });
  await page.getByText('Document uploaded').waitFor();
  await page.getByLabel('Body').fill('Your return label for order {{1}} is attached.');
  await page.getByLabel('Example of {{1}}').fill('A-7');
  await page.getByLabel('Footer (optional)').fill('Shop Co');
  const addButton = page.getByRole('button', { name: 'Add button' });
  await addButton.click();
  await page.getByLabel('Button 1 text').fill('Got it');
  await addButton.click();
  await choose(page, 'Button 2 kind', 'Visit website');
  await page.getByLabel('Button 2 text').fill('Track');
  await page.getByLabel('Button 2 URL').fill('https://shop.example/track/{{1}}');
  await page.getByLabel('Button 2 example URL').fill('https://shop.example/track/A-7');
  await addButton.click();
  await page.getByLabel('Button 3 text').fill('Stop');
  // A quick reply after a website button, split from the first: the provider would refuse it.
  await page.getByRole('button', { name: 'Submit for review' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: 'quick reply buttons must be grouped together' })
    .waitFor();
  await checkPage(page, 'templates-buttons');
  await choose(page, 'Button 3 kind', 'Call phone number');
  await page.getByLabel('Button 3 text').fill('Call us');
  await page.getByLabel('Button 3 phone number').fill('+393471234567');
  await page.getByRole('button', { name: 'Submit for review' }).click();
  const row = page.getByTestId('template-row').filter({ hasText: 'return_label' });
  await row.getByText('PENDING').waitFor();
  expect(await row.textContent()).toContain('document header');
  expect(await row.textContent()).toContain('buttons: Got it, Track, Call us');
  await row.getByText('APPROVED').waitFor({ timeout: 60_000 });

  // A campaign of it asks for the header's document and the website button's {{1}}.
  const made = await e2e
    .api(org.token)
    .post('makeContact', { name: 'Dora', phone: '393471290001' });
  expect(made.status).toBe(201);
  await page.getByRole('link', { name: 'Campaigns' }).click();
  await page.getByLabel('Campaign name').fill('Labels');
  await page
    .locator('label')
    .filter({ hasText: /^Template$/ })
    .click();
  await choose(page, 'Approved template', 'return_label (en_US)');
  await page.getByLabel('Header document link').fill('https://shop.example/labels/A-7.pdf');
  await choose(page, '{{1}}', 'Fixed text');
  await page.getByLabel('Text of {{1}}').fill('A-7');
  // The button's {{1}} is the contact's name, as each placeholder is by default.
  await page.getByRole('combobox', { name: 'Button “Track” {{1}}' }).waitFor();
  await page.getByRole('button', { name: 'Create and send' }).click();
  await page
    .getByTestId('campaign-row')
    .filter({ hasText: 'Labels' })
    .getByText('completed')
    .waitFor({ timeout: 60_000 });
  const sent = await fetch(`${e2e.simulator}/sim/sent`).then((r) => r.text());
  expect(sent).toContain('https://shop.example/labels/A-7.pdf');
  expect(sent).toMatch(/"sub_type":\s*"url".*"Dora"/s);
  expect(problems).toEqual([]);
});

test('when a message has been sent, then Settings shows the plan usage of this month against each quota', async () => {
  const org = await organizationWithOwner('Usage Co', 'free', 'owner@usage.example');
  const sent = await callGateway(
    e2e.gateway,
    'POST',
    '/api/svc/sendMessageToPhoneNumber',
    { token: org.token },
    { phone: '393471260001', message: 'Your order shipped' },
  );
  expect(sent.status).toBe(200);
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'owner@usage.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Settings' }).click();
  const usage = page.getByTestId('plan-usage');
  await usage.getByText('Messages this month: 1 of 100').waitFor();
  await usage.getByText('Campaigns this month: 0 of 2').waitFor();
  // The send stored its recipient; the owner is the plan's one user.
  await usage.getByText('Contacts: 1 of 100').waitFor();
  await usage.getByText('Users: 1 of 1').waitFor();
  expect(
    await page.getByRole('progressbar', { name: 'Users used' }).getAttribute('aria-valuenow'),
  ).toBe('100');
  await checkPage(page, 'settings-usage');
  expect(problems).toEqual([]);
});

test('when a contact is edited from the contacts page, then its name, custom fields and subscription change, and a refused phone is shown under the phone field', async () => {
  const org = await organizationWithOwner('Edit Co', 'standard', 'owner@edit.example');
  const made = async (body: Record<string, unknown>) => {
    const answer = await callGateway(
      e2e.gateway,
      'POST',
      '/api/svc/makeContact',
      { token: org.token },
      body,
    );
    expect(answer.status).toBe(201);
    return answer.body.contact as { id: number; phone: string };
  };
  const ana = await made({
    name: 'Ana Rossi',
    phone: '393471270001',
    custom: { city: 'Rome', tier: 'gold' },
  });
  await made({ name: 'Bea Verdi', phone: '393471270002', groups: ['VIP'] });
  const { page, problems } = await newPage();
  await signInThroughForm(page, 'owner@edit.example', 'owner passphrase');
  await page.getByRole('link', { name: 'Contacts' }).click();
  await page.getByText('2 contacts').waitFor();

  // Edit: the form opens with the keyboard in the name field.
  await page.getByRole('button', { name: 'Edit Ana Rossi' }).click();
  const form = page.getByRole('region', { name: 'Edit Ana Rossi' });
  await form.waitFor();
  expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe(
    'Ana Rossi',
  );
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('Ana Bianchi');
  await form.getByLabel('Custom field city value').fill('Milan');
  await form.getByRole('button', { name: 'Remove custom field tier' }).click();
  await form.getByRole('button', { name: 'Add field' }).click();
  await form.getByLabel('Custom field 2 name').fill('vip');
  await form.getByLabel('Custom field vip value').fill('yes');
  await form.getByLabel('Subscribed to campaigns').uncheck();
  await form.getByLabel('Add to groups').click();
  await page.getByRole('option', { name: 'VIP' }).click();
  await page.keyboard.press('Escape');

  // A phone another contact has: refused, shown under the phone, nothing else lost.
  await form.getByRole('textbox', { name: 'Phone' }).fill('393471270002');
  await form.getByRole('button', { name: 'Save contact' }).click();
  await form.getByText(/another contact of this organization already has the phone/).waitFor();
  expect(await form.getByRole('textbox', { name: 'Phone' }).getAttribute('aria-invalid')).toBe(
    'true',
  );
  await checkPage(page, 'contacts-edit');
  await form.getByRole('textbox', { name: 'Phone' }).fill('393471270001');
  await form.getByRole('textbox', { name: 'Phone' }).press('Enter');
  await form.waitFor({ state: 'detached' });

  const row = page.getByTestId('contact-row').filter({ hasText: 'Ana Bianchi' });
  await row.getByText('city: Milan, vip: yes').waitFor();
  await row.getByText('unsubscribed').waitFor();
  await row.getByRole('cell', { name: 'VIP', exact: true }).waitFor();
  const stored = await callGateway(
    e2e.gateway,
    'GET',
    `/api/svc/getSingleContact?contact_id=${ana.id}`,
    { token: org.token },
  );
  expect(stored.body.contact).toMatchObject({
    name: 'Ana Bianchi',
    phone: '393471270001',
    custom: { city: 'Milan', vip: 'yes' },
    subscription: 'unsubscribed',
    groups: [expect.objectContaining({ name: 'VIP' })],
  });

  // A single new contact, with a custom field.
  await page.getByRole('button', { name: 'New contact' }).click();
  const add = page.getByRole('region', { name: 'New contact' });
  await add.getByRole('textbox', { name: 'Name' }).fill('Cleo Neri');
  await add.getByRole('textbox', { name: 'Phone' }).fill('+39 347 127 0003');
  await add.getByRole('button', { name: 'Add field' }).click();
  await add.getByLabel('Custom field 1 name').fill('city');
  await add.getByLabel('Custom field city value').fill('Turin');
  await add.getByRole('button', { name: 'Add contact' }).click();
  await add.waitFor({ state: 'detached' });
  await page.getByText('3 contacts').waitFor();
  await page
    .getByTestId('contact-row')
    .filter({ hasText: 'Cleo Neri' })
    .getByText('city: Turin')
    .waitFor();

  // Groups: renamed in place (a taken name refused there), deleted with their contacts kept.
  const groups = page.getByRole('region', { name: 'Groups' });
  await groups.getByRole('textbox', { name: 'New group' }).fill('Rome');
  await groups.getByRole('button', { name: 'Add', exact: true }).click();
  await groups.getByRole('button', { name: 'Rename Rome' }).waitFor();
  await groups.getByRole('button', { name: 'Rename VIP' }).click();
  const newName = groups.getByRole('textbox', { name: 'New name for VIP' });
  await newName.fill('rome');
  await newName.press('Enter');
  await groups.getByText(/a group named "rome" already exists/).waitFor();
  await newName.fill('Gold');
  await newName.press('Enter');
  await groups.getByRole('button', { name: 'Rename Gold' }).waitFor();
  await page
    .getByTestId('contact-row')
    .filter({ hasText: 'Bea Verdi' })
    .getByRole('cell', { name: 'Gold', exact: true })
    .waitFor();
  page.once('dialog', (dialog) => void dialog.accept());
  await groups.getByRole('button', { name: 'Delete Gold' }).click();
  await groups.getByRole('button', { name: 'Rename Gold' }).waitFor({ state: 'detached' });
  await page.getByText('3 contacts').waitFor();
  // Its members stay, without it.
  await page
    .getByTestId('contact-row')
    .getByRole('cell', { name: 'Gold', exact: true })
    .first()
    .waitFor({ state: 'detached' });
  expect(await page.getByTestId('contact-row').count()).toBe(3);
  expect(problems).toEqual([]);
});
