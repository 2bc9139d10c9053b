// The Node.js version is one truth: .nvmrc pins the version npm start and
// npm test fetch when the machine's is older, package.json's engines say what the project runs
// on, and every dependency, the Dockerfile's image and @types/node agree with both.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { ROOT } from './support/repo';

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const pinned = read('.nvmrc').trim();
const manifest = JSON.parse(read('package.json')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const lockfile = JSON.parse(read('package-lock.json')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};

test('when .nvmrc pins a version, then it is an exact version within package.json engines', () => {
  expect(semver.valid(pinned)).toBe(pinned);
  expect(semver.satisfies(pinned, manifest.engines.node)).toBe(true);
});

test('when the pinned Node.js installs the lockfile, then no dependency refuses its engine', () => {
  const refusing = Object.entries(lockfile.packages)
    .filter(([name]) => name !== '')
    .flatMap(([name, { engines }]) => {
      const range = engines && !Array.isArray(engines) ? engines.node : undefined;
      return range && !semver.satisfies(pinned, range) ? [`${name}: ${range}`] : [];
    });
  expect(refusing).toEqual([]);
});

test('when the image is built, then its Node.js and @types/node are the pinned major', () => {
  const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(read('Dockerfile'))?.[1];
  const types = semver.minVersion(manifest.devDependencies['@types/node']!)?.major;
  expect({ image: Number(image), types }).toEqual({
    image: semver.major(pinned),
    types: semver.major(pinned),
  });
});
