import type { AddFlowRequestInput } from '@switchboard/contracts';

/**
 * Three message steps with buttons: order? → which size? (saved in custom.size) → confirm
 * (adds the contact to "Ordered") → thanks. "No" at the start says goodbye.
 */
export function orderFlow(trigger = 'order'): AddFlowRequestInput {
  return {
    name: 'Order a shirt',
    triggers: [trigger, `buy ${trigger}`],
    steps: [
      {
        id: 'welcome',
        type: 'message',
        message: {
          type: 'text',
          header: 'Shirts',
          text: 'Hi {{name}}! Do you want to order a shirt?',
          buttons: [
            { id: 'yes', title: 'Yes please' },
            { id: 'no', title: 'No' },
          ],
        },
        branches: [
          { button: 'yes', next: 'ask_size' },
          { button: 'no', next: 'bye' },
        ],
      },
      {
        id: 'ask_size',
        type: 'message',
        message: {
          type: 'text',
          text: 'Which size?',
          buttons: [
            { id: 'size_s', title: 'Small' },
            { id: 'size_m', title: 'Medium' },
            { id: 'size_l', title: 'Large' },
          ],
        },
        branches: [{ any: true, next: 'save_size' }],
      },
      {
        id: 'save_size',
        type: 'set_field',
        field: 'custom.size',
        value: '{{reply}}',
        next: 'confirm',
      },
      {
        id: 'confirm',
        type: 'message',
        message: {
          type: 'text',
          text: 'Size {{custom.size}}, {{name}}. Shall we ship it?',
          footer: 'Free shipping',
          buttons: [{ id: 'ship', title: 'Ship it' }],
        },
        branches: [{ button: 'ship', next: 'tag' }],
      },
      { id: 'tag', type: 'add_to_group', group: 'Ordered', next: 'done' },
      {
        id: 'done',
        type: 'end',
        message: {
          type: 'text',
          text: 'Thanks {{name}}, your {{custom.size}} shirt is on its way',
        },
      },
      { id: 'bye', type: 'end', message: { type: 'text', text: 'Maybe another time!' } },
    ],
  };
}
