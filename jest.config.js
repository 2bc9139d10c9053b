// Three layers, chosen with --selectProjects: unit (pure logic), component (one service or
// package against the real database and broker), e2e (every process, through the gateway).
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
};
// Tests run the TypeScript sources of workspace packages directly, so no build is needed first.
const moduleNameMapper = {
  '^@switchboard/(contracts|service-kit|provider-simulator)$': '<rootDir>/packages/$1/src',
  '^@switchboard/service-kit/telemetry$': '<rootDir>/packages/service-kit/src/telemetry',
  // ES module packages (the console) name their TypeScript files by the `.js` they become.
  '^(\\.{1,2}/.*)\\.js$': '$1',
};
const project = (displayName, testMatch, extra = {}) => ({
  displayName,
  testMatch,
  transform,
  moduleNameMapper,
  testEnvironment: 'node',
  ...extra,
});

module.exports = {
  reporters: ['default', '<rootDir>/scripts/jest-summary-reporter.js'],
  projects: [
    project('unit', [
      '<rootDir>/{packages,services}/*/test/unit/**/*.test.ts',
      // The scripts' own logic (the launcher's restart policy).
      '<rootDir>/test/unit/**/*.test.ts',
    ]),
    project('component', [
      '<rootDir>/{packages,services}/*/test/{component,contract}/**/*.test.ts',
    ]),
    project('e2e', ['<rootDir>/test/e2e/**/*.test.ts']),
    // Dockerfile, docker-compose.yml and k8s/ checked offline against their schemas and the code.
    project('deploy', ['<rootDir>/test/deploy/**/*.test.ts']),
  ],
};
