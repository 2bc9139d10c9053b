import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT, mainSourceExists } from './support/repo';

interface Instruction {
  keyword: string;
  argument: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments dropped. */
function readInstructions(file: string): Instruction[] {
  const lines = readFileSync(file, 'utf8')
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  return lines.map((line) => {
    const [keyword, ...rest] = line.split(/\s+/);
    return { keyword: keyword!.toUpperCase(), argument: rest.join(' ') };
  });
}

/** The instructions of each stage, from its FROM to the next. */
function stages(instructions: Instruction[]): Instruction[][] {
  const result: Instruction[][] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') result.push([]);
    result.at(-1)?.push(instruction);
  }
  return result;
}

/** Docker's .dockerignore matching: the last pattern matching a path or a parent of it decides. */
function isInBuildContext(file: string, patterns: string[]): boolean {
  const toRegExp = (glob: string) =>
    new RegExp(
      `^${glob
        .split(/\*\*\/?/)
        .map((part) =>
          part
            .replace(/[.+^${}()|[\]\\]/g, '\\$&')
            .replace(/\*/g, '[^/]*')
            .replace(/\?/g, '[^/]'),
        )
        .join('.*')}$`,
    );
  const parts = file.split('/');
  const candidates = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
  let included = true;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    const matcher = toRegExp(negated ? pattern.slice(1) : pattern);
    if (candidates.some((candidate) => matcher.test(candidate))) included = negated;
  }
  return included;
}

const WORKSPACES = (
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    workspaces: string[];
  }
).workspaces;
const instructions = readInstructions(path.join(ROOT, 'Dockerfile'));
const [build, runtime] = [stages(instructions).at(0)!, stages(instructions).at(-1)!];
const argumentsOf = (stage: Instruction[], keyword: string) =>
  stage.filter((instruction) => instruction.keyword === keyword).map(({ argument }) => argument);

describe('Dockerfile', () => {
  test('when built, then a build stage compiles everything and a separate runtime stage keeps production dependencies only', () => {
    expect(stages(instructions).length).toBeGreaterThanOrEqual(2);
    const copied = argumentsOf(build, 'COPY').join('\n');
    // Every workspace's manifest is there before the install, or its dependencies would be missing.
    for (const workspace of WORKSPACES) expect(copied).toContain(`${workspace}/package.json`);
    const commands = argumentsOf(build, 'RUN').join('\n');
    expect(commands).toMatch(/npm (install|ci)\b/);
    expect(commands).toMatch(/npx tsc -b/);
    expect(commands).toMatch(/npm prune --omit=dev/);
    expect(argumentsOf(runtime, 'COPY').every((argument) => argument.startsWith('--from='))).toBe(
      true,
    );
  });

  test('when a container starts, then node itself runs the compiled main as a non-root user listening on every interface', () => {
    const [user] = argumentsOf(runtime, 'USER');
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/); // numeric, so that runAsNonRoot can verify it
    expect(argumentsOf(runtime, 'ENTRYPOINT')).toEqual(['["node"]']);
    const [command] = argumentsOf(runtime, 'CMD');
    const main = (JSON.parse(command!) as string[])[0]!;
    expect(mainSourceExists(main)).toBe(true);
    expect(argumentsOf(runtime, 'ENV').join(' ')).toMatch(/\bHOST=0\.0\.0\.0\b/);
  });

  test('when the build context is sent, then it holds the sources and manifests but no secrets, dependencies or build output', () => {
    const patterns = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    const needed = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.base.json'];
    for (const workspace of WORKSPACES) {
      const sources = readdirSync(path.join(ROOT, workspace, 'src'), { recursive: true })
        .map(String)
        .filter((file) => file.endsWith('.ts'));
      // The top-level entry point and a source in a folder below it, if there is one.
      const entry = sources.find((file) => !file.includes(path.sep));
      const nested = sources.find((file) => file.includes(path.sep)) ?? entry;
      needed.push(`${workspace}/package.json`, `${workspace}/tsconfig.json`);
      needed.push(`${workspace}/src/${entry}`, `${workspace}/src/${nested}`);
    }
    for (const file of needed)
      expect({ file, sent: isInBuildContext(file, patterns) }).toEqual({ file, sent: true });
    const unwanted = [
      '.data/secrets.json',
      '.env',
      '.git/config',
      'node_modules/express/package.json',
      'packages/service-kit/dist/index.js',
      'packages/service-kit/node_modules/x/index.js',
      'services/webhooks/test/unit/sign-payload.test.ts',
      'test/e2e/foundation.test.ts',
    ];
    for (const file of unwanted)
      expect({ file, sent: isInBuildContext(file, patterns) }).toEqual({ file, sent: false });
  });
});
