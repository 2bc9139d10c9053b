import { planEventMessages } from '../../src/broker';

/** An event named by its record and place, on a route. */
const e = (name: string, route: string) => ({ name, route });
const plan = (sequences: { name: string; route: string }[][], max?: number) =>
  planEventMessages(sequences, (event) => event.route, max).map((message) =>
    message.events.map((event) => event.name),
  );

describe('the broker messages that carry events relayed together', () => {
  test('when records of two routes are relayed together, then each route goes as one message, its records in order', () => {
    expect(
      plan([[e('a1', 'x'), e('a2', 'x')], [e('b1', 'y')], [e('c1', 'x'), e('c2', 'x')]]),
    ).toEqual([['a1', 'a2', 'c1', 'c2'], ['b1']]);
  });

  test('when a route has more events than a message carries, then it goes as several, in order', () => {
    const records = [1, 2, 3].map((r) => [e(`${r}a`, 'x'), e(`${r}b`, 'x')]);
    expect(plan(records, 4)).toEqual([
      ['1a', '1b', '2a', '2b'],
      ['3a', '3b'],
    ]);
  });

  test("when a record's events change route, then those after the change go alone, after every batch, so that no queue gets them before the earlier ones", () => {
    expect(
      plan([
        [e('a1', 'x'), e('a2', 'y'), e('a3', 'x')],
        [e('b1', 'y'), e('b2', 'y')],
      ]),
    ).toEqual([['a1'], ['b1', 'b2'], ['a2'], ['a3']]);
  });

  test('when each event is placed, then its place names its record and position', () => {
    const [message] = planEventMessages(
      [[e('a1', 'x')], [e('b1', 'x'), e('b2', 'x')]],
      (x) => x.route,
    );
    expect(message!.places).toEqual([
      [0, 0],
      [1, 0],
      [1, 1],
    ]);
  });
});
