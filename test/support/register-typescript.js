// `node -r ./test/support/register-typescript.js file.ts`: runs TypeScript sources in a child
// process the way jest runs them (swc, workspace packages from their src/), with no build first.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const ROOT = path.resolve(__dirname, '..', '..');
const WORKSPACE_PACKAGE = /^@switchboard\/(contracts|service-kit|provider-simulator)$/;

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const match = WORKSPACE_PACKAGE.exec(request);
  const target = match ? path.join(ROOT, 'packages', match[1], 'src', 'index.ts') : request;
  return resolveFilename.call(this, target, ...rest);
};

require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
