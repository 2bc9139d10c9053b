import { execFileSync } from 'node:child_process';
import path from 'node:path';

// The import rules of docs/architecture.md ("Where things go"), run by the project's own ESLint
// configuration on a file placed in each room, as `npm test`'s lint step would see it. ESLint
// loads its configuration with a dynamic import, which jest's module sandbox refuses, so the
// cases are linted together in a child process.
const root = path.resolve(__dirname, '../..');

const LINT_CASES = `
  import { ESLint } from 'eslint';
  const eslint = new ESLint({ cwd: process.cwd() });
  const cases = JSON.parse(process.argv[1]);
  const out = [];
  for (const [file, code] of cases) {
    const [result] = await eslint.lintText(code, { filePath: file });
    out.push(result.messages
      .filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports')
      .map((m) => m.message));
  }
  process.stdout.write(JSON.stringify(out));
`;

function restrictedImportsOf(cases: Array<[file: string, code: string]>): string[][] {
  const output = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', LINT_CASES, JSON.stringify(cases)],
    { cwd: root, encoding: 'utf8' },
  );
  return JSON.parse(output) as string[][];
}

const importOf = (from: string) => `import { thing } from '${from}';\nexport const x = thing;\n`;

const FORBIDDEN: Array<[file: string, from: string]> = [
  ['services/messaging/src/entry-points/http/example.ts', '../../data-access/quota-store'],
  ['services/gateway/src/entry-points/broker/example.ts', '../../data-access/user-store'],
  ['services/inbound/src/entry-points/jobs/example.ts', '../../data-access/inbound-event-store'],
  ['services/campaigns/src/domain/example.ts', '../entry-points/http/campaign-routes'],
  ['services/campaigns/src/domain/automation/example.ts', '../campaigns/start-campaign'],
  [
    'services/campaigns/src/domain/automation/flows/example.ts',
    '../../../data-access/campaigns/campaign-store',
  ],
  ['services/campaigns/src/domain/campaigns/example.ts', '../automation/match-text'],
  ['services/campaigns/src/data-access/campaigns/example.ts', '../automation/reply-store'],
  [
    'services/campaigns/src/entry-points/http/campaigns/example.ts',
    '../../../domain/automation/manage-replies',
  ],
  [
    'services/campaigns/src/entry-points/http/automation/example.ts',
    '../../../data-access/automation/reply-store',
  ],
  ['services/campaigns/src/domain/example.ts', './automation/match-text'],
  ['services/webhooks/src/data-access/example.ts', '../domain/manage-webhooks'],
  ['services/contacts/src/data-access/example.ts', '../outbound/anything'],
  ['services/messaging/src/outbound/example.ts', '../domain/sending/send-message'],
  ['services/messaging/src/outbound/example.ts', '../data-access/channel-store'],
  [
    'services/campaigns/src/domain/example.ts',
    '../../../messaging/src/domain/sending/send-message',
  ],
  ['packages/service-kit/src/example.ts', '../../../services/gateway/src/config'],
  // A service's tests start that service alone.
  ['services/contacts/test/component/example.test.ts', '../../../gateway/src/start-service'],
  ['services/campaigns/test/component/example.test.ts', '../../../messaging/test/support/harness'],
  [
    'services/messaging/test/component/example.test.ts',
    '../../../campaigns/test/support/campaigns-harness',
  ],
  ['services/gateway/test/support/example.ts', '../../../messaging/src/config'],
  ['test/support/example.ts', '../../services/messaging/src/start-service'],
];

const ALLOWED: Array<[file: string, from: string]> = [
  ['services/messaging/src/entry-points/http/example.ts', '../../domain/message-quota'],
  ['services/messaging/src/domain/example.ts', '../data-access/quota-store'],
  ['services/messaging/src/domain/example.ts', '../outbound/cloud-api'],
  ['services/messaging/src/start-service.ts', './data-access/quota-store'],
  ['services/webhooks/src/outbound/example.ts', '@switchboard/service-kit'],
  ['services/campaigns/src/domain/automation/flows/example.ts', '../../fill-message'],
  [
    'services/campaigns/src/domain/automation/example.ts',
    '../../data-access/automation/reply-store',
  ],
  ['services/campaigns/src/domain/campaigns/example.ts', '../../outbound/service-clients'],
  [
    'services/campaigns/src/entry-points/http/automation/example.ts',
    '../../../domain/automation/manage-replies',
  ],
  ['services/campaigns/src/start-service.ts', './start-automation'],
  ['services/campaigns/src/start-automation.ts', './data-access/campaigns/campaign-store'],
  ['services/webhooks/src/data-access/example.ts', '@switchboard/contracts'],
  ['services/contacts/test/component/example.test.ts', '../../src/start-service'],
  ['services/contacts/test/component/example.test.ts', '../support/contacts-harness'],
  ['services/gateway/test/component/example.test.ts', '../../../../test/support/contract-stub'],
];

describe('service rooms and the imports between them', () => {
  jest.setTimeout(60_000);
  let forbidden: string[][];
  let allowed: string[][];

  beforeAll(() => {
    const results = restrictedImportsOf(
      [...FORBIDDEN, ...ALLOWED].map(([file, from]) => [file, importOf(from)]),
    );
    forbidden = results.slice(0, FORBIDDEN.length);
    allowed = results.slice(FORBIDDEN.length);
  });

  it.each(FORBIDDEN.map((pair, index) => [...pair, index] as const))(
    '%s may not import %s',
    (_file, _from, index) => {
      expect(forbidden[index]).toHaveLength(1);
    },
  );

  it.each(ALLOWED.map((pair, index) => [...pair, index] as const))(
    '%s may import %s',
    (_file, _from, index) => {
      expect(allowed[index]).toEqual([]);
    },
  );
});
