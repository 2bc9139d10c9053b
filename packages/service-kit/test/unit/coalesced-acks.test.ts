import type { Channel, Message } from 'amqplib';
import { CoalescedAcks } from '../../src/broker/coalesced-acks';

/** Records what would go to RabbitMQ: `basic.ack` frames as [deliveryTag, multiple]. */
function recordingChannel() {
  const frames: Array<[number, boolean]> = [];
  const channel = {
    ack: (message: Message, multiple?: boolean) =>
      frames.push([message.fields.deliveryTag, multiple ?? false]),
  } as unknown as Channel;
  return { channel, frames };
}

const message = (deliveryTag: number) => ({ fields: { deliveryTag } }) as Message;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('coalesced acks', () => {
  test('when many messages finish in one turn, then one multiple ack covers them', async () => {
    const { channel, frames } = recordingChannel();
    const acks = new CoalescedAcks(channel, () => undefined);
    for (let tag = 1; tag <= 50; tag++) acks.received(message(tag));
    for (let tag = 50; tag >= 1; tag--) acks.ack(message(tag));
    expect(frames).toEqual([]);
    await nextTurn();
    expect(frames).toEqual([[50, true]]);
  });

  test('when a message is still running, then those before it go in one multiple ack and those after it one by one, never twice', async () => {
    const { channel, frames } = recordingChannel();
    const acks = new CoalescedAcks(channel, () => undefined);
    for (let tag = 1; tag <= 6; tag++) acks.received(message(tag));
    for (const tag of [1, 2, 4, 5]) acks.ack(message(tag));
    await nextTurn();
    expect(frames).toEqual([
      [2, true],
      [4, false],
      [5, false],
    ]);
    acks.ack(message(3));
    acks.ack(message(6));
    acks.ack(message(6));
    await nextTurn();
    expect(frames.slice(3)).toEqual([[6, true]]);
  });

  test('when the channel is gone, then the error is reported and nothing throws', async () => {
    const errors: unknown[] = [];
    const channel = {
      ack: () => {
        throw new Error('Channel closed');
      },
    } as unknown as Channel;
    const acks = new CoalescedAcks(channel, (error) => errors.push(error));
    acks.received(message(1));
    acks.ack(message(1));
    await nextTurn();
    expect(errors).toHaveLength(1);
  });
});
