import {
  counterByLabel,
  cpuBetween,
  cpuLine,
  cpuPerSend,
  growth,
  parseProcStat,
} from '../../scripts/bench-measure';

// A real /proc/<pid>/stat line shape: utime (field 14) 250 ticks, stime (15) 50 ticks.
const statLine = (comm: string, utime: number, stime: number) =>
  `4242 (${comm}) S 1 4242 4242 0 -1 4194560 1200 0 0 0 ${utime} ${stime} 0 0 20 0 11 0 9000 1 2 3`;

describe('reading /proc/<pid>/stat', () => {
  test('when a stat line is read, then its CPU is user plus system time in ms at 100 ticks/s', () => {
    expect(parseProcStat(statLine('docdb', 250, 50))).toEqual({ comm: 'docdb', cpuMs: 3000 });
  });

  test('when the command name holds spaces and parentheses, then the fields after it still count', () => {
    expect(parseProcStat(statLine('a (b) c', 7, 3))).toEqual({ comm: 'a (b) c', cpuMs: 100 });
  });

  test('when the line is not a stat line, then nothing is read', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('12 (x) S 1')).toBeUndefined();
  });
});

describe('CPU over a window, per send', () => {
  const at = (entries: [number, string, number][]) =>
    new Map(entries.map(([pid, comm, cpuMs]) => [pid, { comm, cpuMs }]));

  test('when processes ran in the window, then each group gets what it spent there, a newcomer whole and a reused pid from zero', () => {
    const before = at([
      [10, 'node', 1000],
      [20, 'docdb', 5000],
      [30, 'postgres', 100],
      [40, 'postgres', 900],
    ]);
    const after = at([
      [10, 'node', 1600],
      [20, 'docdb', 5900],
      [30, 'postgres', 400],
      [40, 'bash', 50],
      [50, 'postgres', 200],
      [60, 'schemathesis', 70],
    ]);
    const { groups, others } = cpuBetween(before, after, new Map([[10, 'messaging']]));
    expect(Object.fromEntries(groups)).toEqual({
      messaging: 600,
      'docdb (FerretDB)': 900,
      PostgreSQL: 500,
      other: 120,
    });
    expect(others).toEqual([
      { pid: 60, comm: 'schemathesis', cpuMs: 70 },
      { pid: 40, comm: 'bash', cpuMs: 50 },
    ]);
  });

  test('when figures are per send, then ours sums our services and total adds only the infrastructure', () => {
    const groups = new Map([
      ['messaging', 1200],
      ['gateway', 300],
      ['docdb (FerretDB)', 2000],
      ['PostgreSQL', 400],
      ['RabbitMQ', 100],
      ['provider-simulator', 500],
      ['other', 9000],
    ]);
    const figures = cpuPerSend(groups, ['gateway', 'messaging'], 100);
    expect(figures.ours).toBe(15);
    expect(figures.total).toBe(40);
    expect(figures.byProcess[0]).toEqual({ process: 'other', 'cpu ms': 9000, 'ms per send': 90 });
    expect(cpuLine(figures)).toBe('cpu per send: 40.0 ms total, 15.0 ms in our services');
  });
});

describe('database command counts from /metrics', () => {
  const scrape = [
    '# HELP switchboard_db_commands_total Database commands',
    '# TYPE switchboard_db_commands_total counter',
    'switchboard_db_commands_total{command="find",service="messaging"} 14',
    'switchboard_db_commands_total{service="messaging",command="insert"} 7',
    'switchboard_db_commands_total_created{command="find"} 1700000000',
    'switchboard_http_requests_total{command="find"} 99',
  ].join('\n');

  test('when a scrape is read, then each command has its count and other metrics are left out', () => {
    expect(
      Object.fromEntries(counterByLabel(scrape, 'switchboard_db_commands_total', 'command')),
    ).toEqual({ find: 14, insert: 7 });
  });

  test('when several labels are asked for, then each combination has its count, the values joined by a space', () => {
    const byCollection = [
      'switchboard_db_commands_total{command="find",collection="messages"} 4',
      'switchboard_db_commands_total{collection="conversations",command="find"} 2',
      'switchboard_db_commands_total{command="hello",collection=""} 1',
    ].join('\n');
    expect(
      Object.fromEntries(
        counterByLabel(byCollection, 'switchboard_db_commands_total', ['command', 'collection']),
      ),
    ).toEqual({ 'find messages': 4, 'find conversations': 2, 'hello ': 1 });
  });

  test('when two scrapes are compared, then only what grew is kept', () => {
    const grown = growth(
      new Map([
        ['find', 10],
        ['insert', 7],
      ]),
      new Map([
        ['find', 14],
        ['insert', 7],
        ['update', 3],
      ]),
    );
    expect(Object.fromEntries(grown)).toEqual({ find: 4, update: 3 });
  });
});
