import {
  AddFlowRequestSchema,
  type AddFlowRequestInput,
  type FlowView,
  type TemplateView,
} from '@switchboard/contracts';
import { draftOfFlow, problemsByPlace, requestOf } from '../../src/flow-draft.js';

/** Every step kind, with what the editor shows and what it only keeps (header, ids, variables). */
const everyKind: AddFlowRequestInput = {
  name: 'Shirts',
  triggers: ['shirt', 'buy shirt'],
  start_step: 'welcome',
  steps: [
    {
      id: 'welcome',
      type: 'message',
      message: {
        type: 'text',
        header: 'Shirts',
        footer: 'Shop Co',
        text: 'Hi {{1}}! Want a shirt?',
        buttons: [
          { id: 'yes', title: 'Yes please' },
          { id: 'no', title: 'No' },
        ],
      },
      variables: [{ field: 'custom.nickname' }],
      branches: [
        { button: 'yes', next: 'size' },
        { keywords: ['stop', 'no thanks'], next: 'bye' },
        { button: 'no', next: 'bye' },
      ],
      next: 'human',
    },
    {
      id: 'size',
      type: 'message',
      message: {
        type: 'template',
        template_name: 'ask_size',
        template_language: 'en_US',
        header_media: { type: 'image', link: 'https://shop.example/sizes.png' },
      },
      variables: [{ value: 'friend' }, { field: 'name' }],
      branches: [{ any: true, next: 'save' }],
    },
    { id: 'save', type: 'set_field', field: 'custom.size', value: '{{reply}}', next: 'group' },
    { id: 'group', type: 'add_to_group', group: 7, next: 'bye' },
    { id: 'human', type: 'hand_over', message: { type: 'text', text: 'A colleague will answer' } },
    { id: 'bye', type: 'end' },
  ],
};

const askSize = {
  template_name: 'ask_size',
  template_language: 'en_US',
  components: [{ type: 'BODY', text: 'Which size, {{1}} {{2}}?' }],
} as unknown as TemplateView;

function stored(input: AddFlowRequestInput): FlowView {
  const flow = AddFlowRequestSchema.parse(input);
  return {
    id: 1,
    name: flow.name,
    triggers: flow.triggers,
    start_step: flow.start_step ?? flow.steps[0]!.id,
    steps: flow.steps,
    active: true,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

describe('the flow editor writes the request the API takes', () => {
  test('when a stored flow is opened and saved unchanged, then the request holds the same flow', () => {
    const flow = stored(everyKind);
    const request = AddFlowRequestSchema.parse(requestOf(draftOfFlow(flow), [askSize]));
    expect(request).toEqual(AddFlowRequestSchema.parse(everyKind));
  });

  test('when a button is added, then the kept titles keep their ids, so the branches on them still hold', () => {
    const draft = draftOfFlow(stored(everyKind));
    draft.steps[0]!.buttons = 'Yes please, No, Maybe';
    const request = AddFlowRequestSchema.parse(requestOf(draft, [askSize]));
    const first = request.steps[0]!;
    expect(
      first.type === 'message' && first.message.type === 'text' && first.message.buttons,
    ).toEqual([
      { id: 'yes', title: 'Yes please' },
      { id: 'no', title: 'No' },
      { id: 'Maybe', title: 'Maybe' },
    ]);
  });

  test('when a text step becomes a template one, then the template is sent with one variable per placeholder of its body', () => {
    const draft = draftOfFlow(stored(everyKind));
    const human = draft.steps[4]!;
    human.sends = 'template';
    human.template = 'ask_size|en_US';
    human.variables = ['contact.custom.size'];
    const request = AddFlowRequestSchema.parse(requestOf(draft, [askSize]));
    expect(request.steps[4]).toEqual({
      id: 'human',
      type: 'hand_over',
      message: { type: 'template', template_name: 'ask_size', template_language: 'en_US' },
      variables: [{ field: 'custom.size' }, { field: 'name' }],
    });
  });

  test('when the API refuses, then each problem of a step is put under that step and the rest above', () => {
    const { general, byStep } = problemsByPlace(
      'triggers: must name at least one keyword; steps.1.field: must be name; steps.1: step b: goes to x, which is not a step of this flow; steps.3.next: must be a step id',
    );
    expect(general).toEqual(['triggers: must name at least one keyword']);
    expect([...byStep.entries()]).toEqual([
      [
        1,
        [
          'steps.1.field: must be name',
          'steps.1: step b: goes to x, which is not a step of this flow',
        ],
      ],
      [3, ['steps.3.next: must be a step id']],
    ]);
  });
});
