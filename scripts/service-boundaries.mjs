// Which folder of a service may import which (docs/architecture.md, "Where things go").
// Each rule names what a folder must NOT import; everything else is allowed.

const SERVICES = ['gateway', 'messaging', 'contacts', 'campaigns', 'webhooks', 'inbound'];

// Import paths are matched with a regular expression on the specifier as written: relative
// paths (`../../data-access/x`) are what rooms use, and globs cannot match a leading `../`.
const forbid = (rooms, message) => ({
  regex: `(^|/)(${rooms.join('|')})(/|$)`,
  message,
});

const otherServices = {
  regex: `(^|/)(services/|@switchboard/)?(${SERVICES.join('|')})/src(/|$)|^@switchboard/(${SERVICES.join('|')})$`,
  message:
    'A service never imports another service: share code through packages/ and talk over HTTP or the broker.',
};

/** Folder (under services/<name>/src) → the imports it may not make. */
const RULES = {
  'entry-points': [
    forbid(
      ['data-access'],
      'Entry points reach data only through the domain (import the types the domain hands out from there).',
    ),
  ],
  domain: [
    forbid(
      ['entry-points'],
      'The domain never depends on how it is called: entry points call the domain, not the other way round.',
    ),
  ],
  'data-access': [
    forbid(
      ['domain', 'entry-points', 'outbound'],
      'Data access only stores and reads records: no rules, no callers, no outbound calls.',
    ),
  ],
  outbound: [
    forbid(
      ['domain', 'entry-points', 'data-access'],
      "Outbound clients speak another system's wire format only: the domain calls them, they call nothing of ours.",
    ),
  ],
};

/**
 * Services that hold more than one domain, each a folder of its own in every room it has files
 * in (`domain/automation/`, `data-access/automation/`, `entry-points/http/automation/`…). A
 * domain's files never import another domain's folder: where one needs something of the other it
 * declares a port of its own (automation's `BotCampaigns`) and the wiring in `start-*.ts` fills
 * it. Files directly in a room (campaigns' `domain/fill-message.ts`) are shared by the domains
 * and import neither.
 */
const DOMAINS = {
  campaigns: ['campaigns', 'automation'],
};

const ownDomain = (domains, domain) =>
  forbid(
    domains.filter((other) => other !== domain),
    'Each domain of this service keeps to its own folders: ask another domain through a port of your own that the wiring (start-*.ts) fills, never by importing its files.',
  );

const sharedByDomains = (domains) =>
  forbid(
    domains,
    "A file shared by this service's domains depends on none of them: move what needs one into that domain's folder.",
  );

const restrict = (patterns) => ({
  'no-restricted-imports': 'off',
  '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
});

/**
 * A service's tests start that service alone (docs/architecture.md, "How tests are shaped"):
 * they import neither another service's code nor its test support, which would boot it. Its
 * neighbours are contract-checked stubs (test/support/contract-stub.ts); a behaviour that needs
 * several services is an e2e test.
 */
const otherServicesOf = (service) => {
  const others = SERVICES.filter((name) => name !== service);
  return {
    regex: `(^|/)(services/)?(${others.join('|')})/(src|test)(/|$)|^@switchboard/(${others.join('|')})$`,
    message: `The ${service} service's tests start ${service} alone: play a neighbour with a contract stub (test/support/contract-stub.ts), or test the behaviour across services in test/e2e.`,
  };
};

export const serviceBoundaries = [
  { files: ['services/*/src/**/*.ts'], rules: restrict([otherServices]) },
  ...Object.entries(RULES).map(([folder, patterns]) => ({
    files: [`services/*/src/${folder}/**/*.ts`],
    rules: restrict([otherServices, ...patterns]),
  })),
  ...Object.entries(DOMAINS).flatMap(([service, domains]) =>
    Object.entries(RULES).flatMap(([folder, patterns]) => [
      {
        files: [`services/${service}/src/${folder}/*.ts`],
        rules: restrict([otherServices, ...patterns, sharedByDomains(domains)]),
      },
      ...domains.map((domain) => ({
        files: [`services/${service}/src/${folder}/**/${domain}/**/*.ts`],
        rules: restrict([otherServices, ...patterns, ownDomain(domains, domain)]),
      })),
    ]),
  ),
  ...SERVICES.map((service) => ({
    files: [`services/${service}/test/**/*.ts`],
    rules: restrict([otherServicesOf(service)]),
  })),
  {
    // Shared test support is for every service's tests: it starts none of them in-process.
    files: ['test/support/**/*.ts'],
    rules: restrict([
      {
        regex: `(^|/)services/(${SERVICES.join('|')})/(src|test)(/|$)`,
        message:
          "Shared test support starts no service in-process: a service's own harness lives in its test/support, and e2e systems launch processes.",
      },
    ]),
  },
  {
    files: ['packages/*/src/**/*.ts'],
    rules: restrict([
      forbid(['services'], 'Packages are shared by the services and never import one of them.'),
    ]),
  },
];
